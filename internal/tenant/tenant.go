// Package tenant names whom a command runs for and which targets it may
// use. A named tenant is one bearer token of http.tokens; everything else —
// the bus, the single http.authToken, an API without authentication — is the
// implicit tenant, which may use every target the daemon allows.
package tenant

import (
	"context"
	"fmt"
	"regexp"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// Implicit is the implicit tenant's name in audit lines, spans and metric
// labels; no configured tenant may take it.
const Implicit = "default"

// MaxNameLength bounds a tenant name so that the longest scoped record key
// (CONNECTION_TEST@<tenant>#<255-character key>) fits the stores' 300-character pk.
const MaxNameLength = 28

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// CheckName says what is wrong with a configured tenant name, or nil.
func CheckName(name string) error {
	switch {
	case len(name) > MaxNameLength || !nameRE.MatchString(name):
		return fmt.Errorf("tenant name must be 1-%d of a-z 0-9 -, starting with a letter or digit (got %q)", MaxNameLength, name)
	case name == Implicit:
		return fmt.Errorf("tenant name %q is reserved for the implicit tenant (http.authToken and the bus)", name)
	}
	return nil
}

// Tenant is whom a command runs for. The zero value is the implicit tenant.
type Tenant struct {
	// Name is the http.tokens entry; empty for the implicit tenant. It
	// scopes the tenant's records, results and test runs.
	Name string
	// Profiles are patterns (* and ?) of the targets.profiles names the
	// tenant's targetRef may name.
	Profiles []string
	// Inline lets the tenant name inline targets, still within
	// targets.allowInline and targets.inline.
	Inline bool
	// Operator lets the tenant read every tenant's series on /metrics;
	// the others read only their own.
	Operator bool
}

// Named reports whether t is a configured tenant rather than the implicit one.
func (t Tenant) Named() bool { return t.Name != "" }

// Label is t's name in audit lines, spans and metric labels: Implicit for
// the implicit tenant.
func (t Tenant) Label() string {
	if t.Named() {
		return t.Name
	}
	return Implicit
}

// Authorize refuses, before anything runs, a command naming a target t may
// not use: a targetRef outside its profiles, or an inline target without
// inline. The implicit tenant may use every target the daemon allows.
func (t Tenant) Authorize(cmd command.Command) error {
	if !t.Named() {
		return nil
	}
	switch {
	case cmd.TargetRef != "":
		if t.MayUseProfile(cmd.TargetRef) {
			return nil
		}
		return fmt.Errorf("tenant %q may not use target profile %q: it matches no pattern of http.tokens.%s.profiles", t.Name, cmd.TargetRef, t.Name)
	case cmd.Target != nil && !t.Inline:
		return fmt.Errorf("tenant %q may not name inline targets (http.tokens.%s.inline is false): use a targetRef", t.Name, t.Name)
	}
	return nil
}

// MayUseProfile reports whether t's targetRef may name the target profile
// name: any for the implicit tenant, else one matching t's Profiles.
func (t Tenant) MayUseProfile(name string) bool {
	if !t.Named() {
		return true
	}
	for _, p := range t.Profiles {
		if targets.Match(p, name, false) {
			return true
		}
	}
	return false
}

type contextKey struct{}

// NewContext returns ctx carrying t: commands executed under it run for t.
func NewContext(ctx context.Context, t Tenant) context.Context {
	return context.WithValue(ctx, contextKey{}, t)
}

// FromContext returns the tenant ctx carries, or the implicit tenant.
func FromContext(ctx context.Context) Tenant {
	t, _ := ctx.Value(contextKey{}).(Tenant)
	return t
}
