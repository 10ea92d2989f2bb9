package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/tenant"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// Tokens of the tenants the tests configure.
const (
	tokenA        = "team-a-token-0d4c"
	tokenB        = "team-b-token-91fe"
	tokenImplicit = "implicit-token-5a77"
)

// auditLines returns the executor's "command" lines of a JSON log, decoded.
func auditLines(logs *testenv.Buffer) []map[string]any {
	var lines []map[string]any
	for _, line := range strings.Split(logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "command" {
			lines = append(lines, m)
		}
	}
	return lines
}

// startTenants runs a daemon with two named tenants and http.authToken:
// team-a (token from an env: reference) may use the lab-* profiles, team-b
// (token from a file: reference) profile lab-1 and inline targets. Its log
// is JSON into the returned buffer.
func startTenants(t *testing.T, mods ...func(*daemontest.Setup)) (*daemontest.Harness, *testenv.Buffer) {
	t.Helper()
	t.Setenv("MQPROBE_TEST_TOKEN_A", tokenA)
	tokenFile := filepath.Join(t.TempDir(), "team-b.token")
	if err := os.WriteFile(tokenFile, []byte(tokenB+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &testenv.Buffer{}
	setup := func(s *daemontest.Setup) {
		s.Opts.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		s.Cfg.HTTP.AuthToken = tokenImplicit
		s.Cfg.HTTP.Tokens = map[string]tenant.Config{
			"team-a": {TokenRef: "env:MQPROBE_TEST_TOKEN_A", Profiles: []string{"lab-*"}},
			"team-b": {TokenRef: "file:" + tokenFile, Profiles: []string{"lab-1"}, Inline: true},
		}
		s.Cfg.Targets.Profiles = map[string]targets.ProfileConfig{
			"lab-1": {QueueManager: "QM1", Queue: "DEV.QUEUE.1"},
			"ops":   {QueueManager: "QM1", Queue: "DEV.QUEUE.2"},
		}
	}
	return daemontest.Start(t, append([]func(*daemontest.Setup){setup}, mods...)...), logs
}

// as sends body to path with token as the bearer token.
func as(h *daemontest.Harness, token, path, body string, headers ...string) daemontest.Response {
	return h.Post(path, body, append([]string{"Authorization", "Bearer " + token}, headers...)...)
}

// getAs fetches path with token as the bearer token.
func getAs(t *testing.T, h *daemontest.Harness, token, path string) daemontest.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.Base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return daemontest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// resultsAs lists the result events of key that token's tenant sees.
func resultsAs(t *testing.T, h *daemontest.Harness, token, key string) []result.Event {
	t.Helper()
	r := getAs(t, h, token, "/results?limit=1000&idempotencyKey="+url.QueryEscape(key))
	if r.Status != http.StatusOK {
		t.Fatalf("results: %d %s", r.Status, r.Body)
	}
	var out struct{ Results []result.Event }
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Results
}

// TestTenantsKeepEqualKeysApart: two tenants and the implicit one send the
// same idempotency key with different bodies; each executes (no 409, no
// replay of another's result), each replays its own, and each sees only
// its own result events, which name it, as do the audit lines, the spans
// and the command metrics.
func TestTenantsKeepEqualKeysApart(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	h, logs := startTenants(t, daemontest.Recording(rec))
	const key = "shared-key-1"
	bodies := map[string]string{
		tokenA:        `{"targetRef":"lab-1","batch":{"count":1,"messageSizeBytes":16}}`,
		tokenB:        fmt.Sprintf(`{%s,"batch":{"count":2,"messageSizeBytes":16}}`, daemontest.Target),
		tokenImplicit: fmt.Sprintf(`{%s,"batch":{"count":3,"messageSizeBytes":16}}`, daemontest.Target),
	}
	first := map[string]daemontest.Response{}
	for _, token := range []string{tokenA, tokenB, tokenImplicit} {
		r := as(h, token, "/messages/produce", bodies[token], "Idempotency-Key", key)
		if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replay") != "" {
			t.Fatalf("first produce of %s: %d replay=%q %s", token, r.Status, r.Header.Get("Idempotent-Replay"), r.Body)
		}
		first[token] = r
	}
	for token, want := range map[string]float64{tokenA: 1, tokenB: 2, tokenImplicit: 3} {
		if got := first[token].JSON(t)["result"].(map[string]any)["enqueued"]; got != want {
			t.Errorf("%s enqueued %v, want %v", token, got, want)
		}
	}
	for _, token := range []string{tokenA, tokenB, tokenImplicit} {
		r := as(h, token, "/messages/produce", bodies[token], "Idempotency-Key", key)
		if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replay") != "true" || string(r.Body) != strings.Replace(string(first[token].Body), `"replay":false`, `"replay":true`, 1) {
			t.Errorf("repeat of %s: %d replay=%q %s; want its own first answer, replay true", token, r.Status, r.Header.Get("Idempotent-Replay"), r.Body)
		}
	}
	depth := as(h, tokenImplicit, "/queue/depth", `{`+daemontest.Target+`}`)
	if got := depth.JSON(t)["result"].(map[string]any)["currentDepth"]; got != float64(6) {
		t.Errorf("DEV.QUEUE.1 depth %v, want 6 (1+2+3, replays adding nothing)", got)
	}
	if data := first[tokenA].JSON(t); data["tenant"] != "team-a" {
		t.Errorf("team-a's answer has tenant %v", data["tenant"])
	}
	if data := first[tokenImplicit].JSON(t); data["tenant"] != nil {
		t.Errorf("the implicit tenant's answer has tenant %v, want none", data["tenant"])
	}

	// GET /results: each tenant its own events (first run and replay), each naming it.
	for token, tenant := range map[string]string{tokenA: "team-a", tokenB: "team-b", tokenImplicit: ""} {
		events := resultsAs(t, h, token, key)
		if len(events) != 2 {
			t.Errorf("tenant %q sees %d events of %s, want its 2", tenant, len(events), key)
		}
		for _, e := range events {
			if e.Data.Tenant != tenant {
				t.Errorf("tenant %q sees an event of tenant %q", tenant, e.Data.Tenant)
			}
		}
	}

	// Every audit line names its tenant.
	seen := map[string]int{}
	for _, line := range auditLines(logs) {
		tenant, ok := line["tenant"].(string)
		if !ok {
			t.Errorf("audit line without tenant: %v", line)
		}
		if line["key"] == key {
			seen[tenant]++
		}
	}
	if seen["team-a"] != 2 || seen["team-b"] != 2 || seen["default"] != 2 || len(seen) != 3 {
		t.Errorf("audit lines of %s by tenant: %v; want 2 each for team-a, team-b and default", key, seen)
	}
	if strings.Contains(logs.String(), tokenA) || strings.Contains(logs.String(), tokenB) {
		t.Error("a tenant's token reached the log")
	}

	// Spans and metrics: 2 commands each, plus the implicit tenant's depth.
	want := map[string]int{"team-a": 2, "team-b": 2, "default": 3}
	spans := map[string]int{}
	for _, span := range rec.Ended() {
		if span.Name() != "process" {
			continue
		}
		for _, kv := range span.Attributes() {
			if kv.Key == "mqprobe.tenant" {
				spans[kv.Value.AsString()]++
			}
		}
	}
	if fmt.Sprint(spans) != fmt.Sprint(want) {
		t.Errorf("process spans by mqprobe.tenant: %v, want %v", spans, want)
	}
	metrics := getAs(t, h, tokenImplicit, "/metrics")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(metrics.Body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	counted := map[string]int{}
	for _, m := range families["mqprobe_commands_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "tenant" {
				counted[l.GetValue()] += int(m.GetCounter().GetValue())
			}
		}
	}
	if fmt.Sprint(counted) != fmt.Sprint(want) {
		t.Errorf("mqprobe_commands_total by tenant: %v, want %v", counted, want)
	}
}

// TestTenantTargetPolicy: a tenant's command naming a profile outside its
// patterns, or an inline target without inline, is refused with
// TARGET_NOT_ALLOWED naming the tenant and the rule, before any connection;
// the implicit tenant keeps every target the daemon allows.
func TestTenantTargetPolicy(t *testing.T) {
	var counter *mqtest.CountingBackend
	h, logs := startTenants(t, func(s *daemontest.Setup) {
		counter = &mqtest.CountingBackend{Backend: s.Opts.Backend}
		s.Opts.Backend = counter
	})
	refused := []struct{ token, body, says string }{
		{tokenA, `{"targetRef":"ops"}`, `tenant "team-a" may not use target profile "ops": it matches no pattern of http.tokens.team-a.profiles`},
		{tokenA, `{` + daemontest.Target + `}`, `tenant "team-a" may not name inline targets (http.tokens.team-a.inline is false)`},
		{tokenB, `{"targetRef":"ops"}`, `tenant "team-b" may not use target profile "ops"`},
	}
	for i, tc := range refused {
		r := as(h, tc.token, "/queue/depth", tc.body, "Idempotency-Key", fmt.Sprintf("refused-%d", i))
		p := r.JSON(t)
		if r.Status != http.StatusUnprocessableEntity || p["code"] != "TARGET_NOT_ALLOWED" || !strings.Contains(p["detail"].(string), tc.says) {
			t.Errorf("%s %s: %d %s; want 422 TARGET_NOT_ALLOWED saying %s", tc.token, tc.body, r.Status, r.Body, tc.says)
		}
	}
	if n := counter.Connects.Load(); n != 0 {
		t.Fatalf("refused commands opened %d connections", n)
	}
	// The refusal is a rejected result event of the tenant, audited as such.
	events := resultsAs(t, h, tokenA, "refused-0")
	if len(events) != 1 || events[0].Data.Tenant != "team-a" || events[0].Data.Error == nil || events[0].Data.Error.Code != "TARGET_NOT_ALLOWED" {
		t.Errorf("team-a's refusal events: %+v", events)
	}
	var audited bool
	for _, line := range auditLines(logs) {
		audited = audited || line["key"] == "refused-0" && line["tenant"] == "team-a" && line["outcome"] == "rejected"
	}
	if !audited {
		t.Error("no audit line for team-a's refusal")
	}
	// What each may use runs; the implicit tenant keeps every target.
	for _, tc := range []struct{ token, body string }{
		{tokenA, `{"targetRef":"lab-1"}`},
		{tokenB, `{"targetRef":"lab-1"}`},
		{tokenB, `{` + daemontest.Target + `}`},
		{tokenImplicit, `{"targetRef":"ops"}`},
		{tokenImplicit, `{` + daemontest.Target + `}`},
	} {
		if r := as(h, tc.token, "/queue/depth", tc.body); r.Status != http.StatusOK {
			t.Errorf("%s %s: %d %s", tc.token, tc.body, r.Status, r.Body)
		}
	}
}

// TestTenantTestRuns: a TEST run is its tenant's: another tenant neither
// sees nor stops it, and may run its own under the same id.
func TestTenantTestRuns(t *testing.T) {
	h, _ := startTenants(t)
	const id = "probe-shared"
	long := `{"targetRef":"lab-1","durationSeconds":30,"batch":{"rateLimitPerSec":50}}`
	if r := as(h, tokenA, "/tests", long, "Idempotency-Key", id); r.Status != http.StatusAccepted {
		t.Fatalf("team-a's start: %d %s", r.Status, r.Body)
	}
	if r := getAs(t, h, tokenB, "/tests/"+id); r.Status != http.StatusNotFound {
		t.Errorf("team-b sees team-a's run: %d %s", r.Status, r.Body)
	}
	if r := as(h, tokenB, "/tests/"+id+"/stop", ""); r.Status != http.StatusNotFound {
		t.Errorf("team-b stops team-a's run: %d %s", r.Status, r.Body)
	}
	if r := as(h, tokenB, "/tests", long, "Idempotency-Key", id); r.Status != http.StatusAccepted {
		t.Fatalf("team-b's own run with the same id: %d %s", r.Status, r.Body)
	}
	for _, token := range []string{tokenA, tokenB} {
		// Stopped once it sends, the run ends COMPLETED with stopped: true.
		awaitRun(t, h, token, id, func(v testView) bool { return v.Status == "IN_PROGRESS" && v.Result != nil && v.Result.Sent > 0 })
		if r := as(h, token, "/tests/"+id+"/stop", ""); r.Status != http.StatusAccepted {
			t.Errorf("%s stops its run: %d %s", token, r.Status, r.Body)
		}
	}
	for _, token := range []string{tokenA, tokenB} {
		v := awaitRun(t, h, token, id, func(v testView) bool { return v.Status != "IN_PROGRESS" })
		if v.Status != "COMPLETED" || !v.Result.Stopped {
			t.Errorf("%s's stopped run: %+v %+v", token, v, v.Result)
		}
	}
}

// awaitRun polls token's GET /tests/{id} until done holds, failing t after 20 s.
func awaitRun(t *testing.T, h *daemontest.Harness, token, id string, done func(testView) bool) testView {
	t.Helper()
	var v testView
	testenv.Eventually(t, 20*time.Second, fmt.Sprintf("GET /tests/%s as %s answering the awaited state", id, token), func() bool {
		r := getAs(t, h, token, "/tests/"+id)
		v = testView{}
		if r.Status != http.StatusOK || json.Unmarshal(r.Body, &v) != nil {
			t.Fatalf("GET /tests/%s as %s: %d %s", id, token, r.Status, r.Body)
		}
		return done(v)
	})
	return v
}

// TestTenantTokensResolveAtStart: tokens are read through their references
// once, at start; one that does not resolve, is empty, or repeats another
// tenant's (or http.authToken) stops the daemon naming the key, never the
// token.
func TestTenantTokensResolveAtStart(t *testing.T) {
	t.Setenv("MQPROBE_TEST_TOKEN_X", "same-token-value")
	t.Setenv("MQPROBE_TEST_TOKEN_EMPTY", "")
	sameFile := filepath.Join(t.TempDir(), "x.token")
	if err := os.WriteFile(sameFile, []byte("same-token-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		authToken string
		tokens    map[string]tenant.Config
		says      string
	}{
		{"unset variable", "", map[string]tenant.Config{"a": {TokenRef: "env:MQPROBE_TEST_TOKEN_UNSET"}},
			`http.tokens.a.tokenRef: secret reference does not resolve: "env:MQPROBE_TEST_TOKEN_UNSET": variable not set`},
		{"empty token", "", map[string]tenant.Config{"a": {TokenRef: "env:MQPROBE_TEST_TOKEN_EMPTY"}},
			`http.tokens.a.tokenRef: "env:MQPROBE_TEST_TOKEN_EMPTY" resolves to an empty token`},
		{"two tenants, one token", "", map[string]tenant.Config{"a": {TokenRef: "env:MQPROBE_TEST_TOKEN_X"}, "b": {TokenRef: "file:" + sameFile}},
			"http.tokens.b.tokenRef: resolves to the same token as http.tokens.a.tokenRef"},
		{"a tenant with http.authToken's token", "same-token-value", map[string]tenant.Config{"a": {TokenRef: "env:MQPROBE_TEST_TOKEN_X"}},
			"http.tokens.a.tokenRef: resolves to the same token as http.authToken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.HTTP.Addr = "127.0.0.1:0"
			cfg.Idempotency.Store = config.StoreMemory
			cfg.HTTP.AuthToken, cfg.HTTP.Tokens = tc.authToken, tc.tokens
			d, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test", Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err == nil {
				t.Fatalf("daemon.New succeeded (%s); want an error saying %s", d.Addr(), tc.says)
			}
			if !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "same-token-value") {
				t.Errorf("daemon.New: %v; want it to say %s without the token", err, tc.says)
			}
		})
	}
}
