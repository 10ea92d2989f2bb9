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
	keyStore := createSecret(t, client, "mq/client.p12", "", []byte{0x30, 0x82, 0x01, 0x00})
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: client.Options().BaseEndpoint}
	fetcher := secrets.NewSecretsManager(cfg)
	dir := t.TempDir()
	r := secrets.NewResolver(secrets.Config{Fetcher: fetcher, CacheTTL: time.Hour, Dir: filepath.Join(dir, "keys")})
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
	path, err := r.KeyRepository(ctx, "secret://"+keyStore)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 || !strings.HasSuffix(path, ".p12") {
		t.Fatalf("key repository %s: %v, mode %v; want a 0600 .p12 file", path, err, info)
	}
	if data, _ := os.ReadFile(path); string(data) != "\x30\x82\x01\x00" {
		t.Errorf("key repository holds %x", data)
	}
	_, err = r.Password(ctx, "secret://mq/does-not-exist")
	if !errors.Is(err, secrets.ErrUnresolved) || !strings.Contains(err.Error(), "no such secret") {
		t.Errorf("missing secret: %v", err)
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
