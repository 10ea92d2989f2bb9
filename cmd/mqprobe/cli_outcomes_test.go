package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestInterruptIsNotDecided: Ctrl-C while the daemon runs a PRODUCE leaves
// the command running, so the CLI exits 4 and says how to look at it.
func TestInterruptIsNotDecided(t *testing.T) {
	addr := startDaemon(t)
	// Ctrl-C ends main's NotifyContext.
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	time.AfterFunc(300*time.Millisecond, interrupt)
	_, stderr, status := runCLI(t, ctx, "send", "produce", "--addr", addr, "--count", "5", "--rate", "5", "--key", "cli-interrupted")
	if status != exitNotDecided || strings.Contains(stderr, "is the daemon running") ||
		!strings.Contains(stderr, "interrupted before the answer; the command may still be running: mqprobe send status PRODUCE cli-interrupted") {
		t.Errorf("Ctrl-C: exit %d, stderr %q; want %d and the look-up hint", status, stderr, exitNotDecided)
	}
}

// TestExitStatusByProblemType: the daemon's problem type decides between
// REJECTED (3) and not decided (4), whatever its HTTP status.
func TestExitStatusByProblemType(t *testing.T) {
	t.Run("in progress elsewhere", func(t *testing.T) {
		addr := startDaemonWith(t, func(cfg *config.Config) { cfg.HTTP.InProgressWait = 10 * time.Millisecond })
		produce := []string{"send", "produce", "--addr", addr, "--count", "5", "--rate", "5", "--key", "cli-twice"}
		first := make(chan int)
		go func() {
			_, _, status := runCLI(t, context.Background(), produce...)
			first <- status
		}()
		testenv.Eventually(t, 10*time.Second, "the first command in progress", func() bool {
			return daemonSays(addr, "/commands/PRODUCE/cli-twice", func(c struct{ Status string }) bool { return c.Status == "IN_PROGRESS" })
		})
		if out, stderr, status := runCLI(t, context.Background(), produce...); status != exitNotDecided || !strings.Contains(out, "in-progress") {
			t.Errorf("the same command while it runs: exit %d, want %d\n%s\n%s", status, exitNotDecided, out, stderr)
		}
		if status := <-first; status != exitCompleted {
			t.Errorf("the first command: exit %d", status)
		}
	})
	t.Run("busy", func(t *testing.T) {
		addr := startDaemonWith(t, func(cfg *config.Config) {
			cfg.Limits.MaxConcurrentCommands, cfg.Limits.AdmissionWait = 1, 10*time.Millisecond
		})
		first := make(chan int)
		go func() {
			_, _, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--count", "5", "--rate", "5")
			first <- status
		}()
		testenv.Eventually(t, 10*time.Second, "the first command executing", func() bool { return executing(addr, 1) })
		if out, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", addr); status != exitNotDecided || !strings.Contains(out, "/problems/busy") {
			t.Errorf("no room for a second command: exit %d, want %d\n%s\n%s", status, exitNotDecided, out, stderr)
		}
		<-first
	})
	t.Run("rate limited", func(t *testing.T) {
		addr := startDaemonWith(t, func(cfg *config.Config) {
			cfg.Targets.RateLimit = targets.RateLimitConfig{CommandsPerSecond: 1, Burst: 1}
		})
		runCLI(t, context.Background(), "send", "depth", "--addr", addr)
		if out, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", addr); status != exitNotDecided || !strings.Contains(out, "rate-limited") {
			t.Errorf("over the target's rate: exit %d, want %d\n%s\n%s", status, exitNotDecided, out, stderr)
		}
	})
	t.Run("wrong base path", func(t *testing.T) {
		addr := startDaemon(t)
		_, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", "http://"+addr+"/wrong/")
		if status != exitFailed || !strings.Contains(stderr, "POST http://"+addr+"/wrong/queue/depth: 404 Not Found: no mqprobe API there: check --addr") {
			t.Errorf("404: exit %d, stderr %q; want %d naming the URL", status, stderr, exitFailed)
		}
	})
}

// TestTLSMistakesSayWhat: a plain HTTP request to the HTTPS daemon, HTTPS
// to a plain one, an unknown CA and a missing client certificate each say
// what went wrong and what to set.
func TestTLSMistakesSayWhat(t *testing.T) {
	p := newTestPKI(t)
	t.Setenv("MQPROBE_TOKEN", "")
	t.Setenv("MQPROBE_HTTP_AUTHTOKEN", "")
	mtls := startDaemonWith(t, func(cfg *config.Config) {
		cfg.HTTP.TLS = httpapi.TLSSettings{CertFile: p.serverCert, KeyFile: p.serverKey, ClientCAFile: p.caFile}
	})
	plain := startDaemon(t)
	for _, tc := range []struct {
		name string
		args []string
		want int
		msg  string
	}{
		{"http to https", []string{"--addr", "http://" + mtls}, exitUsage, mtls + " speaks HTTPS: give --addr as an https:// URL"},
		{"https to http", []string{"--addr", "https://" + plain}, exitFailed, "TLS handshake with " + plain + " failed: "},
		{"https to http hint", []string{"--addr", "https://" + plain}, exitFailed, "the daemon speaks plain HTTP: use an http:// --addr"},
		{"unknown CA", []string{"--addr", "https://" + mtls, "--ca-file", p.otherCA}, exitFailed, "verify the daemon's certificate against its CA: --ca-file"},
		{"no client certificate", []string{"--addr", "https://" + mtls, "--ca-file", p.caFile}, exitFailed, "a client certificate goes in --cert-file/--key-file"},
	} {
		_, stderr, status := runCLI(t, context.Background(), append([]string{"send", "depth", "--timeout", "5s"}, tc.args...)...)
		if status != tc.want || !strings.Contains(stderr, tc.msg) || strings.Contains(stderr, "is the daemon running") {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, status, stderr, tc.want, tc.msg)
		}
	}
}

// TestHealthOverMTLS: the image's HEALTHCHECK (no flags) reaches a daemon
// that listens on 0.0.0.0 and wants client certificates, with the TLS
// settings from the environment; anything unhealthy, a bad configuration
// included, is 1 (Docker reserves 2).
func TestHealthOverMTLS(t *testing.T) {
	p := newTestPKI(t)
	named, namedKey := testenv.WriteKeyPair(t, p.dir, "named", p.ca.Issue(t, "mqprobe.internal", x509.ExtKeyUsageServerAuth))
	addr := startDaemonWith(t, func(cfg *config.Config) {
		cfg.HTTP.Addr = "0.0.0.0:0"
		cfg.HTTP.TLS = httpapi.TLSSettings{CertFile: named, KeyFile: namedKey, ClientCAFile: p.caFile}
	})
	_, port, _ := strings.Cut(addr[strings.LastIndex(addr, ":"):], ":")
	for k, v := range map[string]string{"MQPROBE_HTTP_ADDR": "0.0.0.0:" + port, "MQPROBE_HTTP_TLS_CERTFILE": named,
		"MQPROBE_HTTP_TLS_KEYFILE": namedKey, "MQPROBE_HTTP_TLS_CLIENTCAFILE": p.caFile, "MQPROBE_CA_FILE": p.caFile,
		"MQPROBE_TOKEN": "", "MQPROBE_HTTP_AUTHTOKEN": ""} {
		t.Setenv(k, v)
	}
	if _, stderr, status := runCLI(t, context.Background(), "health"); status != exitFailed || !strings.Contains(stderr, "--server-name (or $MQPROBE_SERVER_NAME)") {
		t.Errorf("127.0.0.1 against a certificate for mqprobe.internal: exit %d, stderr %q", status, stderr)
	}
	t.Setenv("MQPROBE_SERVER_NAME", "mqprobe.internal")
	if _, stderr, status := runCLI(t, context.Background(), "health"); status != exitFailed || !strings.Contains(stderr, "client certificate") {
		t.Errorf("without a client certificate: exit %d, stderr %q", status, stderr)
	}
	t.Setenv("MQPROBE_CLIENT_CERTFILE", p.clientCert)
	t.Setenv("MQPROBE_CLIENT_KEYFILE", p.clientKey)
	if out, stderr, status := runCLI(t, context.Background(), "health"); status != 0 || !strings.Contains(out, "health/ready") {
		t.Errorf("with the client certificate from the environment: exit %d\n%s\n%s", status, out, stderr)
	}
	t.Setenv("MQPROBE_CLIENT_KEYFILE", "")
	if _, stderr, status := runCLI(t, context.Background(), "health"); status != exitFailed || !strings.Contains(stderr, "--cert-file and --key-file go together") {
		t.Errorf("half a client certificate: exit %d (want 1, not 2), stderr %q", status, stderr)
	}
	t.Setenv("MQPROBE_HTTP_ADR", "typo")
	if _, _, status := runCLI(t, context.Background(), "health"); status != exitFailed {
		t.Errorf("bad configuration: exit %d, want 1", status)
	}
}

// TestFileRefusesInlineFlags: --file holds the whole command, so inline
// command flags and a body for another operation are usage errors.
func TestFileRefusesInlineFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "depth.json")
	if err := os.WriteFile(file, []byte(`{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		msg   string
		usage string
	}{
		{[]string{"send", "depth", "--file", file, "--qmgr", "QM2", "--tag", "a=b"}, "--file holds the whole command: leave out --qmgr, --tag", "mqprobe send depth"},
		{[]string{"send", "produce", "--file", file, "--count", "3"}, "leave out --count", "mqprobe send produce"},
		{[]string{"send", "test", "--file", file, "--duration", "5s"}, "leave out --duration", "mqprobe send test"},
		{[]string{"send", "produce", "--file", file}, "--file: operationType DEPTH is not PRODUCE: send it with mqprobe send depth", "mqprobe send produce"},
	} {
		out, stderr, status := runCLI(t, context.Background(), append(tc.args, "--addr", "127.0.0.1:1")...)
		if status != exitUsage || out != "" || !strings.Contains(stderr, tc.msg) || !strings.Contains(stderr, "Run '"+tc.usage+" --help' for usage.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, status, out, stderr, tc.msg)
		}
	}
}

// TestFlagsThatDoNotApplyAreRefused: a subcommand has only its own flags,
// and the flags of the other mode are refused rather than ignored.
func TestFlagsThatDoNotApplyAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		msg   string
		usage string
	}{
		{[]string{"send", "status", "PRODUCE", "k", "--wait"}, "unknown flag: --wait", "mqprobe send status"},
		{[]string{"send", "status", "PRODUCE", "k", "--key", "k"}, "unknown flag: --key", "mqprobe send status"},
		{[]string{"send", "status", "PRODUCE", "k", "--file", "x.json"}, "unknown flag: --file", "mqprobe send status"},
		{[]string{"send", "test", "--sqs-queue", "q"}, "unknown flag: --sqs-queue", "mqprobe send test"},
		{[]string{"send", "depth", "--sqs-queue", "q", "--addr", "127.0.0.1:1"}, "--addr applies to the daemon's HTTP API; in aws mode", "mqprobe send depth"},
		{[]string{"send", "produce", "--sns-topic", "arn:aws:sns:us-east-1:0:t", "--token-file", "t"}, "--token-file applies to the daemon's HTTP API", "mqprobe send produce"},
		{[]string{"send", "depth", "--addr", "127.0.0.1:1", "--results-queue", "r"}, "--results-queue applies in aws mode only", "mqprobe send depth"},
	} {
		out, stderr, status := runCLI(t, context.Background(), tc.args...)
		if status != exitUsage || out != "" || !strings.Contains(stderr, tc.msg) || !strings.Contains(stderr, "Run '"+tc.usage+" --help' for usage.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, status, out, stderr, tc.msg)
		}
	}
}

// TestBrokenAnswerTimeoutIsNotDecided: the client's --timeout firing while
// the answer's body is still coming is not decided (4), like a timeout
// before the answer. (A daemon writes its answer whole; a proxy that
// stalls mid-body is what the CLI meets here.)
func TestBrokenAnswerTimeoutIsNotDecided(t *testing.T) {
	release := make(chan struct{})
	stalling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"operationType":"DEPTH",`)
		w.(http.Flusher).Flush()
		<-release
	}))
	defer stalling.Close()
	defer close(release) // before Close, which waits for the handler
	_, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", stalling.URL, "--key", "cli-stall", "--timeout", "500ms")
	if status != exitNotDecided || !strings.Contains(stderr, "no answer within --timeout 500ms; the command may still be running: mqprobe send status DEPTH cli-stall") {
		t.Errorf("timeout mid-body: exit %d, stderr %q; want %d", status, stderr, exitNotDecided)
	}
}

// TestSecretsStayOutOfMessages: a password in --addr is masked in the
// usage error, and the curl hint names the token's variable, never the
// token.
func TestSecretsStayOutOfMessages(t *testing.T) {
	_, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", "http://admin:hunter2@127.0.0.1:1/")
	if status != exitUsage || strings.Contains(stderr, "hunter2") || !strings.Contains(stderr, "admin:xxxxx@127.0.0.1:1") {
		t.Errorf("--addr with a password: exit %d, stderr %q", status, stderr)
	}
	const token = "cli-t0ken-s3cret"
	addr := startDaemonWith(t, func(cfg *config.Config) { cfg.HTTP.AuthToken = token })
	t.Setenv("MQPROBE_TOKEN", token)
	_, stderr, status = runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--count", "5", "--rate", "5",
		"--key", "cli-curl", "--timeout", "300ms")
	want := `curl -H "Authorization: Bearer $MQPROBE_TOKEN" http://` + addr + "/commands/PRODUCE/cli-curl"
	if status != exitNotDecided || strings.Contains(stderr, token) || !strings.Contains(stderr, want) {
		t.Errorf("timeout hint: exit %d, stderr %q; want %q without the token", status, stderr, want)
	}
}

// TestWaitWithJSONOutputDrawsNoLiveLine: --output json on a terminal gets
// the JSON alone, without the live line's redraws before it.
func TestWaitWithJSONOutputDrawsNoLiveLine(t *testing.T) {
	addr := startDaemon(t)
	screen, stderr, status := runOnPTY(t, "send", "produce", "--addr", addr, "--count", "2000", "--rate", "4000", "--wait", "--output", "json")
	if status != 0 || strings.Contains(screen, "\r") || !strings.HasPrefix(screen, "{\n") || !strings.Contains(screen, `"enqueued": 2000`) {
		t.Errorf("--wait --output json on a terminal: exit %d, screen %q, stderr %q", status, screen, stderr)
	}
}

// TestOneLinerToAQueueManager: --conn-name, --channel, --user and
// --password-ref build an inline target with the reference, never a
// password; mistakes are usage errors naming the flag.
func TestOneLinerToAQueueManager(t *testing.T) {
	t.Setenv("MQ_APP_PASSWORD", "s3cret-value")
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		bodies <- body
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"operationType":"PRODUCE","idempotencyKey":%q,"status":"COMPLETED","result":{"enqueued":1}}`, r.Header.Get("Idempotency-Key"))
	}))
	defer srv.Close()
	_, stderr, status := runCLI(t, context.Background(), "send", "produce", "--addr", srv.URL, "--conn-name", "host(1414)", "--channel", "DEV.APP.SVRCONN",
		"--qmgr", "QM1", "--queue", "DEV.QUEUE.1", "--user", "app", "--password-ref", "env:MQ_APP_PASSWORD", "-o", "json")
	body := <-bodies
	want := `{"batch":{"count":1},"operationType":"PRODUCE","target":{"auth":{"passwordRef":"env:MQ_APP_PASSWORD","user":"app"},` +
		`"channel":"DEV.APP.SVRCONN","connName":"host(1414)","queue":"DEV.QUEUE.1","queueManager":"QM1"}}`
	if status != 0 || string(body) != want || strings.Contains(string(body), "s3cret") {
		t.Errorf("one-liner: exit %d %s\nbody %s\nwant %s", status, stderr, body, want)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--user", "app", "--password-ref", "s3cret-value"}, "--password-ref: give a reference the daemon resolves (env:NAME, file:/path or secret://…), never the password itself"},
		{[]string{"--password-ref", "env:MQ_APP_PASSWORD"}, "--password-ref goes with --user"},
		{[]string{"--ccdt-url", "file:///ccdt.json", "--channel", "C"}, "--ccdt-url replaces --conn-name and --channel"},
		{[]string{"--target-ref", "dev-qm1", "--conn-name", "h(1)"}, "--conn-name describes an inline target"},
	} {
		_, stderr, status := runCLI(t, context.Background(), append([]string{"send", "produce", "--addr", srv.URL}, tc.args...)...)
		if status != exitUsage || !strings.Contains(stderr, tc.msg) || strings.Contains(stderr, "s3cret") {
			t.Errorf("%v: exit %d %s; want 2 and %q", tc.args, status, stderr, tc.msg)
		}
	}
}

// TestOneLinerAgainstTheEmbeddedDaemon: the embedded daemon refuses a
// connection target; the CLI says what a daemon needs to take it, with the
// docs' sections.
func TestOneLinerAgainstTheEmbeddedDaemon(t *testing.T) {
	addr := startDaemon(t)
	_, stderr, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--conn-name", "host(1414)", "--channel", "DEV.APP.SVRCONN",
		"--user", "app", "--password-ref", "env:MQ_APP_PASSWORD")
	for _, want := range []string{"-tags ibmmq, docs/deployment.md#building-with-ibm-mq", "MQPROBE_MQ_BACKEND=ibmmq",
		"docs/security.md#target-profiles-and-allowlists"} {
		if status != exitRejected || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr %s; want 3 and %q", status, stderr, want)
		}
	}
	if _, stderr, _ := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--qmgr", "QM9"); strings.Contains(stderr, "ibmmq") {
		t.Errorf("a rejection without connection flags got the hint: %s", stderr)
	}
}
