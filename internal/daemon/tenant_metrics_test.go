package daemon_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// TestMetricsShowTenantsOnlyToOperators: /metrics tells a named tenant
// only about itself — its own series, no other tenant's, none of the
// daemon-wide ones — while the implicit tenant's token and a token marked
// operator read every tenant's series.
func TestMetricsShowTenantsOnlyToOperators(t *testing.T) {
	const tokenOps = "ops-token-7c21"
	t.Setenv("MQPROBE_TEST_TOKEN_OPS", tokenOps)
	h, _ := startTenants(t, func(s *daemontest.Setup) {
		s.Cfg.HTTP.Tokens["ops"] = tenant.Config{TokenRef: "env:MQPROBE_TEST_TOKEN_OPS", Operator: true}
	})
	for token, body := range map[string]string{tokenA: `{"targetRef":"lab-1"}`, tokenB: `{"targetRef":"lab-1"}`, tokenImplicit: `{` + daemontest.Target + `}`} {
		if r := as(h, token, "/queue/depth", body); r.Status != http.StatusOK {
			t.Fatalf("depth: %d %s", r.Status, r.Body)
		}
	}

	// tenants maps each tenant label on the page to its commands, and counts
	// the series without one under "".
	tenants := func(token string) map[string]int {
		t.Helper()
		r := getAs(t, h, token, "/metrics")
		if r.Status != http.StatusOK {
			t.Fatalf("/metrics: %d %s", r.Status, r.Body)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(r.Body))
		if err != nil {
			t.Fatalf("parse /metrics: %v", err)
		}
		seen := map[string]int{}
		for name, f := range families {
			for _, m := range f.GetMetric() {
				label := ""
				for _, l := range m.GetLabel() {
					if l.GetName() == "tenant" {
						label = l.GetValue()
					}
				}
				if name == "mqprobe_commands_total" {
					seen[label] += int(m.GetCounter().GetValue())
				} else if _, ok := seen[label]; !ok {
					seen[label] = 0
				}
			}
		}
		return seen
	}

	got := tenants(tokenB)
	if len(got) != 1 || got["team-b"] != 1 {
		t.Errorf("team-b's /metrics shows tenants %v; want only its own series (team-b: 1 command)", got)
	}
	if r := getAs(t, h, tokenB, "/metrics"); strings.Contains(string(r.Body), "team-a") || strings.Contains(string(r.Body), `tenant="default"`) {
		t.Errorf("team-b's /metrics names another tenant:\n%s", r.Body)
	}
	for token, who := range map[string]string{tokenImplicit: "the implicit tenant", tokenOps: "an operator token"} {
		got := tenants(token)
		if got["team-a"] != 1 || got["team-b"] != 1 || got["default"] != 1 {
			t.Errorf("/metrics read by %s shows commands by tenant %v; want team-a, team-b and default 1 each", who, got)
		}
		if _, ok := got[""]; !ok {
			t.Errorf("/metrics read by %s lacks the daemon-wide series", who)
		}
	}
}
