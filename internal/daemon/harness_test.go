package daemon_test

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

// harness is one daemon running in-process on a free loopback port, with
// an embedded queue manager and a store the test can watch and break.
type harness struct {
	t       testing.TB
	base    string
	backend *embedded.Backend
	store   *storetest.Counting
	stop    context.CancelFunc
	done    chan error
}

type setup struct {
	cfg  *config.Config
	opts daemon.Options
}

func start(t testing.TB, mods ...func(*setup)) *harness {
	t.Helper()
	cfg := config.Default()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Idempotency.Store = config.StoreMemory
	cfg.Bus.NackDelay = 50 * time.Millisecond
	cfg.HTTP.ShutdownTimeout = 5 * time.Second
	backend, err := embedded.New(embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := &setup{cfg: cfg, opts: daemon.Options{Version: "test", Backend: backend,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	h := &harness{t: t, backend: backend, store: &storetest.Counting{Store: memory.New()}}
	s.opts.Store = h.store
	for _, m := range mods {
		m(s)
	}
	if b, ok := s.opts.Backend.(*embedded.Backend); ok {
		h.backend = b
	}
	if c, ok := s.opts.Store.(*storetest.Counting); ok {
		h.store = c
	}
	d, err := daemon.New(context.Background(), s.cfg, s.opts)
	if err != nil {
		t.Fatalf("daemon.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.base, h.stop, h.done = "http://"+d.Addr(), cancel, make(chan error, 1)
	go func() { h.done <- d.Run(ctx) }()
	t.Cleanup(h.shutdown)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if status, _, _ := h.get("/health/ready"); status == http.StatusOK {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatal("daemon not ready within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) shutdown() {
	if h.stop == nil {
		return
	}
	h.stop()
	h.stop = nil
	if err := <-h.done; err != nil {
		h.t.Errorf("daemon.Run: %v", err)
	}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not JSON (%v): %s", err, r.body)
	}
	return m
}

func (h *harness) post(path, body string, headers ...string) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.base+path, strings.NewReader(body))
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
	return response{resp.StatusCode, resp.Header, data}
}

func (h *harness) get(path string) (int, http.Header, []byte) {
	resp, err := http.Get(h.base + path)
	if err != nil {
		return 0, nil, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data
}

const target = `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}`

func produceBody(count int, extra string) string {
	return fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048}%s}`, target, count, extra)
}

// depth reads DEV.QUEUE.1's depth through the API itself.
func (h *harness) depth(queue string) int {
	h.t.Helper()
	r := h.post("/queue/depth", fmt.Sprintf(`{"target":{"queueManager":"QM1","queue":%q}}`, queue))
	if r.status != http.StatusOK {
		h.t.Fatalf("depth: %d %s", r.status, r.body)
	}
	return int(r.json(h.t)["result"].(map[string]any)["currentDepth"].(float64))
}

// results lists the recorded result events of key, oldest first.
func (h *harness) results(key string) []result.Event {
	h.t.Helper()
	status, _, body := h.get("/results?limit=1000&idempotencyKey=" + url.QueryEscape(key))
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

// waitResults waits until key has n result events, and returns them.
func (h *harness) waitResults(key string, n int) []result.Event {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs := h.results(key)
		if len(evs) >= n {
			return evs
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("key %s: %d result events after 10s, want %d: %+v", key, len(evs), n, evs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// submit puts a raw command on the in-process bus.
func (h *harness) submit(body string, headers ...string) string {
	h.t.Helper()
	r := h.post("/commands", body, headers...)
	if r.status != http.StatusAccepted {
		h.t.Fatalf("submit: %d %s", r.status, r.body)
	}
	return r.json(h.t)["messageId"].(string)
}

// summary counts events by status, with "/replay" and "/<error code>"
// appended where they apply: {"COMPLETED": 1, "COMPLETED/replay": 1}.
func summary(evs []result.Event) map[string]int {
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
