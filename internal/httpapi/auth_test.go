package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// tenantRecorder is an executor that completes every command and records
// the tenant it ran for.
type tenantRecorder struct {
	mu      sync.Mutex
	tenants []tenant.Tenant
}

func (x *tenantRecorder) Execute(ctx context.Context, _ command.Input, _ ...executor.Option) executor.Outcome {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.tenants = append(x.tenants, tenant.FromContext(ctx))
	return executor.Outcome{Kind: outcome.Completed, Body: []byte(`{}`)}
}

func (x *tenantRecorder) Counts() map[string]int64 { return nil }

// LastHourCounts counts the commands tenant ran as its completed ones.
func (x *tenantRecorder) LastHourCounts(name string) map[string]int64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := int64(0)
	for _, t := range x.tenants {
		if t.Name == name {
			n++
		}
	}
	return map[string]int64{"completed": n}
}

func (x *tenantRecorder) last() tenant.Tenant {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.tenants[len(x.tenants)-1]
}

// TestBearerTokensNameTenants: each tenant's token runs its commands as that
// tenant, http.authToken as the implicit one; anything else is 401, the
// scheme in any case; health probes need no token.
func TestBearerTokensNameTenants(t *testing.T) {
	exec := &tenantRecorder{}
	teamA := tenant.Tenant{Name: "team-a", Profiles: []string{"lab-*"}}
	teamB := tenant.Tenant{Name: "team-b", Inline: true}
	h := httpapi.Handler(httpapi.Config{Executor: exec, Settings: httpapi.Settings{AuthToken: "implicit-token"},
		Credentials: []httpapi.Credential{{Token: "token-a", Tenant: teamA}, {Token: "token-b", Tenant: teamB}}})
	depth := func(authorization string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/queue/depth", strings.NewReader(`{}`))
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for authorization, want := range map[string]string{
		"Bearer token-a":        "team-a",
		"bearer token-b":        "team-b",
		"BEARER token-a":        "team-a",
		"Bearer implicit-token": "",
	} {
		rec := depth(authorization)
		if rec.Code != http.StatusOK {
			t.Errorf("%q: %d %s", authorization, rec.Code, rec.Body)
			continue
		}
		if got := exec.last(); got.Name != want {
			t.Errorf("%q ran as tenant %q, want %q", authorization, got.Name, want)
		}
	}
	depth("Bearer implicit-token")
	if got := exec.last(); got.Label() != tenant.Implicit {
		t.Errorf("http.authToken's tenant is labelled %q, want %q", got.Label(), tenant.Implicit)
	}
	depth("Bearer token-a")
	if got := exec.last(); len(got.Profiles) != 1 || got.Profiles[0] != "lab-*" || got.Inline {
		t.Errorf("team-a's policy did not travel with it: %+v", got)
	}
	ran := len(exec.tenants)
	for _, authorization := range []string{"", "Bearer", "Bearer ", "Bearer wrong", "Bearer TOKEN-A", "Basic token-a", "Bearer token-a2", "token-a"} {
		rec := depth(authorization)
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" || strings.Contains(rec.Body.String(), "token-") {
			t.Errorf("%q: %d %v %s; want 401 naming no token", authorization, rec.Code, rec.Header(), rec.Body)
		}
	}
	if len(exec.tenants) != ran {
		t.Errorf("refused requests ran %d commands", len(exec.tenants)-ran)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health/live", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("/health/live without a token: %d", rec.Code)
	}
}

// TestNamedTenantMayNotSubmitToTheBus: bus commands run as the implicit
// tenant, so POST /commands is the implicit tenant's alone.
func TestNamedTenantMayNotSubmitToTheBus(t *testing.T) {
	submitted := 0
	h := httpapi.Handler(httpapi.Config{Executor: &tenantRecorder{},
		Credentials: []httpapi.Credential{{Token: "token-a", Tenant: tenant.Tenant{Name: "team-a"}}, {Token: "implicit-token"}},
		Submit:      func(context.Context, []byte, map[string]string) (string, error) { submitted++; return "m1", nil }})
	for token, want := range map[string]int{"token-a": http.StatusForbidden, "implicit-token": http.StatusAccepted} {
		req := httptest.NewRequest(http.MethodPost, "/commands", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("%s: %d %s, want %d", token, rec.Code, rec.Body, want)
		}
	}
	if submitted != 1 {
		t.Errorf("%d commands reached the bus, want 1", submitted)
	}
}

// TestStatusShowsTheCallersOwn: GET /status shows each caller its own
// outcomes of the last hour and only the targets it may use: the embedded
// queue managers to callers that may name inline targets, the profiles its
// patterns match.
func TestStatusShowsTheCallersOwn(t *testing.T) {
	h := httpapi.Handler(httpapi.Config{Executor: &tenantRecorder{}, Settings: httpapi.Settings{AuthToken: "implicit-token"},
		Credentials: []httpapi.Credential{{Token: "token-a", Tenant: tenant.Tenant{Name: "team-a", Profiles: []string{"lab-*"}}},
			{Token: "token-b", Tenant: tenant.Tenant{Name: "team-b", Inline: true}}},
		Status: httpapi.StatusInfo{QueueManagers: []httpapi.QueueManagerInfo{{Name: "QM1", Queues: []string{"DEV.QUEUE.1"}}},
			Profiles: []httpapi.ProfileInfo{{Name: "lab-1", QueueManager: "QM1", Queue: "DEV.QUEUE.1"}, {Name: "prod", QueueManager: "QM9", Queue: "APP.IN"}}}})
	call := func(method, path, token string) []byte {
		req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			t.Fatalf("%s %s as %s: %d %s", method, path, token, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	call(http.MethodPost, "/queue/depth", "token-a")
	call(http.MethodPost, "/queue/depth", "token-a")
	call(http.MethodPost, "/queue/depth", "token-b")
	for token, want := range map[string]string{
		"implicit-token": `{"completed":0} {"profiles":[{"name":"lab-1","queueManager":"QM1","queue":"DEV.QUEUE.1"},{"name":"prod","queueManager":"QM9","queue":"APP.IN"}],"queueManagers":[{"name":"QM1","queues":["DEV.QUEUE.1"]}]}`,
		"token-a":        `{"completed":2} {"profiles":[{"name":"lab-1","queueManager":"QM1","queue":"DEV.QUEUE.1"}],"queueManagers":[]}`,
		"token-b":        `{"completed":1} {"profiles":[],"queueManagers":[{"name":"QM1","queues":["DEV.QUEUE.1"]}]}`,
	} {
		var status struct{ LastHour, Targets json.RawMessage }
		if err := json.Unmarshal(call(http.MethodGet, "/status", token), &status); err != nil {
			t.Fatal(err)
		}
		if got := string(status.LastHour) + " " + string(status.Targets); got != want {
			t.Errorf("GET /status as %s: lastHour and targets %s, want %s", token, got, want)
		}
	}
}

// TestConsoleNeedsNoTokenButTheAPIDoes: the console's pages hold no data,
// so they load without credentials; every API route behind them still asks
// for the token, and without a console / stays unrouted.
func TestConsoleNeedsNoTokenButTheAPIDoes(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "console "+r.URL.Path) })
	withConsole := httpapi.Handler(httpapi.Config{Executor: &tenantRecorder{}, Settings: httpapi.Settings{AuthToken: "implicit-token"}, Console: page})
	withoutConsole := httpapi.Handler(httpapi.Config{Executor: &tenantRecorder{}, Settings: httpapi.Settings{AuthToken: "implicit-token"}})
	get := func(h http.Handler, method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	for _, path := range []string{"/", "/ui/probes", "/ui/assets/app.js"} {
		if rec := get(withConsole, http.MethodGet, path); rec.Code != http.StatusOK || rec.Body.String() != "console "+path {
			t.Errorf("GET %s without a token: %d %s, want the console", path, rec.Code, rec.Body)
		}
		if rec := get(withoutConsole, http.MethodGet, path); rec.Code != http.StatusUnauthorized {
			t.Errorf("GET %s without a console or a token: %d, want 401", path, rec.Code)
		}
	}
	for _, path := range []string{"/status", "/results", "/openapi.json", "/idempotency"} {
		if rec := get(withConsole, http.MethodGet, path); rec.Code != http.StatusUnauthorized {
			t.Errorf("GET %s without a token beside the console: %d, want 401", path, rec.Code)
		}
	}
	if rec := get(withConsole, http.MethodPost, "/"); rec.Code != http.StatusUnauthorized {
		t.Errorf("POST / without a token: %d, want 401 (the console only answers GET)", rec.Code)
	}
}
