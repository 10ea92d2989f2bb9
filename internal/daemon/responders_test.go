package daemon_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/probe"
	"github.com/mqprobe/mqprobe/internal/responder"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// requestReplyView is GET /tests/{id} of a requestReply TEST.
type requestReplyView struct {
	Status string `json:"status"`
	Result *probe.Stats
}

// On the embedded default, a daemon's own responder answers its
// requestReply TEST: every probe comes back with its round trip split into
// hops whose means add up; its metrics count the replies; a request
// naming a queue the allowlist refuses is dead-lettered; the drain stops
// the responder and says so.
func TestRespondersOnTheEmbeddedDefault(t *testing.T) {
	var logs testenv.Buffer
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Targets.Inline.Queues = []string{"DEV.QUEUE.*"}
		s.Cfg.Responders = []responder.Config{{Name: "echo", QueueManager: "QM1", Queue: "DEV.QUEUE.1", Concurrency: 2}}
		s.Opts.Log = slog.New(slog.NewTextHandler(&logs, nil))
	})
	body := `{` + daemontest.Target + `,"mode":"requestReply","replyQueue":"DEV.QUEUE.2","count":200,"batch":{"rateLimitPerSec":400}}`
	if r := h.Post("/tests", body, "Idempotency-Key", "rr-1"); r.Status != http.StatusAccepted {
		t.Fatalf("POST /tests: %d %s", r.Status, r.Body)
	}
	var v requestReplyView
	testenv.Eventually(t, 30*time.Second, "the end of test rr-1", func() bool {
		status, _, data := h.Get("/tests/rr-1")
		if status != http.StatusOK {
			t.Fatalf("GET /tests/rr-1: %d %s", status, data)
		}
		v = requestReplyView{}
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("GET /tests/rr-1: %v: %s", err, data)
		}
		return v.Status != "IN_PROGRESS"
	})
	st := v.Result
	if v.Status != "COMPLETED" || st == nil || st.Sent != 200 || st.Received != 200 || st.Lost != 0 ||
		st.Mode != probe.ModeRequestReply || st.ReplyQueue != "DEV.QUEUE.2" || st.Hops == nil || st.Hops.Probes != 200 {
		t.Fatalf("test rr-1: %s %+v; want 200 round trips, all split into hops", v.Status, st)
	}
	hops := st.Hops
	if sum := hops.OutboundMs.Mean + hops.ResponderMs.Mean + hops.ReturnMs.Mean; math.Abs(sum-hops.RoundTripMs.Mean) > 1e-6 {
		t.Errorf("mean hops sum to %.6f ms, the mean round trip is %.6f ms", sum, hops.RoundTripMs.Mean)
	}

	// While a run goes on, its live statistics carry the hops so far and
	// its series each interval's mean hops.
	body = `{` + daemontest.Target + `,"mode":"requestReply","replyQueue":"DEV.QUEUE.2","durationSeconds":30,"batch":{"rateLimitPerSec":100}}`
	if r := h.Post("/tests", body, "Idempotency-Key", "rr-live"); r.Status != http.StatusAccepted {
		t.Fatalf("POST /tests: %d %s", r.Status, r.Body)
	}
	var live struct {
		Status string
		Result *probe.Stats
		Series []struct {
			HopsMs *probe.HopMeans `json:"hopsMs"`
		}
	}
	testenv.Eventually(t, 20*time.Second, "live hops of test rr-live", func() bool {
		_, _, data := h.Get("/tests/rr-live")
		live.Result, live.Series = nil, nil
		if err := json.Unmarshal(data, &live); err != nil {
			t.Fatalf("GET /tests/rr-live: %v: %s", err, data)
		}
		return live.Status == "IN_PROGRESS" && live.Result != nil && live.Result.Hops != nil &&
			slices.ContainsFunc(live.Series, func(p struct {
				HopsMs *probe.HopMeans `json:"hopsMs"`
			}) bool {
				return p.HopsMs != nil
			})
	})
	if r := h.Post("/tests/rr-live/stop", ""); r.Status != http.StatusAccepted {
		t.Fatalf("stop rr-live: %d %s", r.Status, r.Body)
	}
	testenv.Eventually(t, 20*time.Second, "the end of test rr-live", func() bool {
		_, _, data := h.Get("/tests/rr-live")
		return json.Unmarshal(data, &live) == nil && live.Status != "IN_PROGRESS"
	})

	// A worker counts a reply just after putting it: the count may trail
	// the run's end by a moment.
	replied := fmt.Sprintf(`mqprobe_responder_requests_total{outcome="replied",responder="echo"} %d`, 200+live.Result.Received)
	var metrics []byte
	if !testenv.Until(10*time.Second, func() bool {
		_, _, metrics = h.Get("/metrics")
		return bytes.Contains(metrics, []byte(replied)) && bytes.Contains(metrics, []byte(`mqprobe_responder_workers{responder="echo"} 2`))
	}) {
		t.Errorf("/metrics lacks %s or 2 workers:\n%s", replied, metrics)
	}

	// The dead-letter queue is outside targets.inline.queues: no reply goes
	// there, the request is dead-lettered instead.
	conn := daemontest.ConnectQM1(t, h.Backend)
	q, err := conn.OpenQueue(t.Context(), "DEV.QUEUE.1", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Put(t.Context(), &mq.Message{ReplyToQ: "DEV.DEAD.LETTER.QUEUE", Payload: []byte("r")}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	testenv.Eventually(t, 10*time.Second, "the refused request on the dead-letter queue", func() bool {
		return daemontest.QueueDepth(t, h.Backend, "DEV.DEAD.LETTER.QUEUE") == 1
	})

	h.Shutdown()
	if !strings.Contains(logs.String(), `msg="responders stopped" reason="daemon draining"`) {
		t.Errorf("no log line says the responders stopped for the drain:\n%s", logs.String())
	}
}
