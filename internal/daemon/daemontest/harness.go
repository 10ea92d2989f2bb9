package daemontest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/result"
)

// Harness is one daemon running in-process on a free loopback port, with
// an embedded queue manager and a store the test can watch and break.
type Harness struct {
	// Base is the daemon's HTTP address, http://127.0.0.1:port.
	Base string
	// Backend is the embedded queue manager the daemon runs on, unless a
	// Start modifier set another kind of backend (then it is the unused
	// default one).
	Backend *embedded.Backend
	// Store wraps the daemon's idempotency store, unless a Start modifier
	// set a store of another kind (then it wraps the unused default one).
	Store *storetest.Counting
	t     testing.TB
	stop  context.CancelFunc
	done  chan error
}

// Setup is what Start builds a daemon from; its modifiers change it.
type Setup struct {
	Cfg  *config.Config
	Opts daemon.Options
}

// NewEmbeddedBackend is a fresh embedded queue manager with the default
// queues; it fails t if it cannot be made.
func NewEmbeddedBackend(t testing.TB) *embedded.Backend {
	t.Helper()
	backend, err := embedded.New(embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return backend
}

// Start runs a daemon on 127.0.0.1:0 — embedded mode, a memory store
// counted by Harness.Store, a fresh embedded backend, a 50 ms nack delay,
// discarded logs — as changed by mods in order, and returns once
// /health/ready answers 200 (failing t after 5 s). A cleanup shuts it down.
func Start(t testing.TB, mods ...func(*Setup)) *Harness {
	t.Helper()
	cfg := config.Default()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Idempotency.Store = config.StoreMemory
	cfg.Bus.RetryDelay = 50 * time.Millisecond
	cfg.HTTP.ShutdownTimeout = 5 * time.Second
	backend := NewEmbeddedBackend(t)
	s := &Setup{Cfg: cfg, Opts: daemon.Options{Version: "test", Backend: backend,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	h := &Harness{t: t, Backend: backend, Store: &storetest.Counting{Store: memory.New()}}
	s.Opts.Store = h.Store
	for _, m := range mods {
		m(s)
	}
	if b, ok := s.Opts.Backend.(*embedded.Backend); ok {
		h.Backend = b
	}
	if c, ok := s.Opts.Store.(*storetest.Counting); ok {
		h.Store = c
	}
	d, err := daemon.New(context.Background(), s.Cfg, s.Opts)
	if err != nil {
		t.Fatalf("daemon.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.Base, h.stop, h.done = "http://"+d.Addr(), cancel, make(chan error, 1)
	go func() { h.done <- d.Run(ctx) }()
	t.Cleanup(h.Shutdown)
	// Generous: in aws mode readiness waits for the resource checks, which
	// a loaded machine's emulators can take seconds to answer.
	const readyWithin = 30 * time.Second
	deadline := time.Now().Add(readyWithin)
	for {
		status, _, body := h.Get("/health/ready")
		if status == http.StatusOK {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not ready within %s: %d %s", readyWithin, status, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Shutdown stops the daemon and waits for Run to return, failing the test
// if it returned an error. Only the first call does anything.
func (h *Harness) Shutdown() {
	if h.stop == nil {
		return
	}
	h.stop()
	h.stop = nil
	if err := <-h.done; err != nil {
		h.t.Errorf("daemon.Run: %v", err)
	}
}

// Response is an HTTP answer, read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object, failing t if it is not one.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not JSON (%v): %s", err, r.Body)
	}
	return m
}

// Post sends body as application/json to path with headers (name, value
// pairs) and returns the answer; it fails the test if there is none.
func (h *Harness) Post(path, body string, headers ...string) Response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.Base+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return Response{resp.StatusCode, resp.Header, data}
}

// Get fetches path; status 0 (and no header or body) means no answer.
func (h *Harness) Get(path string) (int, http.Header, []byte) {
	resp, err := http.Get(h.Base + path)
	if err != nil {
		return 0, nil, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data
}

// Target is the JSON member naming QM1's DEV.QUEUE.1, for command bodies.
const Target = `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}`

// Depth reads the depth of QM1's queue through the API itself, failing the
// test unless it answers 200.
func (h *Harness) Depth(queue string) int {
	h.t.Helper()
	r := h.Post("/queue/depth", fmt.Sprintf(`{"target":{"queueManager":"QM1","queue":%q}}`, queue))
	if r.Status != http.StatusOK {
		h.t.Fatalf("depth: %d %s", r.Status, r.Body)
	}
	return int(r.JSON(h.t)["result"].(map[string]any)["currentDepth"].(float64))
}

// Results lists the recorded result events of key (GET /results), oldest
// first.
func (h *Harness) Results(key string) []result.Event {
	h.t.Helper()
	status, _, body := h.Get("/results?limit=1000&idempotencyKey=" + url.QueryEscape(key))
	if status != http.StatusOK {
		h.t.Fatalf("results: %d %s", status, body)
	}
	var out struct{ Results []result.Event }
	if err := json.Unmarshal(body, &out); err != nil {
		h.t.Fatal(err)
	}
	for i, j := 0, len(out.Results)-1; i < j; i, j = i+1, j-1 {
		out.Results[i], out.Results[j] = out.Results[j], out.Results[i]
	}
	return out.Results
}

// WaitResults waits until key has at least n result events, and returns
// them; it fails the test after 10 s.
func (h *Harness) WaitResults(key string, n int) []result.Event {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs := h.Results(key)
		if len(evs) >= n {
			return evs
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("key %s: %d result events after 10s, want %d: %+v", key, len(evs), n, evs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Submit puts a raw command on the in-process bus (POST /commands) and
// returns its message id; anything but 202 fails the test.
func (h *Harness) Submit(body string, headers ...string) string {
	h.t.Helper()
	r := h.Post("/commands", body, headers...)
	if r.Status != http.StatusAccepted {
		h.t.Fatalf("submit: %d %s", r.Status, r.Body)
	}
	return r.JSON(h.t)["messageId"].(string)
}

// Summary counts events by status, with "/replay" and "/<error code>"
// appended where they apply: {"COMPLETED": 1, "COMPLETED/replay": 1}.
func Summary(evs []result.Event) map[string]int {
	out := map[string]int{}
	for _, e := range evs {
		k := string(e.Data.Status)
		if e.Data.Replay {
			k += "/replay"
		}
		if e.Data.Error != nil {
			k += "/" + e.Data.Error.Code
		}
		out[k]++
	}
	return out
}

// ProduceBody is a PRODUCE of count 2 KiB messages on QM1/DEV.QUEUE.1, with
// extra (`,"member":…`) appended to the command.
func ProduceBody(count int, extra string) string {
	return fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048}%s}`, Target, count, extra)
}
