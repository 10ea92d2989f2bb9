package telemetry

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// BenchmarkSpanWithoutExporter: one span as the executor starts them,
// attributes included, when nothing records spans.
func BenchmarkSpanWithoutExporter(b *testing.B) {
	tracer := newPropagatingProvider().Tracer("bench")
	ctx := WithTraceParent(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	b.ReportAllocs()
	for b.Loop() {
		_, span := tracer.Start(ctx, "process", trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(AttrMessagingSystem.String(SystemIBMMQ), AttrMessagingOperationType.String("process"),
				attribute.String("mqprobe.transport", "http"), AttrTenant.String("default")))
		span.SetAttributes(AttrOperation.String("DEPTH"))
		span.End()
	}
}
