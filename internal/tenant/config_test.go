package tenant_test

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/tenant"
)

func TestValidateTokensNamesEveryProblem(t *testing.T) {
	err := tenant.ValidateTokens(map[string]tenant.Config{
		"a":       {TokenRef: "env:A", Profiles: []string{"lab-*"}},
		"b":       {TokenRef: "env:A"},
		"Bad":     {TokenRef: "a-pasted-token"},
		"default": {TokenRef: "env:D", Profiles: []string{"nothing-*"}},
	}, []string{"lab-1"})
	for _, want := range []string{
		"http.tokens.b.tokenRef: same reference as http.tokens.a.tokenRef",
		"http.tokens.Bad: tenant name must be",
		"http.tokens.Bad.tokenRef: must be a reference",
		`http.tokens.default: tenant name "default" is reserved`,
		`http.tokens.default.profiles[0]: matches no profile of targets.profiles (got "nothing-*")`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nlacks %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "lab-*") {
		t.Errorf("a pattern matching a profile is refused: %v", err)
	}
	if got := (tenant.Config{Profiles: []string{"p"}, Inline: true}).Tenant("a"); got.Name != "a" || !got.Inline || got.Profiles[0] != "p" {
		t.Errorf("Tenant() = %+v", got)
	}
}
