package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/internal/telemetry"
)

const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestTraceParentRoundTrip(t *testing.T) {
	ctx := telemetry.WithTraceParent(context.Background(), parent)
	if got := telemetry.TraceParent(ctx); got != parent {
		t.Errorf("TraceParent = %q, want %q", got, parent)
	}
	if got := telemetry.TraceParent(telemetry.WithTraceParent(context.Background(), "garbage")); got != "" {
		t.Errorf("an invalid traceparent was kept: %q", got)
	}
}

func TestLogLinesCarryTraceAndSpanIDs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler{Handler: slog.NewJSONHandler(&buf, nil)}).With("component", "test")
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(telemetry.WithTraceParent(context.Background(), parent), "process")
	log.InfoContext(ctx, "command", "key", "k1")
	span.End()
	log.Info("no span")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" || first["span_id"] != span.SpanContext().SpanID().String() || first["component"] != "test" {
		t.Errorf("log line with a span: %v", first)
	}
	if _, ok := second["trace_id"]; ok {
		t.Errorf("log line without a span has a trace id: %v", second)
	}
}

func TestSetupHasNoExporterByDefault(t *testing.T) {
	for _, k := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_METRICS_EXPORTER"} {
		t.Setenv(k, "")
	}
	tel, err := telemetry.Setup(context.Background(), telemetry.Config{ServiceVersion: "1.2.3", InstanceID: "i-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	if _, err := telemetry.Setup(context.Background(), telemetry.Config{}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "no-such-exporter")
	if _, err := telemetry.Setup(context.Background(), telemetry.Config{}); err == nil || !strings.Contains(err.Error(), "OTEL_TRACES_EXPORTER") {
		t.Errorf("an unknown exporter must fail start-up naming the variable: %v", err)
	}
}

// TestWithoutExporterSpansPropagateButRecordNothing: with no exporter and
// no span processor a span records nothing, yet carries a valid span
// context: the caller's trace (and flags) when there is one, else a new
// trace, so traceparent still reaches messages and results.
func TestWithoutExporterSpansPropagateButRecordNothing(t *testing.T) {
	for _, k := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(k, "")
	}
	tel, err := telemetry.Setup(context.Background(), telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	tracer := tel.Tracer("test")

	ctx, root := tracer.Start(context.Background(), "process", trace.WithAttributes(telemetry.AttrTenant.String("a")))
	defer root.End()
	sc := root.SpanContext()
	if root.IsRecording() || !sc.IsValid() || !sc.IsSampled() {
		t.Fatalf("root span: recording %v, context %+v; want not recording, a valid sampled context", root.IsRecording(), sc)
	}
	_, child := telemetry.Tracer(ctx, "below").Start(ctx, "send")
	if child.IsRecording() || child.SpanContext().TraceID() != sc.TraceID() || child.SpanContext().SpanID() == sc.SpanID() {
		t.Errorf("child span %+v of %+v: want the same trace, a span of its own, not recording", child.SpanContext(), sc)
	}
	if tp := telemetry.TraceParent(ctx); tp != "00-"+sc.TraceID().String()+"-"+sc.SpanID().String()+"-01" {
		t.Errorf("traceparent %q does not name the span", tp)
	}
	_, other := tracer.Start(context.Background(), "process")
	if other.SpanContext().TraceID() == sc.TraceID() {
		t.Error("two roots share a trace id")
	}

	unsampled := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
	for _, caller := range []string{parent, unsampled} {
		ctx, span := tracer.Start(telemetry.WithTraceParent(context.Background(), caller), "process")
		got := telemetry.TraceParent(ctx)
		if span.IsRecording() || got[:36] != caller[:36] || got[52:] != caller[52:] || got[36:52] == caller[36:52] {
			t.Errorf("span under %s has traceparent %s (recording %v); want the caller's trace and flags, a new span id",
				caller, got, span.IsRecording())
		}
	}
	_, fresh := tracer.Start(telemetry.WithTraceParent(context.Background(), parent), "process", trace.WithNewRoot())
	if fresh.SpanContext().TraceID().String() == parent[3:35] {
		t.Error("WithNewRoot kept the caller's trace")
	}
}
