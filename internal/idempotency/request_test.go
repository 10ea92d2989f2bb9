package idempotency_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
)

// TestPKFormat: the implicit tenant's record key is unchanged,
// <operationType>#<key>; a named tenant's is <operationType>@<tenant>#<key>.
func TestPKFormat(t *testing.T) {
	if got := idempotency.PK("PRODUCE", "", "order-42"); got != "PRODUCE#order-42" {
		t.Errorf("implicit tenant: %q", got)
	}
	if got := idempotency.PK("PRODUCE", "team-a", "order-42"); got != "PRODUCE@team-a#order-42" {
		t.Errorf("named tenant: %q", got)
	}
}

// FuzzPKScopesNeverMeet: whatever printable keys are crafted, a record key
// of one tenant is never a record key of another: the part before the first
// '#' is the operation type alone for the implicit tenant and holds '@' for
// a named one.
func FuzzPKScopesNeverMeet(f *testing.F) {
	f.Add("team-a#x", "x", "team-a")
	f.Add("@team-a#x", "x", "team-a")
	f.Add("x", "x", "team-a")
	f.Add("team-a/x", "x", "team-a")
	f.Add("PRODUCE@team-a#x", "x", "team-b")
	f.Fuzz(func(t *testing.T, implicitKey, key, name string) {
		if idempotency.ValidateKey(implicitKey) != nil || idempotency.ValidateKey(key) != nil || !validTenant(name) {
			return
		}
		for _, op := range []string{"PRODUCE", "TEST"} {
			if idempotency.PK(op, "", implicitKey) == idempotency.PK(op, name, key) {
				t.Fatalf("implicit key %q and tenant %q's key %q share the record key %q", implicitKey, name, key, idempotency.PK(op, name, key))
			}
			if other := name + "x"; idempotency.PK(op, other, implicitKey) == idempotency.PK(op, name, key) {
				t.Fatalf("tenants %q and %q share the record key %q", other, name, idempotency.PK(op, name, key))
			}
		}
	})
}

func validTenant(name string) bool {
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

// TestTenantIsChecked: a tenant that could forge another scope's record key
// is refused before anything is written.
func TestTenantIsChecked(t *testing.T) {
	e := newEngine(t, memory.New(), idempotency.Config{})
	for _, tenant := range []string{"a#b", "A", "a@b", "a/b"} {
		r := req("k")
		r.Tenant = tenant
		_, err := e.Begin(t.Context(), r)
		var ae *idempotency.ArgumentError
		if !errors.As(err, &ae) || ae.Arg != idempotency.ArgTenant {
			t.Errorf("tenant %q: %v, want an ArgumentError on %s", tenant, err, idempotency.ArgTenant)
		}
	}
}
