package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// countsOnly answers /status's command counts and executes nothing.
type countsOnly struct{}

func (countsOnly) Execute(context.Context, command.Input, ...executor.Option) executor.Outcome {
	return executor.Outcome{}
}
func (countsOnly) Counts() map[string]int64               { return map[string]int64{} }
func (countsOnly) LastHourCounts(string) map[string]int64 { return map[string]int64{} }

// commandsFixture is an API over a memory store, with tokens for the
// implicit tenant and team-a and team-b, and an in-flight registry.
type commandsFixture struct {
	t        *testing.T
	engine   *idempotency.Engine
	running  *inflight.Registry
	handler  http.Handler
	holderID string
}

func newCommandsFixture(t *testing.T) *commandsFixture {
	f := &commandsFixture{t: t, running: new(inflight.Registry), holderID: "pod-7"}
	var err error
	f.engine, err = idempotency.New(memory.New(), idempotency.Config{Lease: time.Minute}, nil, idempotency.WithHolder(f.holderID))
	if err != nil {
		t.Fatal(err)
	}
	f.handler = httpapi.Handler(httpapi.Config{Executor: countsOnly{}, Records: f.engine, InFlight: f.running,
		Settings: httpapi.Settings{AuthToken: "admin"}, Credentials: []httpapi.Credential{
			{Token: "token-a", Tenant: tenant.Tenant{Name: "team-a"}},
			{Token: "token-b", Tenant: tenant.Tenant{Name: "team-b"}},
		}})
	return f
}

func (f *commandsFixture) claim(op, owner, key string) *idempotency.Lease {
	f.t.Helper()
	res, err := f.engine.Begin(context.Background(), idempotency.Request{OperationType: op, Tenant: owner, IdempotencyKey: key, RequestHash: "h"})
	if err != nil || res.Outcome != idempotency.Acquired {
		f.t.Fatalf("Begin(%s %s %s): %v %v", op, owner, key, res.Outcome, err)
	}
	return res.Lease
}

func (f *commandsFixture) get(token, path string) (int, map[string]any, string) {
	f.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		f.t.Fatalf("GET %s: %d %s: %v", path, rec.Code, rec.Body, err)
	}
	return rec.Code, body, rec.Header().Get("Content-Type")
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGetCommandMergesLiveProgressForItsTenantOnly: team-a's running
// PRODUCE shows the registry's counters and the lease holder to team-a;
// the implicit tenant and team-b, holding no such key, get 404.
func TestGetCommandMergesLiveProgressForItsTenantOnly(t *testing.T) {
	f := newCommandsFixture(t)
	lease := f.claim("PRODUCE", "team-a", "k1")
	started := time.Now().Add(-2 * time.Second)
	cmd := &inflight.Command{OperationType: "PRODUCE", Tenant: "team-a", Key: "k1", Attempt: lease.Attempt(), StartedAt: started}
	cmd.Counters.Start(1000, 0)
	cmd.Counters.SetDone(520)
	cmd.Counters.SetCommitted(500)
	defer f.running.Add(cmd)()

	code, body, _ := f.get("token-a", "/commands/PRODUCE/k1")
	if code != http.StatusOK || body["status"] != "IN_PROGRESS" || body["attempt"] != 1.0 || body["idempotencyKey"] != "k1" || body["operationType"] != "PRODUCE" {
		t.Fatalf("team-a: %d %v", code, body)
	}
	lv, _ := body["lease"].(map[string]any)
	if lv["holder"] != "pod-7" || lv["expiresAt"] == nil {
		t.Errorf("lease %v, want holder pod-7 and its expiry", lv)
	}
	p, _ := body["progress"].(map[string]any)
	if p["total"] != 1000.0 || p["done"] != 520.0 || p["committed"] != 500.0 || p["startedAt"] == nil {
		t.Errorf("progress %v, want total 1000, done 520, committed 500, startedAt", p)
	}
	if rate, _ := p["ratePerSec"].(float64); rate < 100 || rate > 300 {
		t.Errorf("ratePerSec %v, want about 520 over 2 s", p["ratePerSec"])
	}
	if _, ok := body["result"]; ok {
		t.Errorf("a running command has a result: %v", body["result"])
	}
	for _, token := range []string{"admin", "token-b"} {
		code, body, ctype := f.get(token, "/commands/PRODUCE/k1")
		if code != http.StatusNotFound || ctype != "application/problem+json" || body["type"] != "https://mqprobe.dev/problems/not-found" ||
			!strings.Contains(body["detail"].(string), "PRODUCE") || !strings.Contains(body["detail"].(string), "k1") {
			t.Errorf("%s: %d %s %v, want 404 naming PRODUCE and k1", token, code, ctype, body)
		}
	}
	// /status lists it to team-a only.
	_, status, _ := f.get("token-a", "/status")
	if got := jsonOf(t, status["inFlight"]); !strings.Contains(got, `"count":1`) || !strings.Contains(got, `"idempotencyKey":"k1"`) || !strings.Contains(got, `"done":520`) {
		t.Errorf("team-a /status inFlight %s", got)
	}
	_, status, _ = f.get("token-b", "/status")
	if got := jsonOf(t, status["inFlight"]); got != `{"commands":[],"count":0}` {
		t.Errorf("team-b /status inFlight %s, want none", got)
	}
}

// TestGetCommandRecordStates: another instance's running command shows its
// checkpoint; a completed one its reply; a failed one its reply and the
// progress it reported.
func TestGetCommandRecordStates(t *testing.T) {
	f := newCommandsFixture(t)
	ctx := context.Background()
	remote := f.claim("PRODUCE", "", "remote")
	if err := f.engine.Checkpoint(ctx, remote, `{"committed":300,"transactions":3,"bytes":4800,"firstMsgId":"AQ==","lastMsgId":"Ag=="}`); err != nil {
		t.Fatal(err)
	}
	reply := `{"operationType":"PRODUCE","idempotencyKey":"done","status":"COMPLETED","result":{"enqueued":10}}`
	if _, err := f.engine.Complete(ctx, f.claim("PRODUCE", "", "done"), idempotency.Response{Payload: reply, HTTPStatus: 201}); err != nil {
		t.Fatal(err)
	}
	failure := `{"operationType":"PRODUCE","idempotencyKey":"full","status":"FAILED","result":null,` +
		`"progress":{"total":1000000,"done":5230,"committed":5000,"firstMsgId":"AQ==","lastMsgId":"Ag==","resumable":true}}`
	if _, err := f.engine.Fail(ctx, f.claim("PRODUCE", "", "full"), "MQRC_Q_FULL", idempotency.Response{Payload: failure, HTTPStatus: 502}); err != nil {
		t.Fatal(err)
	}

	_, body, _ := f.get("admin", "/commands/PRODUCE/remote")
	if got := jsonOf(t, body["progress"]); got != `{"committed":300,"done":300,"firstMsgId":"AQ==","lastMsgId":"Ag=="}` {
		t.Errorf("remote progress %s, want the checkpoint's 300", got)
	}
	_, body, _ = f.get("admin", "/commands/PRODUCE/done")
	if body["status"] != "COMPLETED" || jsonOf(t, body["result"]) != canonical(t, []byte(reply)) || body["lease"] != nil || body["progress"] != nil {
		t.Errorf("completed: %v", body)
	}
	_, body, _ = f.get("admin", "/commands/PRODUCE/full")
	if body["status"] != "FAILED" || jsonOf(t, body["result"]) != canonical(t, []byte(failure)) ||
		jsonOf(t, body["progress"]) != `{"committed":5000,"done":5230,"firstMsgId":"AQ==","lastMsgId":"Ag==","resumable":true,"total":1000000}` {
		t.Errorf("failed: %v", body)
	}
}

func TestGetCommandRefusesBadInput(t *testing.T) {
	f := newCommandsFixture(t)
	for _, tc := range []struct{ path, field string }{
		{"/commands/produce/k1", "operationType"},
		{"/commands/STOP_TEST/k1", "operationType"},
		{"/commands/PRODUCE/" + strings.Repeat("k", 256), "key"},
		{"/commands/PRODUCE/bad%0Akey", "key"},
	} {
		code, body, ctype := f.get("admin", tc.path)
		errs := jsonOf(t, body["errors"])
		if code != http.StatusBadRequest || ctype != "application/problem+json" || !strings.Contains(errs, `"path":"`+tc.field+`"`) {
			t.Errorf("GET %.40s: %d %s %v, want 400 naming %s", tc.path, code, ctype, body, tc.field)
		}
	}
}

// unreachableStore fails every read, as a store that is down does.
type unreachableStore struct{ *memory.Store }

func (unreachableStore) Get(context.Context, string) (idempotency.Record, bool, error) {
	return idempotency.Record{}, false, errors.New("dial tcp 10.0.0.5:5432: connection refused")
}

// TestGetCommandStoreDownIs503WithRetryAfter: as the OpenAPI says, and as
// the record routes answer.
func TestGetCommandStoreDownIs503WithRetryAfter(t *testing.T) {
	engine, err := idempotency.New(unreachableStore{memory.New()}, idempotency.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	handler := httpapi.Handler(httpapi.Config{Executor: countsOnly{}, Records: engine, Settings: httpapi.Settings{AuthToken: "admin"}})
	req := httptest.NewRequest(http.MethodGet, "/commands/PRODUCE/k1", nil)
	req.Header.Set("Authorization", "Bearer admin")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("GET /commands with the store down: %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}
