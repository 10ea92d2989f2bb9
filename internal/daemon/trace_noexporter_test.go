package daemon_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/telemetry"
)

// spanProbe is a store that notes, for each Begin, the claim and the span
// it runs under, as it is at that moment.
type spanProbe struct {
	idempotency.Store
	mu     sync.Mutex
	spans  []probedSpan
	claims []idempotency.Claim
}

type probedSpan struct {
	sc        trace.SpanContext
	recording bool
}

func (p *spanProbe) Begin(ctx context.Context, c idempotency.Claim) (idempotency.Record, bool, error) {
	span := trace.SpanFromContext(ctx)
	p.mu.Lock()
	p.spans = append(p.spans, probedSpan{span.SpanContext(), span.IsRecording()})
	p.claims = append(p.claims, c)
	p.mu.Unlock()
	return p.Store.Begin(ctx, c)
}

// TestTraceContextWithoutAnExporter: with no span exporter nothing records
// spans, yet a command's result event, its messages and its record carry
// one trace: the caller's when its request has a traceparent, else a new one.
func TestTraceContextWithoutAnExporter(t *testing.T) {
	for _, k := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(k, "")
	}
	for name, caller := range map[string]string{"caller's trace": daemontest.CallerTraceParent, "new trace": ""} {
		t.Run(name, func(t *testing.T) {
			probe := &spanProbe{Store: memory.New()}
			h := daemontest.Start(t, func(s *daemontest.Setup) { s.Opts.Store = probe })
			headers := []string{"Idempotency-Key", "untraced-1"}
			if caller != "" {
				headers = append(headers, "traceparent", caller)
			}
			if r := h.Post("/messages/produce", daemontest.ProduceBody(5, ""), headers...); r.Status != http.StatusCreated {
				t.Fatalf("produce: %d %s", r.Status, r.Body)
			}
			evs := h.Results("untraced-1")
			if len(evs) != 1 {
				t.Fatalf("%d result events, want 1", len(evs))
			}
			sc := trace.SpanContextFromContext(telemetry.WithTraceParent(context.Background(), evs[0].TraceParent))
			if !sc.IsValid() {
				t.Fatalf("result event traceparent %q is not a valid trace context", evs[0].TraceParent)
			}
			traceID := sc.TraceID().String()
			if caller != "" && traceID != daemontest.CallerTraceID {
				t.Errorf("result event trace %s, want the caller's %s", traceID, daemontest.CallerTraceID)
			}

			conn, q := open(t, h.Backend, "DEV.QUEUE.1", mq.OpenBrowse)
			defer conn.Close()
			defer q.Close()
			msg := &mq.Message{}
			for i := range 5 {
				browse := mq.BrowseNext
				if i == 0 {
					browse = mq.BrowseFirst
				}
				if err := q.Get(t.Context(), msg, mq.GetOptions{Browse: browse}); err != nil {
					t.Fatal(err)
				}
				tp, _ := msg.Properties["traceparent"].(string)
				if got := trace.SpanContextFromContext(telemetry.WithTraceParent(context.Background(), tp)); got.TraceID().String() != traceID {
					t.Fatalf("message %d traceparent %q, want trace %s", i, tp, traceID)
				}
			}

			probe.mu.Lock()
			defer probe.mu.Unlock()
			if len(probe.spans) != 1 {
				t.Fatalf("%d claims, want 1", len(probe.spans))
			}
			if span := probe.spans[0]; span.recording || span.sc.TraceID().String() != traceID {
				t.Errorf("the claim ran under span %+v (recording %v), want a non-recording span of trace %s",
					span.sc, span.recording, traceID)
			}
			if probe.claims[0].TraceID != traceID {
				t.Errorf("record traceId %q, want %s", probe.claims[0].TraceID, traceID)
			}
		})
	}
}
