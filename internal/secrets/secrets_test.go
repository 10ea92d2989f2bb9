package secrets_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// secretsManager returns a client of moto's Secrets Manager (the server in
// MQPROBE_TEST_MOTO_ENDPOINT, or a private one) through a proxy that counts
// the GetSecretValue calls on the wire.
func secretsManager(t *testing.T) (*secretsmanager.Client, *testenv.WireCounter) {
	t.Helper()
	moto, stop, err := testenv.Moto()
	if err != nil {
		t.Fatalf("the Secrets Manager tests need moto: %v", err)
	}
	t.Cleanup(stop)
	wire := testenv.CountCalls(t, moto)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(wire.URL)}
	return secretsmanager.NewFromConfig(cfg), wire
}

func createSecret(t *testing.T, c *secretsmanager.Client, name string, value string, binary []byte) string {
	t.Helper()
	// Unique per run (moto outlives a test), the given name last so its
	// extension stays.
	name = time.Now().Format("150405.000000000") + "/" + name
	in := &secretsmanager.CreateSecretInput{Name: aws.String(name)}
	if binary != nil {
		in.SecretBinary = binary
	} else {
		in.SecretString = aws.String(value)
	}
	if _, err := c.CreateSecret(context.Background(), in); err != nil {
		t.Fatalf("create secret %s: %v", name, err)
	}
	return name
}

type fetcherFunc func(ctx context.Context, name string) (secrets.Secret, error)

func (f fetcherFunc) Fetch(ctx context.Context, name string) (secrets.Secret, error) {
	return f(ctx, name)
}

func TestPasswordEnvAndFile(t *testing.T) {
	t.Setenv("MQPROBE_TEST_PW", "hunter2")
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := secrets.NewResolver(secrets.Config{})
	for ref, want := range map[string]string{"env:MQPROBE_TEST_PW": "hunter2", "file:" + file: "from-file"} {
		got, err := r.Password(context.Background(), ref)
		if err != nil || got != want {
			t.Errorf("Password(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
}

func TestUnresolvedReferencesNameTheReferenceNeverAValue(t *testing.T) {
	t.Setenv("MQPROBE_TEST_JSON", "ignored")
	failing := fetcherFunc(func(context.Context, string) (secrets.Secret, error) {
		return secrets.Secret{String: `{"user":"u","password":"p4ss"}`}, nil
	})
	r := secrets.NewResolver(secrets.Config{Fetcher: failing})
	cases := map[string]string{
		"env:MQPROBE_TEST_UNSET_VARIABLE": "variable not set",
		"file:/nonexistent/pw":            "cannot read the file",
		"vault:kv/mq":                     "unsupported scheme",
		"secret://":                       "no secret name",
		"secret://mq/app#missing":         "no string field missing",
	}
	for ref, why := range cases {
		_, err := r.Password(context.Background(), ref)
		if !errors.Is(err, secrets.ErrUnresolved) || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), why) {
			t.Errorf("Password(%q) error = %v; want ErrUnresolved naming the reference and %q", ref, err, why)
		}
		if err != nil && strings.Contains(err.Error(), "p4ss") {
			t.Errorf("error of %q leaks the secret: %v", ref, err)
		}
	}
	if _, err := secrets.NewResolver(secrets.Config{}).Password(context.Background(), "secret://mq/app"); err == nil || !strings.Contains(err.Error(), "no secrets service") {
		t.Errorf("secret:// without a fetcher: %v", err)
	}
}

func TestSecretsManager(t *testing.T) {
	client, gets := secretsManager(t)
	plain := createSecret(t, client, "mq/app", "s3cret-value", nil)
	structured := createSecret(t, client, "mq/json", `{"username":"app","password":"json-pw"}`, nil)
	keyStore := createSecret(t, client, "mq/client.p12", `{"p12":"MIIBAA==","password":"p12-pw"}`, nil)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: client.Options().BaseEndpoint}
	fetcher := secrets.NewSecretsManager(cfg)
	dir := t.TempDir()
	r := secrets.NewResolver(secrets.Config{Fetcher: fetcher, CacheTTL: time.Hour, KeyDir: filepath.Join(dir, "keys")})
	ctx := context.Background()

	if got, err := r.Password(ctx, "secret://"+plain); err != nil || got != "s3cret-value" {
		t.Fatalf("plain secret = %q, %v", got, err)
	}
	if got, err := r.Password(ctx, "secret://"+structured+"#password"); err != nil || got != "json-pw" {
		t.Fatalf("JSON field = %q, %v", got, err)
	}
	// Served from the cache: no further GetSecretValue.
	before := gets.Count("GetSecretValue")
	for range 5 {
		if _, err := r.Password(ctx, "secret://"+plain); err != nil {
			t.Fatal(err)
		}
	}
	if gets.Count("GetSecretValue") != before {
		t.Errorf("cached secret fetched again: %d GetSecretValue calls, want %d", gets.Count("GetSecretValue"), before)
	}
	repo, err := r.KeyRepository(ctx, "secret://"+keyStore)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(repo.Path)
	if err != nil || info.Mode().Perm() != 0o600 || !strings.HasSuffix(repo.Path, ".p12") || repo.Password != "p12-pw" {
		t.Fatalf("key repository %+v: %v, mode %v; want a 0600 .p12 file and its password", repo, err, info)
	}
	if data, _ := os.ReadFile(repo.Path); string(data) != "\x30\x82\x01\x00" {
		t.Errorf("key repository holds %x", data)
	}
	_, err = r.Password(ctx, "secret://mq/does-not-exist")
	if !errors.Is(err, secrets.ErrUnresolved) || !strings.Contains(err.Error(), "no such secret") {
		t.Errorf("missing secret: %v", err)
	}
}

// TestKeyRepositoryFromFiles: a file: or env: key repository names files
// IBM's client can open: a CMS key database by its stem (or .kdb file) with
// its .sth stash file, or a PKCS #12 file with a stash file. Anything less
// is refused here, naming what is missing, rather than met as 2381 at
// MQCONNX.
func TestKeyRepositoryFromFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"cms.kdb", "cms.sth", "nostash.kdb", "client.p12", "client.sth", "bare.p12"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("MQPROBE_TEST_KEYS", filepath.Join(dir, "cms"))
	r := secrets.NewResolver(secrets.Config{})
	ctx := context.Background()
	for ref, want := range map[string]string{
		"file:" + dir + "/cms":        dir + "/cms",
		"file:" + dir + "/cms.kdb":    dir + "/cms",
		"env:MQPROBE_TEST_KEYS":       dir + "/cms",
		"file:" + dir + "/client.p12": dir + "/client.p12",
	} {
		repo, err := r.KeyRepository(ctx, ref)
		if err != nil || repo != (secrets.KeyRepository{Path: want}) {
			t.Errorf("KeyRepository(%q) = %+v, %v; want path %s", ref, repo, err, want)
		}
	}
	for ref, why := range map[string]string{
		"file:" + dir + "/none":        "no key database",
		"file:" + dir + "/nostash":     "no .sth stash file",
		"file:" + dir + "/nostash.kdb": "no .sth stash file",
		"file:" + dir + "/bare.p12":    "password stashed beside it",
		"file:" + dir + "/none.p12":    "cannot read the PKCS #12 file",
	} {
		_, err := r.KeyRepository(ctx, ref)
		if !errors.Is(err, secrets.ErrUnresolved) || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), why) {
			t.Errorf("KeyRepository(%q) = %v; want it refused naming the reference and %q", ref, err, why)
		}
	}
}

// TestKeyRepositoryFromSecret: a secret:// key repository is written as the
// files IBM's client reads, a stem with .kdb and .sth or a .p12 whose
// password goes to MQSCO; a secret of another form is refused, saying the
// form, without echoing it.
func TestKeyRepositoryFromSecret(t *testing.T) {
	stored := map[string]secrets.Secret{
		"mq/cms":     {String: `{"kdb":"a2Ri","sth":"c3Ro"}`},
		"mq/p12":     {String: `{"p12":"cDEy","password":"p12-pw"}`},
		"mq/stashed": {String: `{"p12":"cDEy","sth":"c3Ro"}`},
		"mq/raw":     {Binary: []byte{0x30, 0x82}},
		"mq/nostash": {String: `{"kdb":"a2Ri"}`},
		"mq/nopw":    {String: `{"p12":"cDEy"}`},
		"mq/both":    {String: `{"kdb":"a2Ri","sth":"c3Ro","p12":"cDEy","password":"x"}`},
		"mq/text":    {String: "s3cret-not-json"},
	}
	dir := filepath.Join(t.TempDir(), "keys")
	r := secrets.NewResolver(secrets.Config{KeyDir: dir, Fetcher: fetcherFunc(func(_ context.Context, name string) (secrets.Secret, error) {
		return stored[name], nil
	})})
	ctx := context.Background()
	read := func(path string) string {
		t.Helper()
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm() != 0o600 || filepath.Dir(path) != dir {
			t.Fatalf("%s: %v, %v; want a 0600 file in the key directory", path, err, info)
		}
		data, _ := os.ReadFile(path)
		return string(data)
	}

	repo, err := r.KeyRepository(ctx, "secret://mq/cms")
	if err != nil || repo.Password != "" || filepath.Ext(repo.Path) != "" {
		t.Fatalf("CMS secret: %+v, %v; want a stem and no password", repo, err)
	}
	if kdb, sth := read(repo.Path+".kdb"), read(repo.Path+".sth"); kdb != "kdb" || sth != "sth" {
		t.Errorf("CMS files hold %q and %q", kdb, sth)
	}
	repo, err = r.KeyRepository(ctx, "secret://mq/p12")
	if err != nil || repo.Password != "p12-pw" || !strings.HasSuffix(repo.Path, ".p12") || read(repo.Path) != "p12" {
		t.Fatalf("PKCS #12 secret: %+v, %v; want the .p12 file and its password", repo, err)
	}
	repo, err = r.KeyRepository(ctx, "secret://mq/stashed")
	if err != nil || repo.Password != "" || read(strings.TrimSuffix(repo.Path, ".p12")+".sth") != "sth" {
		t.Fatalf("stashed PKCS #12 secret: %+v, %v; want the .p12 file and its stash", repo, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 {
		t.Errorf("key directory holds %d entries, want the 5 files (no temporary ones left)", len(entries))
	}
	for _, name := range []string{"mq/raw", "mq/nostash", "mq/nopw", "mq/both", "mq/text"} {
		_, err := r.KeyRepository(ctx, "secret://"+name)
		if !errors.Is(err, secrets.ErrUnresolved) || !strings.Contains(err.Error(), `{"kdb": ..., "sth": ...}`) ||
			strings.Contains(err.Error(), "s3cret") {
			t.Errorf("secret %s: %v; want refused, saying the form without the value", name, err)
		}
	}
}

func TestCacheExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fetches atomic.Int64
		f := fetcherFunc(func(context.Context, string) (secrets.Secret, error) {
			fetches.Add(1)
			return secrets.Secret{String: "v"}, nil
		})
		r := secrets.NewResolver(secrets.Config{Fetcher: f, CacheTTL: 50 * time.Millisecond})
		ctx := context.Background()
		for range 3 {
			if _, err := r.Password(ctx, "secret://a"); err != nil {
				t.Fatal(err)
			}
		}
		if fetches.Load() != 1 {
			t.Fatalf("fetches within the TTL = %d, want 1", fetches.Load())
		}
		time.Sleep(60 * time.Millisecond)
		if _, err := r.Password(ctx, "secret://a"); err != nil {
			t.Fatal(err)
		}
		if fetches.Load() != 2 {
			t.Fatalf("fetches after the TTL = %d, want 2", fetches.Load())
		}
	})
}

func TestIsReference(t *testing.T) {
	for s, want := range map[string]bool{"env:MQ_PW": true, "file:/run/secrets/pw": true, "secret://mq/app#password": true,
		"hunter2": false, "env:": false, "secret://": false, "file:/a b": false, "vault:kv/mq": false, "": false,
		"file:/srv/secrets/café": true, "file:/srv/secrets/a\x00b": false, "env:MQ_PW\x01": false, "secret://mq\x7f": false,
		"file:/srv/secrets/\u0085x": false} {
		if got := secrets.IsReference(s); got != want {
			t.Errorf("IsReference(%q) = %v, want %v", s, got, want)
		}
	}
}
