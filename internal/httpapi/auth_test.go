package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// tenantRecorder is an executor that completes every command and records
// the tenant it ran for.
type tenantRecorder struct {
	mu      sync.Mutex
	tenants []tenant.Tenant
}

func (x *tenantRecorder) Execute(ctx context.Context, _ command.Input) executor.Outcome {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.tenants = append(x.tenants, tenant.FromContext(ctx))
	return executor.Outcome{Status: result.StatusCompleted, HTTPStatus: http.StatusOK, Body: []byte(`{}`)}
}

func (x *tenantRecorder) Counts() map[string]int64 { return nil }

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
	h := httpapi.Handler(httpapi.Config{Executor: exec, AuthToken: "implicit-token",
		Tokens: []httpapi.Credential{{Token: "token-a", Tenant: teamA}, {Token: "token-b", Tenant: teamB}}})
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
		Tokens: []httpapi.Credential{{Token: "token-a", Tenant: tenant.Tenant{Name: "team-a"}}, {Token: "implicit-token"}},
		Submit: func(context.Context, []byte, map[string]string) (string, error) { submitted++; return "m1", nil }})
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
