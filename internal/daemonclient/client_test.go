package daemonclient

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
)

func TestParseAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		tls  bool
		want string // "" for an error
	}{
		{"127.0.0.1:8080", false, "http://127.0.0.1:8080/"},
		{"127.0.0.1:8443", true, "https://127.0.0.1:8443/"},
		{"https://daemon.example:8443/mqprobe", false, "https://daemon.example:8443/mqprobe/"},
		{"ftp://daemon.example", false, ""},
		{"http://user:secret@daemon.example", false, ""},
		{"http://daemon.example/?q=1", false, ""},
	} {
		u, err := parseAddr(tc.addr, tc.tls)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("parseAddr(%q) = %s; want an error", tc.addr, u)
		case tc.want != "" && (err != nil || u.String() != tc.want):
			t.Errorf("parseAddr(%q) = %v, %v; want %s", tc.addr, u, err, tc.want)
		}
	}
}

func TestDialableMeansThisHost(t *testing.T) {
	for listen, want := range map[string]string{
		"0.0.0.0:8080":   "127.0.0.1:8080",
		":8080":          "127.0.0.1:8080",
		"[::]:8080":      "[::1]:8080",
		"10.0.0.5:8080":  "10.0.0.5:8080",
		"localhost:8080": "localhost:8080",
	} {
		if got := dialable(listen); got != want {
			t.Errorf("dialable(%q) = %q; want %q", listen, got, want)
		}
	}
}

// TestConfigurationOnlyWhenNeeded: an address and a token file leave
// nothing to the configuration, which is then not loaded; without them it
// supplies the address and the token.
func TestConfigurationOnlyWhenNeeded(t *testing.T) {
	t.Setenv(TokenEnv, "")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("file-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unloadable := func() (*config.Config, error) { return nil, errors.New("configuration loaded") }
	c, err := New(Options{Addr: "127.0.0.1:1", TokenFile: tokenFile, Timeout: time.Second}, unloadable)
	if err != nil {
		t.Fatalf("New with --addr and --token-file: %v", err)
	}
	if c.token != "file-token" || c.Address() != "http://127.0.0.1:1/" {
		t.Errorf("token %q, address %s", c.token, c.Address())
	}

	cfg := config.Default()
	cfg.HTTP.Addr, cfg.HTTP.AuthToken = "0.0.0.0:9090", "config-token"
	c, err = New(Options{Timeout: time.Second}, func() (*config.Config, error) { return cfg, nil })
	if err != nil {
		t.Fatal(err)
	}
	if c.token != "config-token" || c.Address() != "http://127.0.0.1:9090/" {
		t.Errorf("from the configuration: token %q, address %s", c.token, c.Address())
	}
	if _, err := New(Options{Timeout: time.Second}, unloadable); err == nil || err.Error() != "configuration loaded" {
		t.Errorf("configuration error: %v; want it as it is", err)
	}
}

func TestBadOptionsAreOptionErrors(t *testing.T) {
	for _, o := range []Options{
		{Addr: "127.0.0.1:1", TokenFile: "/dev/null", Timeout: time.Second},
		{Addr: "127.0.0.1:1", CertFile: "client.pem", Timeout: time.Second},
		{Addr: "ftp://127.0.0.1:1", Timeout: time.Second},
		{Addr: "127.0.0.1:1", CAFile: "/no/such/ca.pem", Timeout: time.Second},
		{Addr: "127.0.0.1:1", Timeout: 0},
	} {
		t.Setenv(TokenEnv, "env-token")
		_, err := New(o, nil)
		var bad *OptionError
		if !errors.As(err, &bad) {
			t.Errorf("New(%+v) = %v; want an OptionError", o, err)
		}
	}
}

// TestCurlNamesTheTokenVariable: the curl hint carries the client's TLS
// files and the token's variable, never the token.
func TestCurlNamesTheTokenVariable(t *testing.T) {
	t.Setenv(TokenEnv, "s3cret")
	c, err := New(Options{Addr: "127.0.0.1:1", Timeout: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Curl(CommandStatePath("PRODUCE", "a/b"), TokenEnv)
	want := `curl -H "Authorization: Bearer $MQPROBE_TOKEN" http://127.0.0.1:1/commands/PRODUCE/a%2Fb`
	if got != want || strings.Contains(got, "s3cret") {
		t.Errorf("Curl = %s; want %s", got, want)
	}
	t.Setenv(TokenEnv, "")
	c, err = New(Options{Addr: "127.0.0.1:1", TokenFile: "", Timeout: time.Second}, func() (*config.Config, error) { return config.Default(), nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Curl("health/ready", TokenEnv); got != "curl http://127.0.0.1:1/health/ready" {
		t.Errorf("Curl without a token = %s", got)
	}
}
