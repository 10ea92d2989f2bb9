package targets_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// A file: allowlist entry confines references to its directory: ".." and
// symlinks cannot leave it, and a refusal reads the same whether the file
// exists or not.
func TestFileSecretRefsStayInTheirDirectory(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "secrets")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "app"), "in-the-directory\n")
	write(filepath.Join(root, "shadow"), "outside\n")
	if err := os.Symlink(filepath.Join(root, "shadow"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	r := targets.NewResolver(targets.Config{AllowInline: true,
		Inline:  targets.Allowlist{SecretRefs: []string{"file:" + dir + "/*"}},
		Secrets: secrets.NewResolver(secrets.Config{})})
	withPassword := func(ref string) command.Command {
		return command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.Q",
			Auth: &command.Auth{User: "app", PasswordRef: ref}}}
	}
	ctx := context.Background()

	res, err := r.Resolve(ctx, withPassword("file:"+dir+"/./app"))
	if err != nil || res.Target.Password != "in-the-directory" {
		t.Fatalf("a file in the directory: password %q, %v", res.Target.Password, err)
	}
	refusal := func(ref string) string {
		t.Helper()
		_, err := r.Resolve(ctx, withPassword(ref))
		if code(err) != "TARGET_NOT_ALLOWED" {
			t.Fatalf("%s: %v, want TARGET_NOT_ALLOWED", ref, err)
		}
		// The answer names the reference as given, never where it leads.
		return strings.ReplaceAll(err.Error(), ref, "<ref>")
	}
	escape := refusal("file:" + dir + "/../shadow")
	missing := refusal("file:" + dir + "/../no-such-file")
	if escape != missing {
		t.Errorf("an existing and a missing file outside are told apart:\n%s\n%s", escape, missing)
	}
	refusal("file:" + dir + "/link")
	refusal("file:" + dir + "/../../" + filepath.Base(root) + "/shadow")
}

// TestInlineSecretRefsMustBeReferences: a value that is not a reference
// (a pasted password, or a path with a NUL or control character that the
// read would cut short of what the pattern matched) is refused before any
// matching, without being echoed.
func TestInlineSecretRefsMustBeReferences(t *testing.T) {
	r := targets.NewResolver(targets.Config{AllowInline: true,
		Inline: targets.Allowlist{SecretRefs: []string{"file:/srv/secrets/*", "env:MQ_*"}}})
	for _, ref := range []string{"file:/srv/secrets/qm1\x00.txt", "env:MQ_PW\nHOME", "file:/srv/secrets/qm1\x1b[2J", "Hunter2-pasted"} {
		for field, target := range map[string]*command.Target{
			"target.auth.passwordRef": {QueueManager: "QM1", Queue: "Q", Auth: &command.Auth{User: "app", PasswordRef: ref}},
			"target.ssl.keyStoreRef":  {QueueManager: "QM1", Queue: "Q", SSL: &command.SSL{Enabled: true, CipherSpec: "ANY_TLS13", KeyStoreRef: ref}},
		} {
			_, err := r.Resolve(context.Background(), command.Command{Target: target})
			if code(err) != "TARGET_NOT_ALLOWED" || !strings.HasPrefix(err.Error(), field+" is not a reference") || strings.Contains(err.Error(), ref[:7]) {
				t.Errorf("%s %q: %v; want refused as no reference, without the value", field, ref, err)
			}
		}
	}
}

type fetcherFunc func(ctx context.Context, name string) (secrets.Secret, error)

func (f fetcherFunc) Fetch(ctx context.Context, name string) (secrets.Secret, error) {
	return f(ctx, name)
}

// TestKeyStoreRefGivesTheClientWhatItReads: a secret:// PKCS #12 key store
// reaches the connection as its file and its password (MQSCO
// KeyRepoPassword), and a key store the client could not open is refused
// before any connection, naming the field and what is missing.
func TestKeyStoreRefGivesTheClientWhatItReads(t *testing.T) {
	keys := t.TempDir()
	if err := os.WriteFile(filepath.Join(keys, "nostash.kdb"), []byte("kdb"), 0o600); err != nil {
		t.Fatal(err)
	}
	fetcher := fetcherFunc(func(context.Context, string) (secrets.Secret, error) {
		return secrets.Secret{String: `{"p12":"cDEy","password":"p12-pw"}`}, nil
	})
	r := targets.NewResolver(targets.Config{
		Profiles: map[string]targets.Profile{
			"p12":     {QueueManager: "QM1", Queue: "Q", Channel: "C", ConnName: "h(1)", CipherSpec: "ANY_TLS13", KeyStoreRef: "secret://mq/client.p12"},
			"nostash": {QueueManager: "QM1", Queue: "Q", Channel: "C", ConnName: "h(1)", CipherSpec: "ANY_TLS13", KeyStoreRef: "file:" + keys + "/nostash"},
		},
		Secrets: secrets.NewResolver(secrets.Config{Fetcher: fetcher, KeyDir: filepath.Join(keys, "fetched")}),
	})
	ctx := context.Background()
	res, err := r.Resolve(ctx, command.Command{TargetRef: "p12"})
	if err != nil {
		t.Fatal(err)
	}
	if tls := res.Target.TLS; filepath.Ext(tls.KeyRepository) != ".p12" || tls.KeyRepositoryPassword != "p12-pw" {
		t.Errorf("PKCS #12 key store resolved to %q with password %q", tls.KeyRepository, tls.KeyRepositoryPassword)
	}
	_, err = r.Resolve(ctx, command.Command{TargetRef: "nostash"})
	if code(err) != "TARGET_NOT_ALLOWED" || !strings.Contains(err.Error(), "targets.profiles.nostash keyStoreRef") ||
		!strings.Contains(err.Error(), ".sth stash file") {
		t.Errorf("key database without its stash file: %v", err)
	}
}
