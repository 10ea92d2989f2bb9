package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// api assembles the HTTP API's configuration over a real executor, an
// in-memory store and the embedded queue manager.
func api(tb testing.TB) httpapi.Config {
	tb.Helper()
	return apiOver(tb, memory.New())
}

// apiOver is api over store, which the test may also claim commands in.
func apiOver(tb testing.TB, store idempotency.Store) httpapi.Config {
	tb.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine, err := idempotency.New(store, idempotency.Config{Lease: time.Second}, log)
	if err != nil {
		tb.Fatal(err)
	}
	pool, err := mq.NewPool(embedded.NewDefault(), mq.PoolConfig{MaxConnsPerTarget: 4, MaxIdlePerTarget: 2, IdleTimeout: time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pool.Close() })
	decoder, err := command.NewDecoder(command.DecoderConfig{MaxBytes: 262144, MissingKey: command.MissingKeyConfig{Bus: command.MissingKeyMessageID, HTTP: command.MissingKeyGenerate}})
	if err != nil {
		tb.Fatal(err)
	}
	ops, err := handlers.New(handlers.Config{Tests: handlers.TestLimits{MaxConcurrent: 2, MaxDuration: 2 * time.Second}})
	if err != nil {
		tb.Fatal(err)
	}
	recent := result.NewRecent(100, 1<<20)
	x, err := executor.New(executor.Config{Source: "mqprobe/fuzz", ReplayConfig: executor.ReplayConfig{Replay: executor.ReplayRepublish}},
		executor.Deps{Decoder: decoder, Engine: engine, Handlers: ops.Handlers, Admit: ops.Admit, Log: log, Publisher: recent, Conns: pool,
			Targets: targets.NewResolver(targets.Config{AllowInline: true, Profiles: map[string]targets.Profile{"p": {QueueManager: "QM1", Queue: "DEV.QUEUE.1"}}})})
	if err != nil {
		tb.Fatal(err)
	}
	return httpapi.Config{Executor: x, Recent: recent, OpenAPI: []byte(`{}`), Settings: httpapi.Settings{MaxBodyBytes: 300000, InProgressWait: 50 * time.Millisecond},
		Tests: ops.Tests, Stored: engine, Submit: func(context.Context, []byte, map[string]string) (string, error) { return "m-1", nil },
		Ready: map[string]httpapi.Check{}}
}

// FuzzHTTPAPI sends arbitrary requests to every route: the API never
// panics, never answers 500, and every answer is JSON — a result, or an
// RFC 9457 problem whose status is the response's.
func FuzzHTTPAPI(f *testing.F) {
	routes := []string{"/messages/produce", "/messages/consume", "/queue/depth", "/connections/test", "/commands", "/tests",
		"/tests/x", "/tests/x/stop", "/results", "/status", "/health/ready", "/nowhere"}
	for i, body := range []string{
		`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":3,"messageSizeBytes":16}}`,
		`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"maxMessages":2,"waitSeconds":0}`,
		`{"targetRef":"p"}`, `{"targetRef":"p","queue":"DEV.QUEUE.2"}`,
		`{"targetRef":"p","count":5,"batch":{"messageSizeBytes":8,"rateLimitPerSec":1000}}`,
		`{"operationType":"STOP_TEST","testId":"x"}`,
		`{"target":{"queueManager":"NOPE","queue":"Q"}}`, `{`, `[]`, `null`, "",
	} {
		f.Add(uint8(i), body, "key-"+string(rune('a'+i)), i%3 == 0)
	}
	cfg := api(f)
	f.Fuzz(func(t *testing.T, route uint8, body, key string, get bool) {
		path := routes[int(route)%len(routes)]
		method := http.MethodPost
		if get {
			method = http.MethodGet
		}
		// Commands may wait (CONSUME waits 20 s by default) or run long, and
		// outlive their caller by design: the work context, which a drain
		// cancels, ends them soon.
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		defer cancel()
		cfg.WorkContext = ctx
		h := httpapi.Handler(cfg)
		req := httptest.NewRequestWithContext(ctx, method, "http://mqprobe"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" && strings.IndexFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }) < 0 {
			req.Header.Set("Idempotency-Key", key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		if res.StatusCode >= 500 && res.StatusCode != http.StatusBadGateway && res.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("%s %s %q: %d %s", method, path, body, res.StatusCode, rec.Body)
		}
		if rec.Body.Len() == 0 && res.StatusCode != http.StatusNoContent && res.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("%s %s %q: %d with an empty body", method, path, body, res.StatusCode)
		}
		if rec.Body.Len() == 0 {
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s %s %q: %d body is not a JSON object: %v: %s", method, path, body, res.StatusCode, err, rec.Body)
		}
		if strings.Contains(res.Header.Get("Content-Type"), "problem+json") {
			if s, ok := doc["status"].(float64); !ok || int(s) != res.StatusCode || doc["title"] == nil {
				t.Fatalf("%s %s %q: problem %s under status %d", method, path, body, rec.Body, res.StatusCode)
			}
		}
		if bytes.Contains(rec.Body.Bytes(), []byte("goroutine ")) {
			t.Fatalf("a stack trace in the answer: %s", rec.Body)
		}
	})
}
