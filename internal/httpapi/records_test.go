package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// recordsAPI is the API over an engine on a memory store whose clock the
// test moves, with the implicit tenant's token and team-a's, and the
// engine's log (the audit lines) in a buffer.
type recordsAPI struct {
	t       *testing.T
	engine  *idempotency.Engine
	clock   *storetest.Clock
	handler http.Handler
	log     *bytes.Buffer
}

const recordLease = time.Hour

func newRecordsAPI(t *testing.T) *recordsAPI {
	// The clock starts at the wall clock's now: Retry-After counts from it.
	a := &recordsAPI{t: t, clock: storetest.NewClock(time.Now()), log: &bytes.Buffer{}}
	var err error
	a.engine, err = idempotency.New(memory.New(), idempotency.Config{Lease: recordLease, Clock: a.clock},
		slog.New(slog.NewJSONHandler(a.log, nil)), idempotency.WithHolder("instance-7"), idempotency.WithCheckpointReader(committedCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	a.handler = httpapi.Handler(httpapi.Config{Executor: &tenantRecorder{}, Records: a.engine, Settings: httpapi.Settings{AuthToken: "implicit-token"},
		Credentials: []httpapi.Credential{{Token: "token-a", Tenant: tenant.Tenant{Name: "team-a"}}}})
	return a
}

// claim begins a command of the tenant; status COMPLETED or FAILED
// finishes it, IN_PROGRESS leaves it running with a live lease.
func (a *recordsAPI) claim(op, tenantName, key string, status idempotency.Status) idempotency.Record {
	a.t.Helper()
	ctx := context.Background()
	res, err := a.engine.Begin(ctx, idempotency.Request{OperationType: op, Tenant: tenantName, IdempotencyKey: key,
		RequestHash: "hash-" + key, Target: "QM1:DEV.QUEUE.1"})
	if err != nil || res.Outcome != idempotency.Acquired {
		a.t.Fatalf("Begin(%s %s): %v %v", op, key, res.Outcome, err)
	}
	switch status {
	case idempotency.StatusCompleted:
		rec, err := a.engine.Complete(ctx, res.Lease, idempotency.Response{Payload: `{"status":"COMPLETED","result":{"enqueued":3}}`, HTTPStatus: 201})
		if err != nil {
			a.t.Fatal(err)
		}
		return rec
	case idempotency.StatusFailed:
		rec, err := a.engine.Fail(ctx, res.Lease, "MQRC_Q_FULL",
			idempotency.Response{Payload: `{"status":"FAILED","progress":{"committed":5}}`, HTTPStatus: 502})
		if err != nil {
			a.t.Fatal(err)
		}
		return rec
	}
	if err := a.engine.Checkpoint(ctx, res.Lease, `{"committed":2}`); err != nil {
		a.t.Fatal(err)
	}
	rec, _, err := a.engine.Inspect(ctx, op, tenantName, key)
	if err != nil {
		a.t.Fatal(err)
	}
	return rec
}

// committedCheckpoint reads the checkpoints claim writes, {"committed":N}:
// resumable when N > 0, as PRODUCE's are.
func committedCheckpoint(_, progress string) (int, bool) {
	var cp struct{ Committed int }
	if json.Unmarshal([]byte(progress), &cp) != nil {
		return 0, false
	}
	return cp.Committed, cp.Committed > 0
}

func (a *recordsAPI) do(method, target, token string) *httptest.ResponseRecorder {
	a.t.Helper()
	req := httptest.NewRequest(method, target, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	a.handler.ServeHTTP(rec, req)
	return rec
}

func decodeBody(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	return body
}

func TestRecordRoutesNeedAToken(t *testing.T) {
	a := newRecordsAPI(t)
	a.claim("PRODUCE", "", "k1", idempotency.StatusCompleted)
	for _, r := range []struct{ method, target string }{
		{http.MethodGet, "/idempotency"}, {http.MethodGet, "/idempotency/PRODUCE/k1"}, {http.MethodDelete, "/idempotency/PRODUCE/k1?force=true"},
	} {
		for _, token := range []string{"", "wrong"} {
			if rec := a.do(r.method, r.target, token); rec.Code != http.StatusUnauthorized {
				t.Errorf("%s %s with token %q: %d, want 401", r.method, r.target, token, rec.Code)
			}
		}
	}
	if _, ok, _ := a.engine.Inspect(context.Background(), "PRODUCE", "", "k1"); !ok {
		t.Error("an unauthenticated DELETE evicted the record")
	}
}

func TestInspectRecordShowsItWithoutTheLeaseToken(t *testing.T) {
	a := newRecordsAPI(t)
	done := a.claim("PRODUCE", "", "k1", idempotency.StatusCompleted)
	running := a.claim("PRODUCE", "team-a", "k1", idempotency.StatusInProgress)
	failed := a.claim("DEPTH", "", "k3", idempotency.StatusFailed)

	rec := a.do(http.MethodGet, "/idempotency/PRODUCE/k1", "implicit-token")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET: %d %s", rec.Code, rec.Body)
	}
	if got, want := rec.Header().Get("Idempotency-Expiry"), idempotency.FormatTime(done.ExpiresAt); got != want {
		t.Errorf("Idempotency-Expiry %q, want the record's expiresAt %q", got, want)
	}
	body := decodeBody(t, rec)
	for field, want := range map[string]any{"status": "COMPLETED", "operationType": "PRODUCE", "idempotencyKey": "k1",
		"attempt": 1.0, "requestHash": "hash-k1", "createdAt": idempotency.FormatTime(done.CreatedAt),
		"expiresAt": idempotency.FormatTime(done.ExpiresAt), "httpStatus": 201.0, "target": "QM1:DEV.QUEUE.1"} {
		if body[field] != want {
			t.Errorf("%s = %v, want %v", field, body[field], want)
		}
	}
	if resp, _ := body["response"].(map[string]any); resp["result"].(map[string]any)["enqueued"] != 3.0 {
		t.Errorf("response %v, want the recorded result as JSON", body["response"])
	}
	if _, ok := body["tenant"]; ok {
		t.Errorf("implicit tenant's record shows tenant %v", body["tenant"])
	}
	if strings.Contains(rec.Body.String(), done.LeaseToken) || strings.Contains(rec.Body.String(), "leaseToken") {
		t.Errorf("the lease token is shown: %s", rec.Body)
	}

	// team-a sees its own record under the same key, never the implicit one's.
	body = decodeBody(t, a.do(http.MethodGet, "/idempotency/PRODUCE/k1", "token-a"))
	if body["status"] != "IN_PROGRESS" || body["tenant"] != "team-a" ||
		body["leaseExpiresAt"] != idempotency.FormatTime(running.LeaseExpiresAt) || body["leaseHolder"] != "instance-7" || body["progress"].(map[string]any)["committed"] != 2.0 {
		t.Errorf("team-a's record: %v", body)
	}
	if rec := a.do(http.MethodGet, "/idempotency/DEPTH/k3", "token-a"); rec.Code != http.StatusNotFound {
		t.Errorf("team-a read the implicit tenant's DEPTH/k3: %d %s", rec.Code, rec.Body)
	}
	body = decodeBody(t, a.do(http.MethodGet, "/idempotency/DEPTH/k3", "implicit-token"))
	if body["status"] != "FAILED" || body["errorMessage"] != "MQRC_Q_FULL" || body["updatedAt"] != idempotency.FormatTime(failed.UpdatedAt) ||
		body["httpStatus"] != 502.0 || body["response"].(map[string]any)["progress"].(map[string]any)["committed"] != 5.0 {
		t.Errorf("failed record: %v", body)
	}

	rec = a.do(http.MethodGet, "/idempotency/produce/k1", "implicit-token")
	if rec.Code != http.StatusBadRequest || rec.Header().Get("Content-Type") != "application/problem+json" ||
		decodeBody(t, rec)["errors"].([]any)[0].(map[string]any)["path"] != "operationType" {
		t.Errorf("lower-case operation type: %d %s, want 400 naming operationType", rec.Code, rec.Body)
	}
	a.clock.Advance(24 * time.Hour)
	if rec := a.do(http.MethodGet, "/idempotency/PRODUCE/k1", "implicit-token"); rec.Code != http.StatusNotFound {
		t.Errorf("expired record: %d, want 404", rec.Code)
	}
}

// listKeys pages through GET /idempotency?query with the token and returns
// the keys listed, failing on a page over limit.
func (a *recordsAPI) listKeys(query url.Values, token string, limit int) []string {
	a.t.Helper()
	query.Set("limit", strconv.Itoa(limit))
	var keys []string
	for range 50 {
		rec := a.do(http.MethodGet, "/idempotency?"+query.Encode(), token)
		if rec.Code != http.StatusOK {
			a.t.Fatalf("GET /idempotency?%s: %d %s", query.Encode(), rec.Code, rec.Body)
		}
		body := decodeBody(a.t, rec)
		records := body["records"].([]any)
		if len(records) > limit {
			a.t.Fatalf("page of %d records, limit %d", len(records), limit)
		}
		for _, r := range records {
			r := r.(map[string]any)
			keys = append(keys, r["operationType"].(string)+"/"+r["idempotencyKey"].(string))
		}
		cursor := body["nextCursor"].(string)
		if cursor == "" {
			slices.Sort(keys)
			return keys
		}
		query.Set("cursor", cursor)
	}
	a.t.Fatal("listing never ended")
	return nil
}

func TestListRecordsFiltersAndPagesPerTenant(t *testing.T) {
	a := newRecordsAPI(t)
	a.claim("PRODUCE", "", "stuck", idempotency.StatusInProgress)
	a.claim("PRODUCE", "", "done", idempotency.StatusCompleted)
	a.claim("DEPTH", "", "depth", idempotency.StatusFailed)
	a.claim("PRODUCE", "team-a", "theirs", idempotency.StatusInProgress)
	a.clock.Advance(10 * time.Minute)
	freshAt := idempotency.FormatTime(a.clock.Now())
	a.claim("PRODUCE", "", "fresh", idempotency.StatusInProgress)

	all := []string{"DEPTH/depth", "PRODUCE/done", "PRODUCE/fresh", "PRODUCE/stuck"}
	for _, limit := range []int{1, 2, 100} {
		if got := a.listKeys(url.Values{}, "implicit-token", limit); !slices.Equal(got, all) {
			t.Errorf("limit %d: %v, want %v", limit, got, all)
		}
	}
	for query, want := range map[string][]string{
		"status=IN_PROGRESS":                                         {"PRODUCE/fresh", "PRODUCE/stuck"},
		"status=IN_PROGRESS&olderThan=PT5M":                          {"PRODUCE/stuck"},
		"status=IN_PROGRESS&operationType=PRODUCE&olderThan=PT9M59S": {"PRODUCE/stuck"},
		"operationType=DEPTH":                                        {"DEPTH/depth"},
		"olderThan=PT11M":                                            nil,
		"target=QM1":                                                 all,
		"target=QM1:DEV.QUEUE.1&status=IN_PROGRESS":                  {"PRODUCE/fresh", "PRODUCE/stuck"},
		"target=QM1:DEV.QUEUE.2":                                     nil,
		"target=QM2":                                                 nil,
		"since=" + freshAt:                                           {"PRODUCE/fresh"},
		"until=" + freshAt + "&operationType=PRODUCE":                {"PRODUCE/done", "PRODUCE/stuck"},
	} {
		q, _ := url.ParseQuery(query)
		if got := a.listKeys(q, "implicit-token", 10); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", query, got, want)
		}
	}
	// Newest first.
	if rec := a.do(http.MethodGet, "/idempotency?status=IN_PROGRESS", "implicit-token"); rec.Code != http.StatusOK {
		t.Errorf("GET /idempotency?status=IN_PROGRESS: %d %s", rec.Code, rec.Body)
	} else if records := decodeBody(t, rec)["records"].([]any); len(records) != 2 ||
		records[0].(map[string]any)["idempotencyKey"] != "fresh" || records[1].(map[string]any)["idempotencyKey"] != "stuck" {
		t.Errorf("IN_PROGRESS records %v, want fresh, then stuck", records)
	}
	if got := a.listKeys(url.Values{}, "token-a", 10); !slices.Equal(got, []string{"PRODUCE/theirs"}) {
		t.Errorf("team-a lists %v, want only its own record", got)
	}

	for query, field := range map[string]string{
		"limit=0": "limit", "limit=1001": "limit", "limit=ten": "limit", "olderThan=10m": "olderThan",
		"status=DONE": "status", "operationType=produce": "operationType", "cursor=not*a*cursor": "cursor", "tenant=team-a": "tenant",
		"target=QM1:DEV%20QUEUE": "target", "target=:DEV.QUEUE.1": "target", "since=yesterday": "since", "until=2026-11-27": "until",
		"since=2026-11-27T10:00:00Z&until=2026-11-27T09:00:00Z": "until",
	} {
		rec := a.do(http.MethodGet, "/idempotency?"+query, "implicit-token")
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", query, rec.Code, rec.Body)
			continue
		}
		p := decodeBody(t, rec)
		if errs, _ := p["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["path"] != field ||
			!strings.HasPrefix(p["detail"].(string), field+" ") {
			t.Errorf("%s: problem %v, want one naming %s and its rule", query, p, field)
		}
	}
}

// auditLines returns the engine's evict audit lines.
func (a *recordsAPI) auditLines() []map[string]any {
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(a.log.Bytes()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			a.t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if line["msg"] == "evict" {
			lines = append(lines, line)
		}
	}
	return lines
}

func TestEvictRecord(t *testing.T) {
	a := newRecordsAPI(t)
	running := a.claim("PRODUCE", "", "running", idempotency.StatusInProgress)
	a.claim("PRODUCE", "", "done", idempotency.StatusCompleted)

	rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/running", "implicit-token")
	if rec.Code != http.StatusConflict || decodeBody(t, rec)["type"] != "https://mqprobe.dev/problems/lease-alive" ||
		rec.Header().Get("Retry-After") != "7200" || rec.Header().Get("Idempotency-Expiry") != idempotency.FormatTime(running.ExpiresAt) {
		t.Errorf("evicting a live lease: %d %v %s, want 409 lease-alive with Retry-After 7200 (lease and takeover grace)", rec.Code, rec.Header(), rec.Body)
	}
	if _, ok, _ := a.engine.Inspect(context.Background(), "PRODUCE", "", "running"); !ok {
		t.Fatal("the refused eviction deleted the record")
	}
	if rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/running?force=maybe", "implicit-token"); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "force must be true or false") {
		t.Errorf("force=maybe: %d %s", rec.Code, rec.Body)
	}
	// team-a cannot see, so cannot evict, the implicit tenant's records.
	if rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/done", "token-a"); rec.Code != http.StatusNotFound {
		t.Errorf("team-a evicting another tenant's record: %d %s, want 404", rec.Code, rec.Body)
	}
	if rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/done", "implicit-token"); rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Errorf("evicting a COMPLETED record: %d %s, want 204", rec.Code, rec.Body)
	}
	if rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/running?force=true", "implicit-token"); rec.Code != http.StatusNoContent {
		t.Errorf("forced eviction: %d %s, want 204", rec.Code, rec.Body)
	}
	for _, key := range []string{"done", "running"} {
		if rec := a.do(http.MethodGet, "/idempotency/PRODUCE/"+key, "implicit-token"); rec.Code != http.StatusNotFound {
			t.Errorf("%s after eviction: %d, want 404", key, rec.Code)
		}
		if rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/"+key, "implicit-token"); rec.Code != http.StatusNotFound {
			t.Errorf("evicting %s again: %d, want 404", key, rec.Code)
		}
	}

	type audit struct {
		key, tenant, outcome string
		forced, leaseAlive   bool
	}
	var got []audit
	for _, l := range a.auditLines() {
		if !strings.HasPrefix(l["by"].(string), "http ") || l["operation"] != "PRODUCE" {
			t.Errorf("audit line %v: want by http and operation PRODUCE", l)
		}
		got = append(got, audit{l["key"].(string), l["tenant"].(string), l["outcome"].(string), l["forced"].(bool), l["lease_alive"] == true})
	}
	want := []audit{
		{"running", "default", "refused_lease_alive", false, false},
		{"done", "team-a", "not_found", false, false},
		{"done", "default", "evicted", false, false},
		{"running", "default", "evicted", true, true},
		{"done", "default", "not_found", false, false},
		{"running", "default", "not_found", false, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit lines\n %v\nwant\n %v", got, want)
	}
}

// TestEvictRefusesAResumableRecord: a FAILED record whose checkpoint the
// next copy resumes from answers 409 resumable naming the committed
// messages, until forced; the audit lines say what was refused and forced.
func TestEvictRefusesAResumableRecord(t *testing.T) {
	a := newRecordsAPI(t)
	ctx := context.Background()
	res, err := a.engine.Begin(ctx, idempotency.Request{OperationType: "PRODUCE", IdempotencyKey: "half", RequestHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.engine.Checkpoint(ctx, res.Lease, `{"committed":200}`); err != nil {
		t.Fatal(err)
	}
	failed, err := a.engine.Fail(ctx, res.Lease, "MQRC_Q_FULL", idempotency.Response{})
	if err != nil {
		t.Fatal(err)
	}
	rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/half", "implicit-token")
	body := decodeBody(t, rec)
	if rec.Code != http.StatusConflict || body["type"] != "https://mqprobe.dev/problems/resumable" || body["committed"] != float64(200) ||
		!strings.Contains(body["detail"].(string), "200 committed messages") || rec.Header().Get("Idempotency-Expiry") != idempotency.FormatTime(failed.ExpiresAt) {
		t.Fatalf("evicting a resumable record: %d %v %s, want 409 resumable naming 200 committed", rec.Code, rec.Header(), rec.Body)
	}
	if rec := a.do(http.MethodDelete, "/idempotency/PRODUCE/half?force=true", "implicit-token"); rec.Code != http.StatusNoContent {
		t.Fatalf("forced eviction: %d %s, want 204", rec.Code, rec.Body)
	}
	var outcomes []string
	for _, l := range a.auditLines() {
		outcomes = append(outcomes, fmt.Sprintf("%v committed=%v", l["outcome"], l["committed"]))
	}
	if want := []string{"refused_resumable committed=200", "evicted committed=200"}; !slices.Equal(outcomes, want) {
		t.Errorf("audit lines %v, want %v", outcomes, want)
	}
}

// TestRecordRoutesRejectUnknownParameters: every record route names the
// query parameter it does not know, as GET /idempotency does.
func TestRecordRoutesRejectUnknownParameters(t *testing.T) {
	a := newRecordsAPI(t)
	a.claim("PRODUCE", "", "k1", idempotency.StatusCompleted)
	for _, r := range []struct{ method, target, param string }{
		{http.MethodGet, "/idempotency?forse=true", "forse"},
		{http.MethodGet, "/idempotency/PRODUCE/k1?verbose=1", "verbose"},
		{http.MethodDelete, "/idempotency/PRODUCE/k1?forse=true", "forse"},
	} {
		rec := a.do(r.method, r.target, "implicit-token")
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"path":"`+r.param+`"`) {
			t.Errorf("%s %s: %d %s, want 400 naming %s", r.method, r.target, rec.Code, rec.Body, r.param)
		}
	}
	if _, ok, _ := a.engine.Inspect(context.Background(), "PRODUCE", "", "k1"); !ok {
		t.Error("a DELETE with a misspelt parameter evicted the record")
	}
}
