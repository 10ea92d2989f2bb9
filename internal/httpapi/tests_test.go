package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/probe"
)

// noLiveTests runs no test here, so GET /tests/{id} reads the stored result.
type noLiveTests struct{}

func (noLiveTests) Live(string, string) (probe.Stats, bool) { return probe.Stats{}, false }
func (noLiveTests) Stop(string, string) bool                { return false }

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
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/tests/"+tt.id, nil))
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
