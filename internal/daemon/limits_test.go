package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// holdConsumes starts n CONSUMEs that wait on an empty queue for up to a
// minute, and returns once the daemon reports them executing.
func holdConsumes(t *testing.T, h *daemontest.Harness, n int, queue string) {
	t.Helper()
	for i := range n {
		go func() {
			body := fmt.Sprintf(`{"target":{"queueManager":"QM1","queue":%q},"maxMessages":1,"waitSeconds":60}`, queue)
			req, _ := http.NewRequest(http.MethodPost, h.Base+"/messages/consume", strings.NewReader(body))
			req.Header.Set("Idempotency-Key", fmt.Sprintf("hold-%s-%d", queue, i))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	testenv.Eventually(t, 5*time.Second, fmt.Sprintf("%d CONSUMEs executing", n), func() bool {
		return load(t, h)["commandsExecuting"] >= float64(n)
	})
}

// load is GET /status's "load".
func load(t *testing.T, h *daemontest.Harness) map[string]float64 {
	t.Helper()
	_, _, body := h.Get("/status")
	var s struct{ Load map[string]any }
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatalf("status: %v: %s", err, body)
	}
	out := map[string]float64{}
	for k, v := range s.Load {
		if f, ok := v.(float64); ok {
			out[k] = f
		}
	}
	return out
}

// TestAdmissionBoundsCommandsExecutingAtOnce: past
// limits.maxConcurrentCommands a command waits limits.admissionWait, then
// is answered 503 with Retry-After and leaves no record; readiness, /status
// and /metrics show the saturation; a replay is still answered.
func TestAdmissionBoundsCommandsExecutingAtOnce(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Limits.MaxConcurrentCommands = 2
		s.Cfg.Limits.AdmissionWait = 300 * time.Millisecond
		s.Cfg.HTTP.ShutdownTimeout = time.Second
	})
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Idempotency-Key", "done-before"); r.Status != http.StatusOK {
		t.Fatalf("depth: %d %s", r.Status, r.Body)
	}
	holdConsumes(t, h, 2, "DEV.QUEUE.2")

	begins := h.Store.Begins.Load()
	start := time.Now()
	r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Idempotency-Key", "refused-for-load")
	waited := time.Since(start)
	p := r.JSON(t)
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || p["type"] != "https://mqprobe.dev/problems/busy" ||
		!strings.Contains(p["detail"].(string), "limits.maxConcurrentCommands") {
		t.Fatalf("saturated: %d %v %s; want 503 busy with Retry-After naming limits.maxConcurrentCommands", r.Status, r.Header, r.Body)
	}
	if waited < 300*time.Millisecond {
		t.Errorf("refused after %s, before limits.admissionWait", waited)
	}
	if n := h.Store.Begins.Load() - begins; n != 0 {
		t.Errorf("a command refused for load made %d claims; want none", n)
	}
	if evs := h.Results("refused-for-load"); len(evs) != 0 {
		t.Errorf("a command refused for load published %d events; it is undecided", len(evs))
	}

	replay := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Idempotency-Key", "done-before")
	if replay.Status != http.StatusOK || replay.Header.Get("Idempotent-Replay") != "true" {
		t.Errorf("replay while saturated: %d %s; want the recorded answer", replay.Status, replay.Body)
	}

	status, _, body := h.Get("/health/ready")
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "2 of 2 commands executing") {
		t.Errorf("ready while saturated: %d %s; want 503 naming the saturation", status, body)
	}
	if l := load(t, h); l["commandsExecuting"] != 2 || l["maxConcurrentCommands"] != 2 {
		t.Errorf("status load %v; want 2 of 2 executing", l)
	}
	_, _, metrics := h.Get("/metrics")
	if !strings.Contains(string(metrics), "mqprobe_commands_in_flight 2") {
		t.Errorf("metrics lack mqprobe_commands_in_flight 2:\n%s", grepLines(string(metrics), "in_flight"))
	}
}

func grepLines(s, substr string) string {
	var out []string
	for line := range strings.Lines(s) {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// TestPayloadBudget: a command holding more payload than
// limits.maxInFlightBytes allows for all commands is rejected, naming the
// setting; one that fits only later waits, then is refused for load.
func TestPayloadBudget(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Limits.MaxInFlightBytes = 1 << 20
		s.Cfg.Consume.MaxBytes = 64 << 10
		s.Cfg.Limits.AdmissionWait = 200 * time.Millisecond
		s.Cfg.MQ.Pool.MaxConnsPerTarget = 20
		s.Cfg.HTTP.ShutdownTimeout = time.Second
	})
	r := h.Post("/messages/produce", `{`+daemontest.Target+`,"batch":{"count":1,"messageSizeBytes":2097152}}`, "Idempotency-Key", "too-large")
	p := r.JSON(t)
	if r.Status != http.StatusUnprocessableEntity || p["code"] != "LIMIT_EXCEEDED" || !strings.Contains(p["detail"].(string), "limits.maxInFlightBytes") {
		t.Fatalf("2 MiB body under a 1 MiB budget: %d %s; want 422 LIMIT_EXCEEDED naming limits.maxInFlightBytes", r.Status, r.Body)
	}
	if got := daemontest.Summary(h.Results("too-large")); got["REJECTED/LIMIT_EXCEEDED"] != 1 {
		t.Errorf("events %v; want one REJECTED/LIMIT_EXCEEDED", got)
	}

	// 16 CONSUMEs hold their 64 KiB capture each: the budget is spent.
	holdConsumes(t, h, 16, "DEV.QUEUE.2")
	if l := load(t, h); l["inFlightBytes"] != 1<<20 {
		t.Fatalf("load %v; want the whole 1 MiB budget in flight", l)
	}
	r = h.Post("/messages/produce", `{`+daemontest.Target+`,"batch":{"count":1,"messageSizeBytes":1024}}`, "Idempotency-Key", "no-room")
	p = r.JSON(t)
	if r.Status != http.StatusServiceUnavailable || !strings.Contains(p["detail"].(string), "limits.maxInFlightBytes") {
		t.Fatalf("over budget: %d %s; want 503 naming limits.maxInFlightBytes", r.Status, r.Body)
	}
	if h.Depth("DEV.QUEUE.1") != 0 {
		t.Error("a PRODUCE refused for load put a message")
	}
}

// TestCommandQueueIsBounded: POST /commands holds at most
// limits.commandQueue commands queued or executing; beyond it, 429 with
// Retry-After, and room comes back as commands finish.
func TestCommandQueueIsBounded(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Limits.CommandQueue = 3
		s.Cfg.HTTP.ShutdownTimeout = time.Second
	})
	for i := range 3 {
		h.Submit(fmt.Sprintf(`{"operationType":"CONSUME",%s,"maxMessages":1,"waitSeconds":30}`, strings.Replace(daemontest.Target, "DEV.QUEUE.1", "DEV.QUEUE.2", 1)),
			"Idempotency-Key", fmt.Sprintf("queued-%d", i))
	}
	r := h.Post("/commands", `{"operationType":"DEPTH",`+daemontest.Target+`}`, "Idempotency-Key", "over-the-queue")
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), "limits.commandQueue") {
		t.Fatalf("fourth submit: %d %v %s; want 429 with Retry-After naming limits.commandQueue", r.Status, r.Header, r.Body)
	}
	if l := load(t, h); l["commandsQueued"] != 3 {
		t.Errorf("load %v; want 3 commands queued", l)
	}
	// A message ends one CONSUME: its place frees.
	if r := h.Post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":1,"messageSizeBytes":10}}`); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	testenv.Eventually(t, 5*time.Second, "2 commands queued once a CONSUME finished", func() bool {
		return load(t, h)["commandsQueued"] == 2
	})
	h.Submit(`{"operationType":"DEPTH",`+daemontest.Target+`}`, "Idempotency-Key", "room-again")
	h.WaitResults("room-again", 1)
}

// TestPoolLockUpIsBounded: paced PRODUCEs whose callers hung up hold every
// pooled connection to QM1; another command on QM1 is answered within
// mq.pool.maxWait — 503 naming the target and the limit — and its claim is
// given back, instead of waiting as long as they run.
func TestPoolLockUpIsBounded(t *testing.T) {
	var counter *mqtest.CountingBackend
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		counter = &mqtest.CountingBackend{Backend: s.Opts.Backend}
		s.Opts.Backend = counter
		s.Cfg.MQ.Pool.MaxWait = 500 * time.Millisecond
		s.Cfg.HTTP.ShutdownTimeout = time.Second
	})
	var hungUp sync.WaitGroup
	for i := range 10 {
		hungUp.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			body := `{` + daemontest.Target + `,"batch":{"count":10000000,"messageSizeBytes":10,"rateLimitPerSec":1}}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.Base+"/messages/produce", strings.NewReader(body))
			req.Header.Set("Idempotency-Key", fmt.Sprintf("paced-%d", i))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	hungUp.Wait()
	testenv.Eventually(t, 5*time.Second, "8 connections opened by the paced PRODUCEs", func() bool {
		return counter.Connects.Load() >= 8
	})

	start := time.Now()
	r := h.Post("/queue/depth", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"}}`, "Idempotency-Key", "depth-behind-paced")
	took := time.Since(start)
	detail, _ := r.JSON(t)["detail"].(string)
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" ||
		!strings.Contains(detail, "QM1") || !strings.Contains(detail, "mq.pool.maxConnsPerTarget") {
		t.Fatalf("DEPTH behind a full pool: %d %s; want 503 naming QM1 and mq.pool.maxConnsPerTarget", r.Status, r.Body)
	}
	if took > 3*time.Second {
		t.Errorf("answered after %s; want about mq.pool.maxWait (500ms)", took)
	}
	// The claim was given back: the same key runs once a connection frees.
	rec, ok, err := h.Store.Get(context.Background(), "DEPTH#depth-behind-paced")
	if err != nil || (ok && rec.LeaseExpiresAt.After(time.Now())) {
		t.Errorf("record after the refusal: %+v %v %v; want no live claim", rec, ok, err)
	}
}

// fillResults makes GET /results hold about n×170 KiB of CONSUME result
// events (32 captured 4 KiB messages each) and returns the bytes of the
// CONSUMEs' replies, which those events hold.
func fillResults(t *testing.T, h *daemontest.Harness, n int) (bodyBytes int) {
	t.Helper()
	if r := h.Post("/messages/produce", `{`+daemontest.Target+fmt.Sprintf(`,"batch":{"count":%d,"messageSizeBytes":4096}}`, 32*n)); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	for range n {
		r := h.Post("/messages/consume", `{`+daemontest.Target+`,"maxMessages":32,"waitSeconds":0}`)
		if r.Status != http.StatusOK {
			t.Fatalf("consume: %d %s", r.Status, r.Body)
		}
		bodyBytes += len(r.Body)
	}
	return bodyBytes
}

// TestRepliesHaveAWriteDeadline: a client that never reads its reply is cut
// off http.writeTimeout after the reply began, while a command that runs
// longer than writeTimeout still gets its answer.
func TestRepliesHaveAWriteDeadline(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.HTTP.WriteTimeout = time.Second
		s.Cfg.Results.MaxReplyBytes = 64 << 20
	})
	// The consumes' own replies measure what GET /results holds: a GET of
	// it is itself under the 1 s write deadline, which a loaded machine
	// can cut short.
	full := fillResults(t, h, 80)
	if full < 8<<20 {
		t.Fatalf("the CONSUME results hold %d bytes; the test needs a reply larger than socket buffers", full)
	}

	c, err := (&net.Dialer{Control: daemontest.SmallReceiveBuffer}).Dial("tcp", strings.TrimPrefix(h.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /results?limit=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	time.Sleep(3 * time.Second)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.Copy(io.Discard, c)
	if got >= int64(full)/2 {
		t.Errorf("a reader that stalled past writeTimeout still got %d of about %d bytes; want the reply cut off", got, full)
	}

	start := time.Now()
	r := h.Post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":3,"messageSizeBytes":10,"rateLimitPerSec":1}}`)
	if r.Status != http.StatusCreated {
		t.Errorf("a PRODUCE running %s (over writeTimeout) answered %d %s; want 201", time.Since(start), r.Status, r.Body)
	}
}

// TestResultsReplyIsBounded: one GET /results reply carries at most
// results.maxReplyBytes of events and says it left some out.
func TestResultsReplyIsBounded(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Results.MaxReplyBytes = 1 << 20
	})
	fillResults(t, h, 20)
	status, _, body := h.Get("/results?limit=1000")
	var reply struct {
		Results   []json.RawMessage
		Truncated bool
	}
	if err := json.Unmarshal(body, &reply); status != http.StatusOK || err != nil {
		t.Fatalf("GET /results: %d %v", status, err)
	}
	if !reply.Truncated || len(body) > 1<<20+1024 || len(reply.Results) == 0 || len(reply.Results) >= 21 {
		t.Errorf("reply of %d bytes with %d events, truncated %v; want at most 1 MiB, some events, truncated", len(body), len(reply.Results), reply.Truncated)
	}
	_, _, small := h.Get("/results?limit=2")
	if err := json.Unmarshal(small, &reply); err != nil || reply.Truncated || len(reply.Results) != 2 {
		t.Errorf("limit=2: %d events, truncated %v (%v); want 2, not truncated", len(reply.Results), reply.Truncated, err)
	}
}
