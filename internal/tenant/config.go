package tenant

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// Config is one named tenant of the daemon's http.tokens, by name: its
// bearer token and what it may use (yaml and desc tags: see
// internal/config).
type Config struct {
	TokenRef string   `yaml:"tokenRef" secret:"true" desc:"Reference to the tenant's bearer token (env:NAME, file:/path or secret://name), resolved once at start; never the token"`
	Profiles []string `yaml:"profiles" desc:"Patterns (* and ?) of the targets.profiles names the tenant's targetRef may name (empty = none)"`
	Inline   bool     `yaml:"inline" desc:"Let the tenant name inline targets, within targets.allowInline and targets.inline"`
	Operator bool     `yaml:"operator" desc:"Let the tenant read every tenant's series on /metrics (others read only their own)"`
}

// Tenant is the tenant c configures under name.
func (c Config) Tenant(name string) Tenant {
	return Tenant{Name: name, Profiles: c.Profiles, Inline: c.Inline, Operator: c.Operator}
}

var profilePatternRE = regexp.MustCompile(`^[A-Za-z0-9._*?-]+$`)

// ValidateTokens checks http.tokens: valid names, each its own token
// reference, profile patterns that match one of profiles (the names of
// targets.profiles). Each error is a *configcheck.FieldError.
func ValidateTokens(tokens map[string]Config, profiles []string) error {
	var v configcheck.Errors
	byRef := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(tokens)) {
		tc, key := tokens[name], "http.tokens."+name
		if err := CheckName(name); err != nil {
			v.Fail(key, "%v", err)
		}
		switch {
		case tc.TokenRef == "":
			v.Fail(key+".tokenRef", "required: a reference env:NAME, file:/path or secret://name to the tenant's bearer token")
		case !secrets.IsReference(tc.TokenRef):
			targets.ValidateRef(&v, key+".tokenRef", tc.TokenRef)
		case byRef[tc.TokenRef] != "":
			v.Fail(key+".tokenRef", "same reference as http.tokens.%s.tokenRef: each tenant needs its own token", byRef[tc.TokenRef])
		default:
			byRef[tc.TokenRef] = name
		}
		v.Patterns(key+".profiles", tc.Profiles, profilePatternRE)
		for i, p := range tc.Profiles {
			// A pattern naming nothing is a typo, not a policy.
			if profilePatternRE.MatchString(p) && !slices.ContainsFunc(profiles, func(name string) bool { return targets.Match(p, name, false) }) {
				v.Fail(fmt.Sprintf("%s.profiles[%d]", key, i), "matches no profile of targets.profiles (got %q)", p)
			}
		}
	}
	return v.Err()
}
