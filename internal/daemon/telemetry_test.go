package daemon_test

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
)

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

func TestTraceOfAProduceOverHTTP(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	h := daemontest.Start(t, daemontest.Recording(rec))
	body := fmt.Sprintf(`{%s,"batch":{"count":250,"messageSizeBytes":64,"transaction":{"enabled":true,"txSize":100}}}`, daemontest.Target)
	r := h.Post("/messages/produce", body, "Idempotency-Key", "traced-1", "traceparent", daemontest.CallerTraceParent)
	if r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	got := daemontest.Tree(t, rec.Ended(), daemontest.CallerTraceID)
	// The embedded queue manager's messages die with the process, so the
	// PRODUCE stores no checkpoint per commit: the store sees the begin and
	// the final complete only.
	want := []string{
		"(caller) > POST /messages/produce",
		"POST /messages/produce > process",
		"idempotency > idempotency.store begin",
		"process > connect QM1",
		"process > idempotency",
		"process > idempotency.store complete",
		"process > publish results",
		"process > send DEV.QUEUE.1",
		"process > send DEV.QUEUE.1",
		"process > send DEV.QUEUE.1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("span tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var batches []string
	for _, s := range rec.Ended() {
		switch s.Name() {
		case "process":
			if s.SpanKind() != trace.SpanKindConsumer || attr(s, "mqprobe.operation") != "PRODUCE" || attr(s, "mqprobe.idempotency.key") != "traced-1" {
				t.Errorf("process span: kind %v attrs %v", s.SpanKind(), s.Attributes())
			}
		case "idempotency":
			if attr(s, "mqprobe.idempotency.outcome") != "acquired" {
				t.Errorf("idempotency outcome %q", attr(s, "mqprobe.idempotency.outcome"))
			}
		case "send DEV.QUEUE.1":
			batches = append(batches, attr(s, "messaging.batch.message_count"))
			if s.SpanKind() != trace.SpanKindProducer || attr(s, "messaging.system") != "ibm_mq" || attr(s, "messaging.destination.name") != "DEV.QUEUE.1" {
				t.Errorf("send span: kind %v attrs %v", s.SpanKind(), s.Attributes())
			}
		case "publish results":
			if s.SpanKind() != trace.SpanKindProducer {
				t.Errorf("publish span kind %v", s.SpanKind())
			}
		}
	}
	sort.Strings(batches)
	if fmt.Sprint(batches) != "[100 100 50]" {
		t.Errorf("batch sizes %v, want 100, 100 and 50", batches)
	}

	// The result event and every message carry the caller's trace.
	evs := h.Results("traced-1")
	if len(evs) != 1 || !strings.Contains(evs[0].TraceParent, daemontest.CallerTraceID) {
		t.Errorf("result event traceparent %q", evs[0].TraceParent)
	}
	conn, q := open(t, h.Backend, "DEV.QUEUE.1", mq.OpenBrowse)
	defer conn.Close()
	defer q.Close()
	msg := &mq.Message{}
	for i := range 250 {
		browse := mq.BrowseNext
		if i == 0 {
			browse = mq.BrowseFirst
		}
		if err := q.Get(t.Context(), msg, mq.GetOptions{Browse: browse}); err != nil {
			t.Fatal(err)
		}
		if tp, _ := msg.Properties["traceparent"].(string); !strings.Contains(tp, daemontest.CallerTraceID) {
			t.Fatalf("message %d traceparent %q", i, tp)
		}
	}
}

func TestTraceOfAReplayHasNoMQSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	h := daemontest.Start(t, daemontest.Recording(rec))
	body := daemontest.ProduceBody(5, "")
	h.Post("/messages/produce", body, "Idempotency-Key", "traced-replay")
	before := len(rec.Ended())
	r := h.Post("/messages/produce", body, "Idempotency-Key", "traced-replay", "traceparent", daemontest.CallerTraceParent)
	if r.Header.Get("Idempotent-Replay") != "true" {
		t.Fatalf("second request was not a replay: %d %s", r.Status, r.Body)
	}
	spans := rec.Ended()[before:]
	got := daemontest.Tree(t, spans, daemontest.CallerTraceID)
	want := []string{"(caller) > POST /messages/produce", "POST /messages/produce > process",
		"idempotency > idempotency.store begin", "process > idempotency", "process > publish results"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replay span tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range spans {
		if s.Name() == "idempotency" && attr(s, "mqprobe.idempotency.outcome") != "replay" {
			t.Errorf("idempotency outcome %q, want replay", attr(s, "mqprobe.idempotency.outcome"))
		}
	}
}

func TestMetricsAfterKnownTraffic(t *testing.T) {
	h := daemontest.Start(t)
	body := daemontest.ProduceBody(40, "")
	h.Post("/messages/produce", body, "Idempotency-Key", "m-1")
	h.Post("/messages/produce", body, "Idempotency-Key", "m-1")                          // replay
	h.Post("/messages/produce", daemontest.ProduceBody(3, ""), "Idempotency-Key", "m-1") // conflict
	h.Post("/messages/produce", daemontest.ProduceBody(0, ""))                           // rejected
	h.Post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":15,"waitSeconds":0}`, daemontest.Target))
	h.Post("/queue/depth", `{"target":{"queueManager":"QM1","queue":"NO.SUCH.QUEUE"}}`) // failed
	h.Depth("DEV.QUEUE.1")

	status, _, text := h.Get("/metrics")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d", status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	value := func(name string, labels map[string]string) float64 {
		fam, ok := families[name]
		if !ok {
			t.Fatalf("no metric %s", name)
		}
	next:
		for _, m := range fam.Metric {
			for k, v := range labels {
				found := false
				for _, l := range m.Label {
					if l.GetName() == k && l.GetValue() == v {
						found = true
					}
				}
				if !found {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount())
			}
		}
		return 0
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mqprobe_commands_total", map[string]string{"operation": "PRODUCE", "outcome": "completed"}, 1},
		{"mqprobe_commands_total", map[string]string{"operation": "PRODUCE", "outcome": "replayed"}, 1},
		{"mqprobe_commands_total", map[string]string{"operation": "PRODUCE", "outcome": "rejected"}, 2},
		{"mqprobe_commands_total", map[string]string{"operation": "CONSUME", "outcome": "completed"}, 1},
		{"mqprobe_commands_total", map[string]string{"operation": "DEPTH", "outcome": "failed"}, 1},
		{"mqprobe_commands_total", map[string]string{"operation": "DEPTH", "outcome": "completed"}, 1},
		{"mqprobe_idempotency_outcomes_total", map[string]string{"outcome": "acquired"}, 4},
		{"mqprobe_idempotency_outcomes_total", map[string]string{"outcome": "replay"}, 1},
		{"mqprobe_idempotency_outcomes_total", map[string]string{"outcome": "conflict"}, 1},
		{"mqprobe_mq_messages_total", map[string]string{"operation": "put"}, 40},
		{"mqprobe_mq_messages_total", map[string]string{"operation": "get"}, 15},
		{"mqprobe_queue_depth", map[string]string{"queue_manager": "QM1", "queue": "DEV.QUEUE.1"}, 25},
		{"mqprobe_command_duration_seconds", map[string]string{"operation": "PRODUCE", "outcome": "completed"}, 1},
		{"mqprobe_mq_operation_duration_seconds", map[string]string{"operation": "put"}, 1},
	} {
		if got := value(c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := families[name]; !ok {
			t.Errorf("no Go runtime metric %s", name)
		}
	}
}
