package testenv

import (
	"context"
	"net/url"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestJaegerOTelSDKExporters exports a parent and a child span through the
// OpenTelemetry Go SDK's OTLP exporters, over HTTP and over gRPC, and reads
// each trace back from Jaeger's query API.
func TestJaegerOTelSDKExporters(t *testing.T) {
	ep, stop, err := Jaeger()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	exporters := map[string]func() (sdktrace.SpanExporter, error){
		"http": func() (sdktrace.SpanExporter, error) {
			return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(ep.OTLPHTTP+"/v1/traces"))
		},
		"grpc": func() (sdktrace.SpanExporter, error) {
			u, err := url.Parse(ep.OTLPGRPC)
			if err != nil {
				return nil, err
			}
			return otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(u.Host), otlptracegrpc.WithInsecure())
		},
	}
	for proto, newExporter := range exporters {
		t.Run(proto, func(t *testing.T) {
			if proto == "grpc" && ep.OTLPGRPC == "" {
				t.Fatalf("%s is not set: no OTLP/gRPC endpoint to test", OTLPGRPCEndpointEnv)
			}
			exp, err := newExporter()
			if err != nil {
				t.Fatal(err)
			}
			tp := sdktrace.NewTracerProvider(
				sdktrace.WithSyncer(exp),
				sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "mqprobe-testenv-"+proto))),
			)
			defer func() { _ = tp.Shutdown(context.Background()) }()
			tracer := tp.Tracer("testenv")
			pctx, parent := tracer.Start(ctx, "testenv.parent."+proto)
			_, child := tracer.Start(pctx, "testenv.child."+proto)
			child.End()
			parent.End()
			if err := tp.ForceFlush(ctx); err != nil {
				t.Fatal(err)
			}

			traceID := parent.SpanContext().TraceID().String()
			names, err := AwaitJaegerTrace(ep.Query, traceID, 2, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, n := range names {
				got[n] = true
			}
			if len(names) != 2 || !got["testenv.parent."+proto] || !got["testenv.child."+proto] {
				t.Fatalf("trace %s spans = %q, want testenv.parent.%s and testenv.child.%s", traceID, names, proto, proto)
			}
		})
	}
}
