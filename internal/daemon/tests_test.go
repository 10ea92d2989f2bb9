package daemon_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/result"
)

type testView struct {
	Status string `json:"status"`
	Result *struct {
		Sent, Received, Lost, Duplicated int64
		Stopped                          bool
		LatencyMs                        struct{ P50, P99, Max float64 } `json:"latencyMs"`
	} `json:"result"`
}

func (h *harness) testView(t *testing.T, id string) testView {
	t.Helper()
	status, _, body := h.get("/tests/" + id)
	if status != http.StatusOK {
		t.Fatalf("GET /tests/%s: %d %s", id, status, body)
	}
	var v testView
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// awaitTest polls GET /tests/{id} until the run ends.
func (h *harness) awaitTest(t *testing.T, id string) testView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if v := h.testView(t, id); v.Status != "IN_PROGRESS" {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("test %s still running after 20s", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func startTest(t *testing.T, h *harness, body, key string) response {
	t.Helper()
	return h.post("/tests", body, "Idempotency-Key", key)
}

func TestProbeRunOverHTTP(t *testing.T) {
	h := start(t)
	body := fmt.Sprintf(`{%s,"count":300,"batch":{"messageSizeBytes":128,"rateLimitPerSec":200},"progressSeconds":1}`, target)
	r := startTest(t, h, body, "probe-1")
	if r.status != http.StatusAccepted || r.header.Get("Location") != "/tests/probe-1" {
		t.Fatalf("POST /tests: %d %v %s", r.status, r.header, r.body)
	}
	if v := h.testView(t, "probe-1"); v.Status != "IN_PROGRESS" {
		t.Errorf("while running: %+v", v)
	}
	v := h.awaitTest(t, "probe-1")
	if v.Status != "COMPLETED" || v.Result.Sent != 300 || v.Result.Received != 300 || v.Result.Lost != 0 || v.Result.Duplicated != 0 || v.Result.LatencyMs.Max <= 0 {
		t.Fatalf("final: %+v %+v", v, v.Result)
	}
	evs := h.results("probe-1")
	if len(evs) < 2 || evs[0].Type != result.TypeProgress || evs[len(evs)-1].Type != result.TypeCompleted {
		t.Errorf("events: want progress then completed, got %d events", len(evs))
	}
	// The same key replays the finished run.
	replay := startTest(t, h, body, "probe-1")
	if replay.status != http.StatusOK || replay.header.Get("Idempotent-Replay") != "true" {
		t.Errorf("replay: %d %s", replay.status, replay.body)
	}
	if d := h.depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("probe messages left on the queue: %d", d)
	}
	_, _, metrics := h.get("/metrics")
	for _, want := range []string{
		`mqprobe_probe_success{queue="DEV.QUEUE.1",queue_manager="QM1"} 1`,
		`mqprobe_probe_round_trip_seconds_count{queue="DEV.QUEUE.1",queue_manager="QM1"} 300`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestProbeDetectsInjectedLossAndDuplication(t *testing.T) {
	h := start(t)
	h.backend.Faults().DropNth(50)
	h.backend.Faults().DuplicateNth(80)
	body := fmt.Sprintf(`{%s,"count":200,"batch":{"rateLimitPerSec":1000}}`, target)
	startTest(t, h, body, "probe-faults")
	v := h.awaitTest(t, "probe-faults")
	if v.Result.Lost != 1 || v.Result.Duplicated != 1 || v.Result.Received != 199 {
		t.Errorf("lost %d duplicated %d received %d, want 1, 1, 199", v.Result.Lost, v.Result.Duplicated, v.Result.Received)
	}
}

func TestProbeStopsAndLimits(t *testing.T) {
	h := start(t, func(s *setup) { s.cfg.Tests.MaxConcurrent = 1; s.cfg.Tests.MaxDuration = time.Minute })
	long := fmt.Sprintf(`{%s,"durationSeconds":30,"batch":{"rateLimitPerSec":200}}`, target)
	if r := startTest(t, h, long, "probe-long"); r.status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.status, r.body)
	}
	over := startTest(t, h, fmt.Sprintf(`{%s,"durationSeconds":5}`, target), "probe-second")
	if over.status != http.StatusTooManyRequests || over.json(t)["code"] != "LIMIT_EXCEEDED" {
		t.Errorf("second test: %d %s", over.status, over.body)
	}
	tooLong := startTest(t, h, fmt.Sprintf(`{%s,"durationSeconds":120}`, target), "probe-too-long")
	if tooLong.status != http.StatusTooManyRequests {
		t.Errorf("over maxDuration: %d %s", tooLong.status, tooLong.body)
	}
	time.Sleep(300 * time.Millisecond)
	// STOP_TEST over the bus, as a scheduler would send it.
	h.submit(`{"operationType":"STOP_TEST","testId":"probe-long"}`, "Idempotency-Key", "stop-1")
	v := h.awaitTest(t, "probe-long")
	if v.Status != "COMPLETED" || !v.Result.Stopped || v.Result.Lost != 0 || v.Result.Sent == 0 || v.Result.Sent != v.Result.Received {
		t.Errorf("stopped run: %+v %+v", v, v.Result)
	}
	if e := h.waitResults("stop-1", 1)[0]; string(e.Data.Result) != `{"testId":"probe-long","stopped":true}` {
		t.Errorf("STOP_TEST result %s", e.Data.Result)
	}
	// HTTP stop of a run that is not running here.
	if r := h.post("/tests/probe-long/stop", ""); r.status != http.StatusNotFound {
		t.Errorf("stop of a finished run: %d", r.status)
	}
}
