package daemon_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestTracesReachAnOTLPReceiver exports over OTLP, configured only by the
// standard variables, to a real Jaeger on 127.0.0.1, and reads the trace
// back from Jaeger's query API — over HTTP and over gRPC.
func TestTracesReachAnOTLPReceiver(t *testing.T) {
	jaeger, stop, err := testenv.Jaeger()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	for _, tc := range []struct {
		protocol, endpoint, traceID string
	}{
		{"http/protobuf", jaeger.OTLPHTTP, "5bf92f3577b34da6a3ce929d0e0e4736"},
		{"grpc", jaeger.OTLPGRPC, "6bf92f3577b34da6a3ce929d0e0e4736"},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tc.endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", tc.protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
			h := daemontest.Start(t)
			r := h.Post("/messages/produce", daemontest.ProduceBody(10, ""), "traceparent", "00-"+tc.traceID+"-00f067aa0ba902b7-01")
			if r.Status != http.StatusCreated {
				t.Fatalf("produce: %d %s", r.Status, r.Body)
			}
			h.Shutdown() // flushes the batch exporter
			wanted := []string{"POST /messages/produce", "process", "idempotency", "connect QM1", "send DEV.QUEUE.1", "publish results"}
			// Jaeger may answer with the spans of one exported batch before
			// it has indexed the next.
			var names []string
			testenv.Until(15*time.Second, func() bool {
				var err error
				if names, err = testenv.AwaitJaegerTrace(jaeger.Query, tc.traceID, 6, 15*time.Second); err != nil {
					t.Fatalf("trace in Jaeger: %v", err)
				}
				return !slices.ContainsFunc(wanted, func(w string) bool { return !slices.Contains(names, w) })
			})
			for _, want := range wanted {
				if !slices.Contains(names, want) {
					t.Errorf("Jaeger's trace lacks %q: %s", want, strings.Join(names, ", "))
				}
			}
		})
	}
}
