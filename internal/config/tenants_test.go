package config

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// TestTenantsLoad: http.tokens is read from the file, and a tenant declared
// there takes its fields from variables too; one declared nowhere cannot.
func TestTenantsLoad(t *testing.T) {
	path := writeYAML(t, `
http:
  addr: 0.0.0.0:8080
  tokens:
    team-a:
      tokenRef: env:TEAM_A_TOKEN
      profiles: ["lab-*"]
    team-b:
      tokenRef: file:/etc/mqprobe/team-b.token
      inline: true
targets:
  profiles:
    lab-1: {queueManager: QM1, queue: DEV.QUEUE.1}
`)
	c := mustLoad(t, path, "MQPROBE_HTTP_TOKENS_TEAM_B_PROFILES=lab-1")
	a, b := c.HTTP.Tokens["team-a"], c.HTTP.Tokens["team-b"]
	if a.TokenRef != "env:TEAM_A_TOKEN" || len(a.Profiles) != 1 || a.Profiles[0] != "lab-*" || a.Inline {
		t.Errorf("team-a = %+v", a)
	}
	if b.TokenRef != "file:/etc/mqprobe/team-b.token" || len(b.Profiles) != 1 || b.Profiles[0] != "lab-1" || !b.Inline {
		t.Errorf("team-b = %+v", b)
	}
	// A public bind with tenants only needs no http.authToken.
	if c.HTTP.AuthToken != "" {
		t.Errorf("authToken %q", c.HTTP.AuthToken)
	}
	_, err := Load("", []string{"MQPROBE_HTTP_TOKENS_TEAM_C_TOKENREF=env:X"})
	wantErr(t, err, "MQPROBE_HTTP_TOKENS_TEAM_C_TOKENREF", "a tenant must be declared in the config file")
}

// TestTenantsValidate: every broken tenant rule names its key, and a token
// pasted where its reference belongs is refused without being echoed.
func TestTenantsValidate(t *testing.T) {
	cases := []struct {
		name   string
		tokens map[string]tenant.Config
		key    string
		rule   string
	}{
		{"upper-case name", map[string]tenant.Config{"Team-A": {TokenRef: "env:A"}}, "http.tokens.Team-A", "tenant name must be 1-28 of a-z 0-9 -"},
		{"leading dash", map[string]tenant.Config{"-a": {TokenRef: "env:A"}}, "http.tokens.-a", "starting with a letter or digit"},
		{"name too long", map[string]tenant.Config{strings.Repeat("a", 29): {TokenRef: "env:A"}}, "http.tokens." + strings.Repeat("a", 29), "1-28"},
		{"reserved name", map[string]tenant.Config{"default": {TokenRef: "env:A"}}, "http.tokens.default", "reserved for the implicit tenant"},
		{"no tokenRef", map[string]tenant.Config{"a": {}}, "http.tokens.a.tokenRef", "required"},
		{"literal token", map[string]tenant.Config{"a": {TokenRef: "s3cret-literal"}}, "http.tokens.a.tokenRef", "must be a reference env:NAME, file:/path or secret://name"},
		{"shared token", map[string]tenant.Config{"a": {TokenRef: "env:SHARED"}, "b": {TokenRef: "env:SHARED"}}, "http.tokens.b.tokenRef", "same reference as http.tokens.a.tokenRef"},
		{"bad pattern", map[string]tenant.Config{"a": {TokenRef: "env:A", Profiles: []string{"lab/1"}}}, "http.tokens.a.profiles[0]", "must be a non-empty pattern"},
		{"pattern naming nothing", map[string]tenant.Config{"a": {TokenRef: "env:A", Profiles: []string{"lab-1", "prod-*"}}}, "http.tokens.a.profiles[1]", `matches no profile of targets.profiles (got "prod-*")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			setProfile(c, "lab-1", targets.ProfileConfig{QueueManager: "QM1", Queue: "DEV.QUEUE.1"})
			c.HTTP.Tokens = tc.tokens
			err := c.Validate()
			if !hasFieldError(err, tc.key, tc.rule) {
				t.Errorf("Validate() = %v; want a *FieldError for %s containing %q", err, tc.key, tc.rule)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret-literal") {
				t.Errorf("the error echoes the pasted token: %v", err)
			}
		})
	}

	// http.tokens alone is enough for a public bind, and may go with http.authToken.
	for _, authToken := range []string{"", "implicit-token"} {
		c := Default()
		setProfile(c, "lab-1", targets.ProfileConfig{QueueManager: "QM1", Queue: "DEV.QUEUE.1"})
		c.HTTP.Addr, c.HTTP.AuthToken = "0.0.0.0:8080", authToken
		c.HTTP.Tokens = map[string]tenant.Config{"team-a": {TokenRef: "env:A", Profiles: []string{"lab-?"}}, "b": {TokenRef: "file:/b", Inline: true}}
		if err := c.Validate(); err != nil {
			t.Errorf("tenants with authToken %q: %v", authToken, err)
		}
	}
}
