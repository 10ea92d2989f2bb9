package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestReadmeWalkthrough is the README tutorial's scenario: produce with a key, read
// the depth, repeat and get a replay with the depth unchanged, consume,
// and reuse the key for another body.
func TestReadmeWalkthrough(t *testing.T) {
	h := daemontest.Start(t)
	first := h.Post("/messages/produce", daemontest.ProduceBody(1000, ""), "Idempotency-Key", "order-42")
	if first.Status != http.StatusCreated || first.Header.Get("Idempotent-Replay") != "" {
		t.Fatalf("produce: %d replay=%q %s", first.Status, first.Header.Get("Idempotent-Replay"), first.Body)
	}
	res := first.JSON(t)["result"].(map[string]any)
	if res["enqueued"].(float64) != 1000 || res["transactions"].(float64) != 10 || res["bytes"].(float64) != 2048000 {
		t.Errorf("produce result %v", res)
	}
	if d := h.Depth("DEV.QUEUE.1"); d != 1000 {
		t.Fatalf("depth %d, want 1000", d)
	}
	again := h.Post("/messages/produce", daemontest.ProduceBody(1000, ""), "Idempotency-Key", "order-42")
	replayed := strings.Replace(string(first.Body), `"replay":false`, `"replay":true`, 1)
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replay") != "true" || string(again.Body) != replayed {
		t.Fatalf("repeat: %d replay=%q, body the first with replay true=%v", again.Status, again.Header.Get("Idempotent-Replay"), string(again.Body) == replayed)
	}
	if d := h.Depth("DEV.QUEUE.1"); d != 1000 {
		t.Fatalf("depth after replay %d, want 1000", d)
	}
	consumed := h.Post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":10,"waitSeconds":1}`, daemontest.Target))
	if consumed.Status != http.StatusOK || consumed.JSON(t)["result"].(map[string]any)["received"].(float64) != 10 {
		t.Fatalf("consume: %d %s", consumed.Status, consumed.Body)
	}
	conflict := h.Post("/messages/produce", daemontest.ProduceBody(5, ""), "Idempotency-Key", "order-42")
	p := conflict.JSON(t)
	if conflict.Status != http.StatusConflict || p["title"] != "Idempotency key reused with different request" ||
		!strings.HasPrefix(conflict.Header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("conflict: %d %s", conflict.Status, conflict.Body)
	}
	if d := h.Depth("DEV.QUEUE.1"); d != 990 {
		t.Fatalf("depth %d, want 990", d)
	}
}

// TestParallelIdenticalRequestsRunOnce: 50 copies of one command at once run
// it once and all answer the same body, the replays saying replay:true.
func TestParallelIdenticalRequestsRunOnce(t *testing.T) {
	h := daemontest.Start(t)
	var wg sync.WaitGroup
	responses := make([]daemontest.Response, 50)
	for i := range responses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			responses[i] = h.Post("/messages/produce", daemontest.ProduceBody(500, ""), "Idempotency-Key", "parallel-1")
		}()
	}
	wg.Wait()
	replays := 0
	asReplay := func(body []byte) string { return strings.Replace(string(body), `"replay":false`, `"replay":true`, 1) }
	for i, r := range responses {
		replay := r.Header.Get("Idempotent-Replay") == "true"
		if replay {
			replays++
		}
		if r.Status != http.StatusCreated || asReplay(r.Body) != asReplay(responses[0].Body) || replay != strings.Contains(string(r.Body), `"replay":true`) {
			t.Fatalf("response %d: %d replay=%v %s\nfirst: %s", i, r.Status, replay, r.Body, responses[0].Body)
		}
	}
	if replays != 49 {
		t.Errorf("%d replays, want 49", replays)
	}
	if d := h.Depth("DEV.QUEUE.1"); d != 500 {
		t.Fatalf("depth %d, want exactly 500", d)
	}
}

func TestProduceThenConsumeInPriorityOrder(t *testing.T) {
	h := daemontest.Start(t)
	for i, prio := range []int{1, 8, 4} {
		body := fmt.Sprintf(`{%s,"batch":{"count":3,"messageSizeBytes":16},"mqProps":{"priority":%d,"persistence":"persistent","correlIdMode":"echoMsgId"},"headers":{"origin":"test"}}`, daemontest.Target, prio)
		if r := h.Post("/messages/produce", body, "Idempotency-Key", fmt.Sprint("prio-", i)); r.Status != http.StatusCreated {
			t.Fatalf("produce: %d %s", r.Status, r.Body)
		}
	}
	r := h.Post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":20,"waitSeconds":0}`, daemontest.Target))
	res := r.JSON(t)["result"].(map[string]any)
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
	h := daemontest.Start(t)
	huge := daemontest.ProduceBody(1, `,"tags":{"pad":"`+strings.Repeat("x", 262144)+`"}`)
	for _, tc := range []struct {
		name, path, body string
		headers          []string
		status           int
		code, where      string
	}{
		{"malformed JSON", "/messages/produce", `{"target":`, nil, 400, "MALFORMED_JSON", ""},
		{"unknown operation", "/messages/produce", `{"operationType":"EXPLODE",` + daemontest.Target + `,"batch":{"count":1}}`, nil, 422, "SCHEMA_VIOLATION", "/operationType"},
		{"count 0", "/messages/produce", daemontest.ProduceBody(0, ""), nil, 422, "SCHEMA_VIOLATION", "/batch/count"},
		{"priority 10", "/messages/produce", daemontest.ProduceBody(1, `,"mqProps":{"priority":10}`), nil, 422, "SCHEMA_VIOLATION", "/mqProps/priority"},
		{"waitSeconds 61", "/messages/consume", `{` + daemontest.Target + `,"waitSeconds":61}`, nil, 422, "SCHEMA_VIOLATION", "/waitSeconds"},
		{"invalid base64", "/messages/produce", daemontest.ProduceBody(1, `,"payload":{"mode":"fixed","fixedBase64":"@@not base64@@"}`), nil, 422, "SCHEMA_VIOLATION", "/payload/fixedBase64"},
		{"body over 256 KiB", "/messages/produce", huge, nil, 413, "TOO_LARGE", ""},
		{"256-character key", "/messages/produce", daemontest.ProduceBody(1, ""), []string{"Idempotency-Key", strings.Repeat("k", 256)}, 400, "INVALID_KEY", ""},
		{"unknown targetRef", "/queue/depth", `{"targetRef":"nowhere"}`, nil, 422, "TARGET_NOT_FOUND", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			begins := h.Store.Begins.Load()
			r := h.Post(tc.path, tc.body, tc.headers...)
			if r.Status != tc.status || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json") {
				t.Fatalf("status %d (%s), want %d problem: %s", r.Status, r.Header.Get("Content-Type"), tc.status, r.Body)
			}
			p := r.JSON(t)
			if p["code"] != tc.code {
				t.Errorf("code %v, want %s: %s", p["code"], tc.code, r.Body)
			}
			if tc.where != "" && !strings.Contains(string(r.Body), `"path":"`+tc.where+`"`) {
				t.Errorf("no problem names %s: %s", tc.where, r.Body)
			}
			if h.Store.Begins.Load() != begins {
				t.Error("a rejected command was claimed")
			}
		})
	}
	unknownQueue := h.Post("/queue/depth", `{"target":{"queueManager":"QM1","queue":"NO.SUCH.QUEUE"}}`)
	d := unknownQueue.JSON(t)
	if unknownQueue.Status != http.StatusBadGateway || d["status"] != "FAILED" ||
		d["error"].(map[string]any)["reason"].(float64) != 2085 || d["error"].(map[string]any)["code"] != "MQRC_UNKNOWN_OBJECT_NAME" {
		t.Errorf("unknown queue: %d %s", unknownQueue.Status, unknownQueue.Body)
	}
	if depth := h.Depth("DEV.QUEUE.1"); depth != 0 {
		t.Errorf("bad input changed the queue: depth %d", depth)
	}
}

// TestHTTPOutcomeRows walks SPEC §6's rows as an HTTP caller sees them.
func TestHTTPOutcomeRows(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.HTTP.InProgressWait = 150 * time.Millisecond })

	t.Run("in progress answers 409 with Retry-After", func(t *testing.T) {
		slow := fmt.Sprintf(`{%s,"batch":{"count":10,"messageSizeBytes":8,"rateLimitPerSec":10}}`, daemontest.Target)
		done := make(chan daemontest.Response)
		go func() { done <- h.Post("/messages/produce", slow, "Idempotency-Key", "slow-1") }()
		awaitInProgress(t, h, "PRODUCE#slow-1")
		r := h.Post("/messages/produce", slow, "Idempotency-Key", "slow-1")
		if r.Status != http.StatusConflict || r.Header.Get("Retry-After") == "" || r.JSON(t)["type"] != "https://mqprobe.dev/problems/in-progress" {
			t.Fatalf("duplicate while running: %d Retry-After=%q %s", r.Status, r.Header.Get("Retry-After"), r.Body)
		}
		if first := <-done; first.Status != http.StatusCreated {
			t.Fatalf("first: %d %s", first.Status, first.Body)
		}
	})

	t.Run("transient MQ failure answers 502 and a retry runs again", func(t *testing.T) {
		h.Backend.Faults().FailNth(mq.VerbPut, 1, mq.ReasonQMgrQuiescing)
		r := h.Post("/messages/produce", daemontest.ProduceBody(4, ""), "Idempotency-Key", "transient-1")
		d := r.JSON(t)
		e, _ := d["error"].(map[string]any)
		if r.Status != http.StatusBadGateway || d["status"] != "FAILED" || e["reason"] != float64(2161) || e["transient"] != true || r.Header.Get("Retry-After") == "" {
			t.Fatalf("transient failure: %d %s", r.Status, r.Body)
		}
		retry := h.Post("/messages/produce", daemontest.ProduceBody(4, ""), "Idempotency-Key", "transient-1")
		if retry.Status != http.StatusCreated || retry.JSON(t)["attempt"] != float64(2) {
			t.Fatalf("retry: %d %s", retry.Status, retry.Body)
		}
	})

	t.Run("store unavailable answers 503 and runs nothing", func(t *testing.T) {
		before := h.Depth("DEV.QUEUE.2")
		h.Store.BeforeBegin = func(idempotency.Claim) error { return errors.New("connection refused") }
		r := h.Post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":3}}`, "Idempotency-Key", "down-1")
		h.Store.BeforeBegin = nil
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Fatalf("store down: %d %s", r.Status, r.Body)
		}
		if after := h.Depth("DEV.QUEUE.2"); after != before {
			t.Errorf("depth %d -> %d: something ran without a record", before, after)
		}
	})
}

// TestBusOutcomeRows walks every SPEC §6 row over the embedded bus.
func TestBusOutcomeRows(t *testing.T) {
	var failPublish sync.Map // key -> remaining failures
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Opts.WrapPublisher = func(p result.Publisher) result.Publisher {
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
		h.Submit(body, "Idempotency-Key", "bus-1")
		h.Submit(body, "Idempotency-Key", "bus-1")
		h.Submit(strings.Replace(body, `"count":7`, `"count":8`, 1), "Idempotency-Key", "bus-1")
		byStatus := daemontest.Summary(h.WaitResults("bus-1", 3))
		want := map[string]int{"COMPLETED": 1, "COMPLETED/replay": 1, "REJECTED/IDEMPOTENCY_KEY_REUSED": 1}
		if fmt.Sprint(byStatus) != fmt.Sprint(want) {
			t.Errorf("events %v, want %v", byStatus, want)
		}
		if d := h.Depth("DEV.QUEUE.3"); d != 7 {
			t.Errorf("depth %d, want 7", d)
		}
	})

	t.Run("invalid is rejected with its problems and raw body", func(t *testing.T) {
		body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":0}}`, queue("DEV.QUEUE.3"))
		h.Submit(body, "Idempotency-Key", "bus-bad")
		e := h.WaitResults("bus-bad", 1)[0]
		if e.Type != result.TypeRejected || e.Data.Error == nil || len(e.Data.Error.Problems) == 0 ||
			e.Data.Error.Problems[0].Path != "/batch/count" || e.Data.RawBody != body {
			t.Errorf("rejected event %+v", e.Data)
		}
	})

	t.Run("missing key uses the message id", func(t *testing.T) {
		id := h.Submit(fmt.Sprintf(`{"operationType":"DEPTH",%s}`, queue("DEV.QUEUE.3")))
		if e := h.WaitResults(id, 1)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("event %+v", e.Data)
		}
	})

	t.Run("in progress is redelivered until it replays", func(t *testing.T) {
		body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":6,"messageSizeBytes":8,"rateLimitPerSec":20}}`, queue("DEV.QUEUE.2"))
		before := h.Depth("DEV.QUEUE.2")
		h.Submit(body, "Idempotency-Key", "bus-slow")
		awaitInProgress(t, h, "PRODUCE#bus-slow")
		h.Submit(body, "Idempotency-Key", "bus-slow")
		evs := h.WaitResults("bus-slow", 2)
		if evs[0].Data.Replay || !evs[1].Data.Replay {
			t.Errorf("want the execution then its replay, got replay flags %v, %v", evs[0].Data.Replay, evs[1].Data.Replay)
		}
		if d := h.Depth("DEV.QUEUE.2"); d != before+6 {
			t.Errorf("depth grew by %d, want exactly 6", d-before)
		}
	})

	t.Run("transient failure publishes nothing and the redelivery succeeds", func(t *testing.T) {
		h.Backend.Faults().FailNth(mq.VerbPut, 1, mq.ReasonQMgrQuiescing)
		h.Submit(fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":5}}`, queue("DEV.QUEUE.2")), "Idempotency-Key", "bus-transient")
		h.WaitResults("bus-transient", 1)
		awaitAcked(t, h) // no redelivery can follow
		if evs := h.Results("bus-transient"); len(evs) != 1 || evs[0].Data.Status != result.StatusCompleted || evs[0].Data.Attempt != 2 {
			t.Errorf("events %+v, want one completed on attempt 2", evs)
		}
	})

	t.Run("permanent failure is published once and acked", func(t *testing.T) {
		h.Submit(fmt.Sprintf(`{"operationType":"DEPTH",%s}`, queue("NO.SUCH.QUEUE")), "Idempotency-Key", "bus-2085")
		h.WaitResults("bus-2085", 1)
		awaitAcked(t, h)
		evs := h.Results("bus-2085")
		if len(evs) != 1 || evs[0].Type != result.TypeFailed || evs[0].Data.Error.Reason != 2085 {
			t.Errorf("events %+v, want one failed with 2085", evs)
		}
	})

	t.Run("store unavailable runs nothing until it is back", func(t *testing.T) {
		var down = true
		var mu sync.Mutex
		var refused atomic.Int32
		h.Store.BeforeBegin = func(c idempotency.Claim) error {
			mu.Lock()
			defer mu.Unlock()
			if down && strings.HasSuffix(c.PK, "#bus-down") {
				refused.Add(1)
				return errors.New("connection refused")
			}
			return nil
		}
		defer func() { h.Store.BeforeBegin = nil }()
		h.Submit(fmt.Sprintf(`{"operationType":"DEPTH",%s}`, queue("DEV.QUEUE.3")), "Idempotency-Key", "bus-down")
		// Refused, redelivered and refused again: still nothing may have run.
		testenv.Eventually(t, 10*time.Second, "a redelivery refused by the store", func() bool { return refused.Load() >= 2 })
		if evs := h.Results("bus-down"); len(evs) != 0 {
			t.Fatalf("events while the store is down: %+v", evs)
		}
		mu.Lock()
		down = false
		mu.Unlock()
		if e := h.WaitResults("bus-down", 1)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("event %+v", e.Data)
		}
	})

	t.Run("failed publish is redelivered and replayed, not re-executed", func(t *testing.T) {
		failPublish.Store("bus-pub", 1)
		before := h.Depth("DEV.QUEUE.2")
		h.Submit(fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":4}}`, queue("DEV.QUEUE.2")), "Idempotency-Key", "bus-pub")
		e := h.WaitResults("bus-pub", 1)[0]
		if e.Data.Status != result.StatusCompleted || !e.Data.Replay {
			t.Errorf("event %+v, want the replay of the recorded completion", e.Data)
		}
		if d := h.Depth("DEV.QUEUE.2"); d != before+4 {
			t.Errorf("depth grew by %d, want 4 (executed once)", d-before)
		}
	})
}

// TestBrokenPooledConnectionIsReplaced: after the queue manager drops every
// connection (a restart), the next commands reconnect instead of failing.
func TestBrokenPooledConnectionIsReplaced(t *testing.T) {
	h := daemontest.Start(t)
	if r := h.Post("/messages/produce", daemontest.ProduceBody(3, "")); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	h.Backend.Faults().BreakConnections()
	if r := h.Post("/messages/produce", daemontest.ProduceBody(2, "")); r.Status != http.StatusCreated {
		t.Fatalf("produce after the break: %d %s", r.Status, r.Body)
	}
	h.Backend.Faults().BreakConnections()
	if d := h.Depth("DEV.QUEUE.1"); d != 5 {
		t.Fatalf("depth %d, want 5", d)
	}
}

// TestBearerTokenIsRequiredWhenConfigured: with http.authToken set, only
// requests carrying it reach the API; health probes stay open.
func TestBearerTokenIsRequiredWhenConfigured(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.HTTP.AuthToken = "s3cret-token" })
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`); r.Status != http.StatusUnauthorized ||
		r.Header.Get("WWW-Authenticate") == "" || strings.Contains(string(r.Body), "s3cret") {
		t.Errorf("no token: %d %v %s", r.Status, r.Header, r.Body)
	}
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "Bearer wrong"); r.Status != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", r.Status)
	}
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "Bearer s3cret-token"); r.Status != http.StatusOK {
		t.Errorf("right token: %d %s", r.Status, r.Body)
	}
	// The scheme is case-insensitive; the token is not.
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "bearer s3cret-token"); r.Status != http.StatusOK {
		t.Errorf("lower-case scheme: %d %s", r.Status, r.Body)
	}
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "Bearer S3CRET-TOKEN"); r.Status != http.StatusUnauthorized {
		t.Errorf("token in other case: %d", r.Status)
	}
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "Basic s3cret-token"); r.Status != http.StatusUnauthorized {
		t.Errorf("other scheme: %d", r.Status)
	}
	if status, _, _ := h.Get("/metrics"); status != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d", status)
	}
	if status, _, _ := h.Get("/health/live"); status != http.StatusOK {
		t.Errorf("/health/live must stay open: %d", status)
	}
}

// TestProduceOverEmbeddedMaxBytes: a PRODUCE larger than the embedded
// queue manager's configured maxBytes keeps the transactions that fit and
// fails the one that does not with 2056, transient: over HTTP a 502 with
// Retry-After, as draining the queue makes room.
func TestProduceOverEmbeddedMaxBytes(t *testing.T) {
	const maxBytes, size, txSize = 1 << 20, 64 << 10, 10
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Opts.Backend = nil // the configured one, built by the daemon
		s.Cfg.MQ.Embedded.QueueManagers[0].MaxBytes = maxBytes
		s.Cfg.MQ.Embedded.QueueManagers[0].MaxMsgLength = maxBytes // maxBytes may not be less
	})
	body := fmt.Sprintf(`{%s,"batch":{"count":100,"messageSizeBytes":%d,"transaction":{"enabled":true,"txSize":%d}}}`,
		daemontest.Target, size, txSize)
	r := h.Post("/messages/produce", body, "Idempotency-Key", "over-max-bytes-1")
	d := r.JSON(t)
	e, _ := d["error"].(map[string]any)
	if r.Status != http.StatusBadGateway || r.Header.Get("Retry-After") == "" || d["status"] != "FAILED" ||
		e["reason"] != float64(mq.ReasonQSpaceNotAvailable) || e["code"] != "MQRC_Q_SPACE_NOT_AVAILABLE" || e["transient"] != true {
		t.Fatalf("produce over maxBytes: %d Retry-After=%q %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	// 16 messages fill 1 MiB: the first transaction of 10 committed, the
	// second backed out at its 7th put.
	if depth := h.Depth("DEV.QUEUE.1"); depth != txSize {
		t.Fatalf("depth %d after the failure, want the %d messages of the committed transaction", depth, txSize)
	}
}

// awaitInProgress waits until the record pk is claimed and running.
func awaitInProgress(t *testing.T, h *daemontest.Harness, pk string) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, pk+" in progress", func() bool {
		rec, ok, err := h.Store.Get(context.Background(), pk)
		return err == nil && ok && rec.Status == idempotency.StatusInProgress
	})
}

// awaitAcked waits until every command submitted over the embedded bus is
// acked (GET /status's commandsQueued is 0): none is left to redeliver.
func awaitAcked(t *testing.T, h *daemontest.Harness) {
	t.Helper()
	testenv.Eventually(t, 10*time.Second, "every submitted command acked", func() bool { return load(t, h)["commandsQueued"] == 0 })
}
