package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestReadmeWalkthrough is the README's example: produce with a key, read
// the depth, repeat and get a replay with the depth unchanged, consume,
// and reuse the key for another body.
func TestReadmeWalkthrough(t *testing.T) {
	h := start(t)
	first := h.post("/messages/produce", produceBody(1000, ""), "Idempotency-Key", "order-42")
	if first.status != http.StatusCreated || first.header.Get("Idempotent-Replay") != "" {
		t.Fatalf("produce: %d replay=%q %s", first.status, first.header.Get("Idempotent-Replay"), first.body)
	}
	res := first.json(t)["result"].(map[string]any)
	if res["enqueued"].(float64) != 1000 || res["transactions"].(float64) != 10 || res["bytes"].(float64) != 2048000 {
		t.Errorf("produce result %v", res)
	}
	if d := h.depth("DEV.QUEUE.1"); d != 1000 {
		t.Fatalf("depth %d, want 1000", d)
	}
	again := h.post("/messages/produce", produceBody(1000, ""), "Idempotency-Key", "order-42")
	if again.status != http.StatusCreated || again.header.Get("Idempotent-Replay") != "true" || string(again.body) != string(first.body) {
		t.Fatalf("repeat: %d replay=%q, body equal=%v", again.status, again.header.Get("Idempotent-Replay"), string(again.body) == string(first.body))
	}
	if d := h.depth("DEV.QUEUE.1"); d != 1000 {
		t.Fatalf("depth after replay %d, want 1000", d)
	}
	consumed := h.post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":10,"waitSeconds":1}`, target))
	if consumed.status != http.StatusOK || consumed.json(t)["result"].(map[string]any)["received"].(float64) != 10 {
		t.Fatalf("consume: %d %s", consumed.status, consumed.body)
	}
	conflict := h.post("/messages/produce", produceBody(5, ""), "Idempotency-Key", "order-42")
	p := conflict.json(t)
	if conflict.status != http.StatusConflict || p["title"] != "Idempotency key reused with different request" ||
		!strings.HasPrefix(conflict.header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("conflict: %d %s", conflict.status, conflict.body)
	}
	if d := h.depth("DEV.QUEUE.1"); d != 990 {
		t.Fatalf("depth %d, want 990", d)
	}
}

// TestParallelIdenticalRequestsRunOnce: 50 copies of one command at once run
// it once and all answer the same body.
func TestParallelIdenticalRequestsRunOnce(t *testing.T) {
	h := start(t)
	var wg sync.WaitGroup
	responses := make([]response, 50)
	for i := range responses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			responses[i] = h.post("/messages/produce", produceBody(500, ""), "Idempotency-Key", "parallel-1")
		}()
	}
	wg.Wait()
	replays := 0
	for i, r := range responses {
		if r.status != http.StatusCreated || string(r.body) != string(responses[0].body) {
			t.Fatalf("response %d: %d %s\nfirst: %s", i, r.status, r.body, responses[0].body)
		}
		if r.header.Get("Idempotent-Replay") == "true" {
			replays++
		}
	}
	if replays != 49 {
		t.Errorf("%d replays, want 49", replays)
	}
	if d := h.depth("DEV.QUEUE.1"); d != 500 {
		t.Fatalf("depth %d, want exactly 500", d)
	}
}

func TestProduceThenConsumeInPriorityOrder(t *testing.T) {
	h := start(t)
	for i, prio := range []int{1, 8, 4} {
		body := fmt.Sprintf(`{%s,"batch":{"count":3,"messageSizeBytes":16},"mqProps":{"priority":%d,"persistence":"persistent","correlIdMode":"echoMsgId"},"headers":{"origin":"test"}}`, target, prio)
		if r := h.post("/messages/produce", body, "Idempotency-Key", fmt.Sprint("prio-", i)); r.status != http.StatusCreated {
			t.Fatalf("produce: %d %s", r.status, r.body)
		}
	}
	r := h.post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":20,"waitSeconds":0}`, target))
	res := r.json(t)["result"].(map[string]any)
	var prios []int
	for _, m := range res["messages"].([]any) {
		msg := m.(map[string]any)
		prios = append(prios, int(msg["priority"].(float64)))
		if msg["persistence"] != "persistent" || msg["msgIdBase64"] != msg["correlIdBase64"] {
			t.Errorf("message fields %v", msg)
		}
	}
	if fmt.Sprint(prios) != "[8 8 8 4 4 4 1 1 1]" {
		t.Errorf("priorities %v, want highest first", prios)
	}
}

// TestBadInputHasNoMQSideEffect: each bad command gets a clear error naming
// the problem, is never claimed, and touches no queue.
func TestBadInputHasNoMQSideEffect(t *testing.T) {
	h := start(t)
	huge := produceBody(1, `,"tags":{"pad":"`+strings.Repeat("x", 262144)+`"}`)
	for _, tc := range []struct {
		name, path, body string
		headers          []string
		status           int
		code, where      string
	}{
		{"malformed JSON", "/messages/produce", `{"target":`, nil, 400, "MALFORMED_JSON", ""},
		{"unknown operation", "/messages/produce", `{"operationType":"EXPLODE",` + target + `,"batch":{"count":1}}`, nil, 422, "SCHEMA_VIOLATION", "/operationType"},
		{"count 0", "/messages/produce", produceBody(0, ""), nil, 422, "SCHEMA_VIOLATION", "/batch/count"},
		{"priority 10", "/messages/produce", produceBody(1, `,"mqProps":{"priority":10}`), nil, 422, "SCHEMA_VIOLATION", "/mqProps/priority"},
		{"waitSeconds 61", "/messages/consume", `{` + target + `,"waitSeconds":61}`, nil, 422, "SCHEMA_VIOLATION", "/waitSeconds"},
		{"invalid base64", "/messages/produce", produceBody(1, `,"payload":{"mode":"fixed","fixedBase64":"@@not base64@@"}`), nil, 422, "SCHEMA_VIOLATION", "/payload/fixedBase64"},
		{"body over 256 KiB", "/messages/produce", huge, nil, 413, "TOO_LARGE", ""},
		{"256-character key", "/messages/produce", produceBody(1, ""), []string{"Idempotency-Key", strings.Repeat("k", 256)}, 400, "INVALID_KEY", ""},
		{"unknown targetRef", "/queue/depth", `{"targetRef":"nowhere"}`, nil, 422, "TARGET_NOT_FOUND", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			begins := h.store.Begins.Load()
			r := h.post(tc.path, tc.body, tc.headers...)
			if r.status != tc.status || !strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") {
				t.Fatalf("status %d (%s), want %d problem: %s", r.status, r.header.Get("Content-Type"), tc.status, r.body)
			}
			p := r.json(t)
			if p["code"] != tc.code {
				t.Errorf("code %v, want %s: %s", p["code"], tc.code, r.body)
			}
			if tc.where != "" && !strings.Contains(string(r.body), `"path":"`+tc.where+`"`) {
				t.Errorf("no problem names %s: %s", tc.where, r.body)
			}
			if h.store.Begins.Load() != begins {
				t.Error("a rejected command was claimed")
			}
		})
	}
	unknownQueue := h.post("/queue/depth", `{"target":{"queueManager":"QM1","queue":"NO.SUCH.QUEUE"}}`)
	d := unknownQueue.json(t)
	if unknownQueue.status != http.StatusBadGateway || d["status"] != "FAILED" ||
		d["error"].(map[string]any)["reason"].(float64) != 2085 || d["error"].(map[string]any)["code"] != "MQRC_UNKNOWN_OBJECT_NAME" {
		t.Errorf("unknown queue: %d %s", unknownQueue.status, unknownQueue.body)
	}
	if depth := h.depth("DEV.QUEUE.1"); depth != 0 {
		t.Errorf("bad input changed the queue: depth %d", depth)
	}
}

// TestHTTPOutcomeRows walks SPEC §6's rows as an HTTP caller sees them.
func TestHTTPOutcomeRows(t *testing.T) {
	h := start(t, func(s *setup) { s.cfg.HTTP.InProgressWait = 150 * time.Millisecond })

	t.Run("in progress answers 409 with Retry-After", func(t *testing.T) {
		slow := fmt.Sprintf(`{%s,"batch":{"count":10,"messageSizeBytes":8,"rateLimitPerSec":10}}`, target)
		done := make(chan response)
		go func() { done <- h.post("/messages/produce", slow, "Idempotency-Key", "slow-1") }()
		time.Sleep(200 * time.Millisecond)
		r := h.post("/messages/produce", slow, "Idempotency-Key", "slow-1")
		if r.status != http.StatusConflict || r.header.Get("Retry-After") == "" || r.json(t)["type"] != "https://mqprobe.dev/problems/in-progress" {
			t.Fatalf("duplicate while running: %d Retry-After=%q %s", r.status, r.header.Get("Retry-After"), r.body)
		}
		if first := <-done; first.status != http.StatusCreated {
			t.Fatalf("first: %d %s", first.status, first.body)
		}
	})

	t.Run("transient MQ failure answers 502 and a retry runs again", func(t *testing.T) {
		h.backend.Faults().FailNth(mq.VerbPut, 1, mq.ReasonQMgrQuiescing)
		r := h.post("/messages/produce", produceBody(4, ""), "Idempotency-Key", "transient-1")
		d := r.json(t)
		e, _ := d["error"].(map[string]any)
		if r.status != http.StatusBadGateway || d["status"] != "FAILED" || e["reason"] != float64(2161) || e["transient"] != true || r.header.Get("Retry-After") == "" {
			t.Fatalf("transient failure: %d %s", r.status, r.body)
		}
		retry := h.post("/messages/produce", produceBody(4, ""), "Idempotency-Key", "transient-1")
		if retry.status != http.StatusCreated || retry.json(t)["attempt"] != float64(2) {
			t.Fatalf("retry: %d %s", retry.status, retry.body)
		}
	})

	t.Run("store unavailable answers 503 and runs nothing", func(t *testing.T) {
		before := h.depth("DEV.QUEUE.2")
		h.store.BeforeBegin = func(idempotency.Claim) error { return errors.New("connection refused") }
		r := h.post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":3}}`, "Idempotency-Key", "down-1")
		h.store.BeforeBegin = nil
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Fatalf("store down: %d %s", r.status, r.body)
		}
		if after := h.depth("DEV.QUEUE.2"); after != before {
			t.Errorf("depth %d -> %d: something ran without a record", before, after)
		}
	})
}

// TestBusOutcomeRows walks every SPEC §6 row over the embedded bus.
func TestBusOutcomeRows(t *testing.T) {
	var failPublish sync.Map // key -> remaining failures
	h := start(t, func(s *setup) {
		s.opts.WrapPublisher = func(p result.Publisher) result.Publisher {
			return result.PublisherFunc(func(ctx2 context.Context, e result.Event) error {
				if v, ok := failPublish.Load(e.Data.IdempotencyKey); ok && v.(int) > 0 {
					failPublish.Store(e.Data.IdempotencyKey, v.(int)-1)
					return errors.New("results topic unavailable")
				}
				return p.Publish(ctx2, e)
			})
		}
	})
	queue := func(q string) string { return fmt.Sprintf(`"target":{"queueManager":"QM1","queue":%q}`, q) }

	t.Run("completed then replayed then conflict", func(t *testing.T) {
		body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":7}}`, queue("DEV.QUEUE.3"))
		h.submit(body, "Idempotency-Key", "bus-1")
		h.submit(body, "Idempotency-Key", "bus-1")
		h.submit(strings.Replace(body, `"count":7`, `"count":8`, 1), "Idempotency-Key", "bus-1")
		byStatus := summary(h.waitResults("bus-1", 3))
		want := map[string]int{"COMPLETED": 1, "COMPLETED/replay": 1, "REJECTED/IDEMPOTENCY_KEY_REUSED": 1}
		if fmt.Sprint(byStatus) != fmt.Sprint(want) {
			t.Errorf("events %v, want %v", byStatus, want)
		}
		if d := h.depth("DEV.QUEUE.3"); d != 7 {
			t.Errorf("depth %d, want 7", d)
		}
	})

	t.Run("invalid is rejected with its problems and raw body", func(t *testing.T) {
		body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":0}}`, queue("DEV.QUEUE.3"))
		h.submit(body, "Idempotency-Key", "bus-bad")
		e := h.waitResults("bus-bad", 1)[0]
		if e.Type != result.TypeRejected || e.Data.Error == nil || len(e.Data.Error.Problems) == 0 ||
			e.Data.Error.Problems[0].Path != "/batch/count" || e.Data.RawBody != body {
			t.Errorf("rejected event %+v", e.Data)
		}
	})

	t.Run("missing key uses the message id", func(t *testing.T) {
		id := h.submit(fmt.Sprintf(`{"operationType":"DEPTH",%s}`, queue("DEV.QUEUE.3")))
		if e := h.waitResults(id, 1)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("event %+v", e.Data)
		}
	})

	t.Run("in progress is redelivered until it replays", func(t *testing.T) {
		body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":6,"messageSizeBytes":8,"rateLimitPerSec":20}}`, queue("DEV.QUEUE.2"))
		before := h.depth("DEV.QUEUE.2")
		h.submit(body, "Idempotency-Key", "bus-slow")
		time.Sleep(50 * time.Millisecond)
		h.submit(body, "Idempotency-Key", "bus-slow")
		evs := h.waitResults("bus-slow", 2)
		if evs[0].Data.Replay || !evs[1].Data.Replay {
			t.Errorf("want the execution then its replay, got replay flags %v, %v", evs[0].Data.Replay, evs[1].Data.Replay)
		}
		if d := h.depth("DEV.QUEUE.2"); d != before+6 {
			t.Errorf("depth grew by %d, want exactly 6", d-before)
		}
	})

	t.Run("transient failure publishes nothing and the redelivery succeeds", func(t *testing.T) {
		h.backend.Faults().FailNth(mq.VerbPut, 1, mq.ReasonQMgrQuiescing)
		h.submit(fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":5}}`, queue("DEV.QUEUE.2")), "Idempotency-Key", "bus-transient")
		h.waitResults("bus-transient", 1)
		time.Sleep(100 * time.Millisecond) // a second event would have arrived by now
		if evs := h.results("bus-transient"); len(evs) != 1 || evs[0].Data.Status != result.StatusCompleted || evs[0].Data.Attempt != 2 {
			t.Errorf("events %+v, want one completed on attempt 2", evs)
		}
	})

	t.Run("permanent failure is published once and acked", func(t *testing.T) {
		h.submit(fmt.Sprintf(`{"operationType":"DEPTH",%s}`, queue("NO.SUCH.QUEUE")), "Idempotency-Key", "bus-2085")
		h.waitResults("bus-2085", 1)
		time.Sleep(150 * time.Millisecond)
		evs := h.results("bus-2085")
		if len(evs) != 1 || evs[0].Type != result.TypeFailed || evs[0].Data.Error.Reason != 2085 {
			t.Errorf("events %+v, want one failed with 2085", evs)
		}
	})

	t.Run("store unavailable runs nothing until it is back", func(t *testing.T) {
		var down = true
		var mu sync.Mutex
		h.store.BeforeBegin = func(c idempotency.Claim) error {
			mu.Lock()
			defer mu.Unlock()
			if down && strings.HasSuffix(c.PK, "#bus-down") {
				return errors.New("connection refused")
			}
			return nil
		}
		defer func() { h.store.BeforeBegin = nil }()
		h.submit(fmt.Sprintf(`{"operationType":"DEPTH",%s}`, queue("DEV.QUEUE.3")), "Idempotency-Key", "bus-down")
		time.Sleep(200 * time.Millisecond)
		if evs := h.results("bus-down"); len(evs) != 0 {
			t.Fatalf("events while the store is down: %+v", evs)
		}
		mu.Lock()
		down = false
		mu.Unlock()
		if e := h.waitResults("bus-down", 1)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("event %+v", e.Data)
		}
	})

	t.Run("failed publish is redelivered and replayed, not re-executed", func(t *testing.T) {
		failPublish.Store("bus-pub", 1)
		before := h.depth("DEV.QUEUE.2")
		h.submit(fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":4}}`, queue("DEV.QUEUE.2")), "Idempotency-Key", "bus-pub")
		e := h.waitResults("bus-pub", 1)[0]
		if e.Data.Status != result.StatusCompleted || !e.Data.Replay {
			t.Errorf("event %+v, want the replay of the recorded completion", e.Data)
		}
		if d := h.depth("DEV.QUEUE.2"); d != before+4 {
			t.Errorf("depth grew by %d, want 4 (executed once)", d-before)
		}
	})
}

// TestBrokenPooledConnectionIsReplaced: after the queue manager drops every
// connection (a restart), the next commands reconnect instead of failing.
func TestBrokenPooledConnectionIsReplaced(t *testing.T) {
	h := start(t)
	if r := h.post("/messages/produce", produceBody(3, "")); r.status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.status, r.body)
	}
	h.backend.Faults().BreakConnections()
	if r := h.post("/messages/produce", produceBody(2, "")); r.status != http.StatusCreated {
		t.Fatalf("produce after the break: %d %s", r.status, r.body)
	}
	h.backend.Faults().BreakConnections()
	if d := h.depth("DEV.QUEUE.1"); d != 5 {
		t.Fatalf("depth %d, want 5", d)
	}
}

// TestBearerTokenIsRequiredWhenConfigured: with http.authToken set, only
// requests carrying it reach the API; health probes stay open.
func TestBearerTokenIsRequiredWhenConfigured(t *testing.T) {
	h := start(t, func(s *setup) { s.cfg.HTTP.AuthToken = "s3cret-token" })
	if r := h.post("/queue/depth", `{`+target+`}`); r.status != http.StatusUnauthorized ||
		r.header.Get("WWW-Authenticate") == "" || strings.Contains(string(r.body), "s3cret") {
		t.Errorf("no token: %d %v %s", r.status, r.header, r.body)
	}
	if r := h.post("/queue/depth", `{`+target+`}`, "Authorization", "Bearer wrong"); r.status != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", r.status)
	}
	if r := h.post("/queue/depth", `{`+target+`}`, "Authorization", "Bearer s3cret-token"); r.status != http.StatusOK {
		t.Errorf("right token: %d %s", r.status, r.body)
	}
	if status, _, _ := h.get("/metrics"); status != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d", status)
	}
	if status, _, _ := h.get("/health/live"); status != http.StatusOK {
		t.Errorf("/health/live must stay open: %d", status)
	}
}
