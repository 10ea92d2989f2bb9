package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/probe"
	"github.com/mqprobe/mqprobe/internal/result"
)

// noLiveTests runs no test here, so GET /tests/{id} reads the stored result.
type noLiveTests struct{}

func (noLiveTests) Live(string, string, int64) (handlers.LiveTest, bool) {
	return handlers.LiveTest{}, false
}
func (noLiveTests) Stop(string, string) bool { return false }

// oneLiveTest runs the implicit tenant's test "live", whose series has the
// points numbered 1 to 3.
type oneLiveTest struct{}

func (oneLiveTest) Live(owner, id string, after int64) (handlers.LiveTest, bool) {
	if owner != "" || id != "live" {
		return handlers.LiveTest{}, false
	}
	p50, p99 := 1.5, 4.0
	live := handlers.LiveTest{Stats: probe.Stats{Sent: 30, Received: 29, InFlight: 1}}
	for n := after + 1; n <= 3; n++ {
		live.Series = append(live.Series, handlers.TestPoint{N: n, ElapsedMs: n * 500, Sent: n * 10, Received: n*10 - 1,
			RatePerSec: 20, P50Ms: &p50, P99Ms: &p99})
	}
	return live, true
}
func (oneLiveTest) Stop(string, string) bool { return false }

// TestGetTestSeries: a running test's reply carries its series after the
// point the caller names, so a chart polling it fetches each point once;
// a bad after is refused naming it.
func TestGetTestSeries(t *testing.T) {
	h := httpapi.Handler(httpapi.Config{Tests: oneLiveTest{}, Stored: noStoredResults{}})
	get := func(path string) (int, map[string]any) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return rec.Code, body
	}
	for after, want := range map[string][]float64{"": {1, 2, 3}, "?after=0": {1, 2, 3}, "?after=2": {3}, "?after=3": {}} {
		status, body := get("/tests/live" + after)
		series, ok := body["series"].([]any)
		if status != http.StatusOK || body["status"] != "IN_PROGRESS" || !ok {
			t.Fatalf("GET /tests/live%s: %d %v, want 200, IN_PROGRESS and a series", after, status, body)
		}
		var got []float64
		for _, p := range series {
			got = append(got, p.(map[string]any)["n"].(float64))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("GET /tests/live%s: points %v, want %v", after, got, want)
		}
	}
	for _, bad := range []string{"?after=-1", "?after=x", "?since=1"} {
		status, body := get("/tests/live" + bad)
		problems, _ := body["errors"].([]any)
		if status != http.StatusBadRequest || len(problems) != 1 {
			t.Errorf("GET /tests/live%s: %d %v, want 400 naming the parameter", bad, status, body)
			continue
		}
		if path := problems[0].(map[string]any)["path"]; !strings.Contains(bad, path.(string)+"=") {
			t.Errorf("GET /tests/live%s: the problem names %v", bad, path)
		}
	}
}

// noStoredResults has no recorded test.
type noStoredResults struct{}

func (noStoredResults) StoredResult(context.Context, string, string, string) (result.Stored, bool, error) {
	return result.Stored{}, false, nil
}

// TestGetTestReadsTheStoredResult: a finished or remote test is answered
// from what the engine recorded (Config.Stored).
func TestGetTestReadsTheStoredResult(t *testing.T) {
	ctx := context.Background()
	engine, err := idempotency.New(memory.New(), idempotency.Config{Lease: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	claim := func(key string) *idempotency.Lease {
		t.Helper()
		res, err := engine.Begin(ctx, idempotency.Request{OperationType: "TEST", IdempotencyKey: key, RequestHash: "h"})
		if err != nil || res.Outcome != idempotency.Acquired {
			t.Fatalf("Begin(%s): %v %v", key, res.Outcome, err)
		}
		return res.Lease
	}
	payload := `{"operationType":"TEST","idempotencyKey":"done","status":"COMPLETED","result":{"sent":3}}`
	if _, err := engine.Complete(ctx, claim("done"), idempotency.Response{Payload: payload, HTTPStatus: http.StatusOK}); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Fail(ctx, claim("broken"), "MQRC_Q_FULL", idempotency.Response{}); err != nil {
		t.Fatal(err)
	}
	claim("elsewhere")

	tests := []struct {
		id, want string
		status   int
	}{
		{"done", payload, http.StatusOK},
		{"broken", `{"error":{"code":"TEST_FAILED","message":"MQRC_Q_FULL"},"idempotencyKey":"broken","operationType":"TEST","result":null,"status":"FAILED"}`, http.StatusOK},
		{"elsewhere", `{"error":null,"idempotencyKey":"elsewhere","operationType":"TEST","result":null,"status":"IN_PROGRESS"}`, http.StatusOK},
		{"never", `"detail":"no test never"`, http.StatusNotFound},
		{strings.Repeat("k", 256), `"type":"https://mqprobe.dev/problems/unavailable"`, http.StatusServiceUnavailable},
	}
	for name, cfg := range map[string]httpapi.Config{
		"Stored": {Tests: noLiveTests{}, Stored: engine},
	} {
		h := httpapi.Handler(cfg)
		for _, tt := range tests {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost/tests/"+tt.id, nil))
			if rec.Code != tt.status {
				t.Errorf("%s: GET /tests/%.10s: %d %s, want %d", name, tt.id, rec.Code, rec.Body, tt.status)
				continue
			}
			got := rec.Body.String()
			if rec.Code == http.StatusOK && tt.id != "done" {
				got = canonical(t, rec.Body.Bytes()) // maps encode in key order already; this only drops the newline
			}
			if rec.Code == http.StatusOK && got != tt.want || rec.Code != http.StatusOK && !strings.Contains(got, tt.want) {
				t.Errorf("%s: GET /tests/%.10s: %s, want %s", name, tt.id, got, tt.want)
			}
		}
	}
}

func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
