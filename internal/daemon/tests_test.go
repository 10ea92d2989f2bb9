package daemon_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

type testView struct {
	Status string `json:"status"`
	Result *struct {
		Sent, Received, Lost, Duplicated int64
		Stopped                          bool
		LatencyMs                        struct{ P50, P99, Max float64 } `json:"latencyMs"`
	} `json:"result"`
}

// getTest reads GET /tests/{id}.
func getTest(t *testing.T, h *daemontest.Harness, id string) testView {
	t.Helper()
	status, _, body := h.Get("/tests/" + id)
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
func awaitTest(t *testing.T, h *daemontest.Harness, id string) testView {
	t.Helper()
	var v testView
	testenv.Eventually(t, 20*time.Second, "the end of test "+id, func() bool {
		v = getTest(t, h, id)
		return v.Status != "IN_PROGRESS"
	})
	return v
}

func startTest(t *testing.T, h *daemontest.Harness, body, key string) daemontest.Response {
	t.Helper()
	return h.Post("/tests", body, "Idempotency-Key", key)
}

func TestProbeRunOverHTTP(t *testing.T) {
	h := daemontest.Start(t)
	body := fmt.Sprintf(`{%s,"count":300,"batch":{"messageSizeBytes":128,"rateLimitPerSec":200},"progressSeconds":1}`, daemontest.Target)
	r := startTest(t, h, body, "probe-1")
	if r.Status != http.StatusAccepted || r.Header.Get("Location") != "/tests/probe-1" {
		t.Fatalf("POST /tests: %d %v %s", r.Status, r.Header, r.Body)
	}
	if v := getTest(t, h, "probe-1"); v.Status != "IN_PROGRESS" {
		t.Errorf("while running: %+v", v)
	}
	v := awaitTest(t, h, "probe-1")
	if v.Status != "COMPLETED" || v.Result.Sent != 300 || v.Result.Received != 300 || v.Result.Lost != 0 || v.Result.Duplicated != 0 || v.Result.LatencyMs.Max <= 0 {
		t.Fatalf("final: %+v %+v", v, v.Result)
	}
	evs := h.Results("probe-1")
	if len(evs) < 2 || evs[0].Type != result.TypeProgress || evs[len(evs)-1].Type != result.TypeCompleted {
		t.Errorf("events: want progress then completed, got %d events", len(evs))
	}
	// The same key replays the finished run.
	replay := startTest(t, h, body, "probe-1")
	if replay.Status != http.StatusOK || replay.Header.Get("Idempotent-Replay") != "true" {
		t.Errorf("replay: %d %s", replay.Status, replay.Body)
	}
	if d := h.Depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("probe messages left on the queue: %d", d)
	}
	_, _, metrics := h.Get("/metrics")
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
	h := daemontest.Start(t)
	h.Backend.Faults().DropNth(50)
	h.Backend.Faults().DuplicateNth(80)
	body := fmt.Sprintf(`{%s,"count":200,"batch":{"rateLimitPerSec":1000}}`, daemontest.Target)
	startTest(t, h, body, "probe-faults")
	v := awaitTest(t, h, "probe-faults")
	if v.Result.Lost != 1 || v.Result.Duplicated != 1 || v.Result.Received != 199 {
		t.Errorf("lost %d duplicated %d received %d, want 1, 1, 199", v.Result.Lost, v.Result.Duplicated, v.Result.Received)
	}
}

func TestProbeStopsAndLimits(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.Tests.MaxConcurrent = 1; s.Cfg.Tests.MaxDuration = time.Minute })
	long := fmt.Sprintf(`{%s,"durationSeconds":30,"batch":{"rateLimitPerSec":200}}`, daemontest.Target)
	if r := startTest(t, h, long, "probe-long"); r.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	over := startTest(t, h, fmt.Sprintf(`{%s,"durationSeconds":5}`, daemontest.Target), "probe-second")
	if over.Status != http.StatusTooManyRequests || over.JSON(t)["code"] != "LIMIT_EXCEEDED" {
		t.Errorf("second test: %d %s", over.Status, over.Body)
	}
	tooLong := startTest(t, h, fmt.Sprintf(`{%s,"durationSeconds":120}`, daemontest.Target), "probe-too-long")
	if tooLong.Status != http.StatusTooManyRequests {
		t.Errorf("over maxDuration: %d %s", tooLong.Status, tooLong.Body)
	}
	testenv.Eventually(t, 10*time.Second, "probe-long sending", func() bool {
		v := getTest(t, h, "probe-long")
		return v.Result != nil && v.Result.Sent > 0
	})
	// STOP_TEST over the bus, as a scheduler would send it.
	h.Submit(`{"operationType":"STOP_TEST","testId":"probe-long"}`, "Idempotency-Key", "stop-1")
	v := awaitTest(t, h, "probe-long")
	if v.Status != "COMPLETED" || !v.Result.Stopped || v.Result.Lost != 0 || v.Result.Sent == 0 || v.Result.Sent != v.Result.Received {
		t.Errorf("stopped run: %+v %+v", v, v.Result)
	}
	if e := h.WaitResults("stop-1", 1)[0]; string(e.Data.Result) != `{"testId":"probe-long","stopped":true}` {
		t.Errorf("STOP_TEST result %s", e.Data.Result)
	}
	// HTTP stop of a run that is not running here.
	if r := h.Post("/tests/probe-long/stop", ""); r.Status != http.StatusNotFound {
		t.Errorf("stop of a finished run: %d", r.Status)
	}
}

// TestStopRightAfterStartFindsTheRun: the 202 of POST /tests promises a run
// that can be stopped, so a stop sent the moment it arrives finds it.
func TestStopRightAfterStartFindsTheRun(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.Tests.MaxConcurrent = 1 })
	long := fmt.Sprintf(`{%s,"durationSeconds":30,"batch":{"rateLimitPerSec":100}}`, daemontest.Target)
	for i := range 20 {
		id := fmt.Sprintf("probe-quick-stop-%d", i)
		if r := startTest(t, h, long, id); r.Status != http.StatusAccepted {
			t.Fatalf("start %s: %d %s", id, r.Status, r.Body)
		}
		if r := h.Post("/tests/"+id+"/stop", ""); r.Status != http.StatusAccepted {
			t.Fatalf("stop sent on %s's 202: %d %s", id, r.Status, r.Body)
		}
		if v := awaitTest(t, h, id); v.Status != "COMPLETED" || !v.Result.Stopped {
			t.Fatalf("%s: %+v %+v, want COMPLETED and stopped", id, v, v.Result)
		}
	}
}
