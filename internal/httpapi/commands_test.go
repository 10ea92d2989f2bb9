package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

const produceBody = `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":2,"messageSizeBytes":16}}`

// post sends a command to the API and returns the response, read.
func post(t *testing.T, h http.Handler, path, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://localhost"+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestReplayAnswersTheFirstBodySayingReplay: the second identical POST is
// answered with the first body byte for byte, except "replay":true, and
// with Idempotent-Replay: true.
func TestReplayAnswersTheFirstBodySayingReplay(t *testing.T) {
	h := httpapi.Handler(api(t))
	first := post(t, h, "/messages/produce", "replay-1", produceBody)
	again := post(t, h, "/messages/produce", "replay-1", produceBody)
	want := bytes.Replace(first.Body.Bytes(), []byte(`"replay":false`), []byte(`"replay":true`), 1)
	if first.Code != http.StatusCreated || again.Code != http.StatusCreated || again.Header().Get("Idempotent-Replay") != "true" ||
		!bytes.Equal(again.Body.Bytes(), want) {
		t.Errorf("replay: %d %v\n\t%s\nwant 201, Idempotent-Replay: true and the first answer with replay true\n\t%s",
			again.Code, again.Header(), again.Body, want)
	}
}

// TestGeneratedKeyIsMarked: a command sent without Idempotency-Key says in
// its body and a header that its key was generated; one with a key does not.
func TestGeneratedKeyIsMarked(t *testing.T) {
	h := httpapi.Handler(api(t))
	rec := post(t, h, "/messages/produce", "", produceBody)
	var data struct {
		IdempotencyKey string
		KeyGenerated   *bool
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &data); err != nil || rec.Code != http.StatusCreated ||
		data.KeyGenerated == nil || !*data.KeyGenerated || rec.Header().Get("Idempotency-Key-Generated") != "true" ||
		rec.Header().Get("Idempotency-Key") != data.IdempotencyKey {
		t.Errorf("without a key: %d %v %s, want 201, keyGenerated true and Idempotency-Key-Generated: true", rec.Code, rec.Header(), rec.Body)
	}
	rec = post(t, h, "/messages/produce", "given-1", produceBody)
	if rec.Code != http.StatusCreated || strings.Contains(rec.Body.String(), "keyGenerated") || rec.Header().Get("Idempotency-Key-Generated") != "" {
		t.Errorf("with a key: %d %v %s, want neither mark", rec.Code, rec.Header(), rec.Body)
	}
}

// TestKeyReusedSaysWhatToDo: the 409 of a key reused for another request
// carries its code, says its title once, and names a new key and the
// eviction as the ways out.
func TestKeyReusedSaysWhatToDo(t *testing.T) {
	h := httpapi.Handler(api(t))
	post(t, h, "/messages/produce", "reused-1", produceBody)
	rec := post(t, h, "/messages/produce", "reused-1", strings.Replace(produceBody, `"count":2`, `"count":3`, 1))
	var p struct{ Title, Detail, Code string }
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || rec.Code != http.StatusConflict || p.Code != "IDEMPOTENCY_KEY_REUSED" {
		t.Fatalf("key reuse: %d %s, want 409 IDEMPOTENCY_KEY_REUSED", rec.Code, rec.Body)
	}
	if strings.Contains(p.Detail, p.Title) || !strings.Contains(p.Detail, "new key") ||
		!strings.Contains(p.Detail, "DELETE /idempotency/PRODUCE/reused-1") || !strings.Contains(p.Detail, "mqprobe store evict PRODUCE reused-1") {
		t.Errorf("key reuse detail %q (title %q): want it not to repeat the title, and to name a new key and the eviction", p.Detail, p.Title)
	}
}

// TestInProgressConflictHasCodeAndRetryAfter: a command another instance
// is running answers 409 with code IN_PROGRESS and Retry-After.
func TestInProgressConflictHasCodeAndRetryAfter(t *testing.T) {
	store := memory.New()
	h := httpapi.Handler(apiOver(t, store))
	const depth = `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	decoder, err := command.NewDecoder(command.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := decoder.Decode(command.Input{Body: []byte(depth), Transport: command.TransportHTTP, Operation: command.Depth, IdempotencyKey: "running-1"})
	if err != nil {
		t.Fatal(err)
	}
	// Another instance holds the command's claim, its lease alive.
	peer, err := idempotency.New(store, idempotency.Config{Lease: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := peer.Begin(context.Background(), idempotency.Request{OperationType: string(command.Depth), IdempotencyKey: "running-1",
		RequestHash: dec.RequestHash}); err != nil || res.Outcome != idempotency.Acquired {
		t.Fatalf("peer's claim: %v %v", res.Outcome, err)
	}
	rec := post(t, h, "/queue/depth", "running-1", depth)
	var p struct{ Type, Code, IdempotencyKey string }
	json.Unmarshal(rec.Body.Bytes(), &p) //nolint:errcheck // checked below
	retry, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	if rec.Code != http.StatusConflict || p.Type != "https://mqprobe.dev/problems/in-progress" || p.Code != "IN_PROGRESS" ||
		p.IdempotencyKey != "running-1" || err != nil || retry < 1 {
		t.Errorf("duplicate of a running command: %d %v %s, want 409 in-progress with code IN_PROGRESS, its key and Retry-After", rec.Code, rec.Header(), rec.Body)
	}
}

// TestGeneratedTestIDIsMarked: a TEST started without Idempotency-Key
// answers 202 with Idempotency-Key-Generated: true; one with a key does not.
func TestGeneratedTestIDIsMarked(t *testing.T) {
	h := httpapi.Handler(api(t))
	const probe = `{"targetRef":"p","durationSeconds":1,"batch":{"messageSizeBytes":8,"rateLimitPerSec":10}}`
	for key, want := range map[string]string{"": "true", "probe-given": ""} {
		rec := post(t, h, "/tests", key, probe)
		if rec.Code != http.StatusAccepted || rec.Header().Get("Idempotency-Key-Generated") != want {
			t.Errorf("POST /tests with key %q: %d %v %s, want 202 with Idempotency-Key-Generated %q", key, rec.Code, rec.Header(), rec.Body, want)
		}
	}
}

// TestDuplicateWaitsForTheRunningCommand: a duplicate of a command running
// elsewhere waits (InProgressWait) until that run lets go of it, then gets
// the command's own answer, and counts once, by that answer.
func TestDuplicateWaitsForTheRunningCommand(t *testing.T) {
	store := memory.New()
	cfg := apiOver(t, store)
	records, err := idempotency.New(store, idempotency.Config{Lease: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	watched := &inspectCounting{Records: records}
	cfg.Records, cfg.InProgressWait = watched, time.Minute
	h := httpapi.Handler(cfg)
	const depth = `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	decoder, err := command.NewDecoder(command.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := decoder.Decode(command.Input{Body: []byte(depth), Transport: command.TransportHTTP, Operation: command.Depth, IdempotencyKey: "waits-1"})
	if err != nil {
		t.Fatal(err)
	}
	peer, err := idempotency.New(store, idempotency.Config{Lease: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	claim, err := peer.Begin(context.Background(), idempotency.Request{OperationType: string(command.Depth), IdempotencyKey: "waits-1",
		RequestHash: dec.RequestHash})
	if err != nil || claim.Outcome != idempotency.Acquired {
		t.Fatalf("peer's claim: %v %v", claim.Outcome, err)
	}
	answered := make(chan *httptest.ResponseRecorder)
	go func() { answered <- post(t, h, "/queue/depth", "waits-1", depth) }()
	if !testenv.Until(10*time.Second, func() bool { return watched.inspects.Load() >= 2 }) {
		t.Fatal("the duplicate is not waiting on the record")
	}
	select {
	case rec := <-answered:
		t.Fatalf("answered while the peer still runs the command: %d %s", rec.Code, rec.Body)
	default:
	}
	if err := peer.Release(context.Background(), claim.Lease); err != nil {
		t.Fatal(err)
	}
	rec := <-answered
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"currentDepth":0`) {
		t.Errorf("after the peer let go: %d %s, want 200 with the depth", rec.Code, rec.Body)
	}
	if counts := cfg.Executor.Counts(); len(counts) != 1 || counts["completed"] != 1 {
		t.Errorf("outcome counts %v, want the one answer: completed 1", counts)
	}
}

// inspectCounting counts the records the API inspects.
type inspectCounting struct {
	httpapi.Records
	inspects atomic.Int32
}

func (c *inspectCounting) Inspect(ctx context.Context, operationType, tenant, key string) (idempotency.Record, bool, error) {
	c.inspects.Add(1)
	return c.Records.Inspect(ctx, operationType, tenant, key)
}

// TestWrongMethodIs405WithAllow: a known route asked with a method it does
// not take answers 405 naming the methods it does in Allow; an unknown
// path stays 404.
func TestWrongMethodIs405WithAllow(t *testing.T) {
	h := httpapi.Handler(api(t))
	for _, tc := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{http.MethodGet, "/messages/produce", http.StatusMethodNotAllowed, "POST"},
		{http.MethodDelete, "/health/live", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPost, "/status", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPut, "/commands", http.StatusMethodNotAllowed, "POST"},
		{http.MethodGet, "/no/such/route", http.StatusNotFound, ""},
		{http.MethodPost, "/messages/produce/extra", http.StatusNotFound, ""},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, "http://localhost"+tc.path, nil))
		var p struct{ Status int }
		err := json.Unmarshal(rec.Body.Bytes(), &p)
		if rec.Code != tc.code || rec.Header().Get("Allow") != tc.allow || err != nil || p.Status != tc.code ||
			rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s: %d Allow %q %s; want %d Allow %q and a problem", tc.method, tc.path, rec.Code,
				rec.Header().Get("Allow"), rec.Body, tc.code, tc.allow)
		}
	}
}

// TestKeyConflictIs422: an Idempotency-Key header and a different
// idempotencyKey in the body are refused with a 422 problem naming both;
// the same key in both is fine.
func TestKeyConflictIs422(t *testing.T) {
	h := httpapi.Handler(api(t))
	body := `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":1,"messageSizeBytes":16},"idempotencyKey":"body-key"}`
	rec := post(t, h, "/messages/produce", "header-key", body)
	var p struct {
		Type, Code string
		Errors     []struct{ Path, Rule, Message string }
	}
	want := `idempotencyKey "body-key" in the command disagrees with "header-key" in the Idempotency-Key header`
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || rec.Code != http.StatusUnprocessableEntity || p.Code != "KEY_CONFLICT" ||
		len(p.Errors) != 1 || !strings.Contains(p.Errors[0].Message, want) {
		t.Errorf("conflicting keys: %d %s; want 422 KEY_CONFLICT saying %q", rec.Code, rec.Body, want)
	}
	if rec := post(t, h, "/messages/produce", "body-key", body); rec.Code != http.StatusCreated {
		t.Errorf("the same key in both: %d %s", rec.Code, rec.Body)
	}
}
