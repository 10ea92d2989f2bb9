package secrets_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// FuzzSecretRef: whatever reference an inline target names, canonicalizing
// and allowlisting it never panics; one that passes
// targets.inline.secretRefs is a reference without control characters, a
// file: one canonically inside the pattern's directory /srv/secrets, and the
// canonical form is a fixed point (the form matched is the form read).
func FuzzSecretRef(f *testing.F) {
	for _, seed := range []string{"file:/srv/secrets/qm1", "file:/srv/secrets/./qm1", "file:/srv/secrets//qm1#x",
		"file:/srv/secrets", "file:/srv/secretsX/qm1", "file:srv/secrets/qm1", "file:/srv/secrets/../../etc/shadow",
		"env:MQPROBE_FUZZ_PW", "env:MQPROBE_FUZZ_PW\n", "secret://mq/lab#password", "hunter2", "file:/srv/secrets/\u0085"} {
		f.Add(seed)
	}
	r := targets.NewResolver(targets.Config{AllowInline: true,
		Inline: targets.Allowlist{SecretRefs: []string{"file:/srv/secrets/*", "env:MQPROBE_FUZZ_*"}}})
	f.Fuzz(func(t *testing.T, ref string) {
		if ref == "" {
			return // no reference: nothing to resolve
		}
		canonical := secrets.Canonical(ref)
		if again := secrets.Canonical(canonical); again != canonical {
			t.Fatalf("%q canonicalizes to %q, then to %q", ref, canonical, again)
		}
		_, err := r.Resolve(context.Background(), command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "Q",
			Auth: &command.Auth{User: "app", PasswordRef: ref}}})
		// Refusals by form or allowlist name the field; a reference that
		// passed and then did not resolve says "target passwordRef".
		if err != nil && strings.HasPrefix(err.Error(), "target.auth.passwordRef") {
			return
		}
		if !secrets.IsReference(ref) || strings.ContainsFunc(ref, unicode.IsControl) {
			t.Fatalf("%q passed the allowlist (%v)", ref, err)
		}
		if path, ok := strings.CutPrefix(canonical, secrets.SchemeFile); ok &&
			(!strings.HasPrefix(path, "/srv/secrets/") || filepath.Clean(path) != path) {
			t.Fatalf("%q passed file:/srv/secrets/* as %q, outside /srv/secrets", ref, canonical)
		}
	})
}
