package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestUsageErrorsExitTwo: a command line mqprobe cannot run exits 2 and
// points at the help of the command that was meant, on stderr.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		msg, usage string
	}{
		{[]string{"send", "prodcue"}, `unknown command "prodcue" for "mqprobe send"; did you mean produce?`, "mqprobe send"},
		{[]string{"sned"}, `unknown command "sned" for "mqprobe"`, "mqprobe"},
		{[]string{"send"}, "mqprobe send needs a subcommand: ", "mqprobe send"},
		{[]string{"send", "produce", "--count", "abc"}, `invalid argument "abc" for "--count"`, "mqprobe send produce"},
		{[]string{"send", "produce", "--no-such-flag"}, "unknown flag: --no-such-flag\n", "mqprobe send produce"},
		{[]string{"send", "produce", "--cout", "3"}, "unknown flag: --cout; did you mean --count?", "mqprobe send produce"},
		{[]string{"send", "produce", "--adr=127.0.0.1:1"}, "unknown flag: --adr; did you mean --addr?", "mqprobe send produce"},
		{[]string{"send", "produce", "--confi", "x.yaml"}, "unknown flag: --confi; did you mean --config?", "mqprobe send produce"},
		{[]string{"send", "test", "--duraton", "5s"}, "unknown flag: --duraton; did you mean --duration?", "mqprobe send test"},
		{[]string{"send", "depth", "extra"}, `unknown command "extra" for "mqprobe send depth"`, "mqprobe send depth"},
		{[]string{"version", "extra"}, `unknown command "extra" for "mqprobe version"`, "mqprobe version"},
		{[]string{"completion", "bas"}, `unknown command "bas" for "mqprobe completion"; did you mean bash?`, "mqprobe completion"},
		{[]string{"send", "depth", "--output", "xml"}, `--output "xml": must be auto, json, yaml or table`, "mqprobe send depth"},
		{[]string{"send", "depth", "--query", "result.["}, `--query "result.[": not a JMESPath expression`, "mqprobe send depth"},
		{[]string{"send", "depth", "-o", "table", "--query", "result"}, "--query prints JSON or YAML: it does not go with --output table", "mqprobe send depth"},
		{[]string{"send", "depth", "--addr", "ftp://127.0.0.1:1"}, `--addr "ftp://127.0.0.1:1": scheme "ftp": use http or https`, "mqprobe send depth"},
		{[]string{"send", "depth", "--addr", "127.0.0.1:1", "--cert-file", "c.pem"}, "--cert-file and --key-file go together", "mqprobe send depth"},
		{[]string{"send", "depth", "--addr", "127.0.0.1:1", "--token-file", "/no/such/token"}, "--token-file: open /no/such/token", "mqprobe send depth"},
		{[]string{"send", "test", "--addr", "127.0.0.1:1", "--duration", "1500ms"}, "--duration 1.5s: give whole seconds", "mqprobe send test"},
		{[]string{"send", "status", "PRODUCE"}, "accepts 2 arg(s), received 1", "mqprobe send status"},
		{[]string{"send", "status", "BROWSE", "k1"}, `OPERATION "BROWSE": must be one of PRODUCE, CONSUME, DEPTH, CONNECTION_TEST, TEST`, "mqprobe send status"},
	} {
		out, stderr, status := runCLI(t, context.Background(), tc.args...)
		if status != exitUsage || out != "" || !strings.Contains(stderr, tc.msg) ||
			!strings.Contains(stderr, "Run '"+tc.usage+" --help' for usage.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing on stdout, %q and a hint to %s --help",
				tc.args, status, out, stderr, tc.msg, tc.usage)
		}
	}
	// Help is not an error.
	if out, _, status := runCLI(t, context.Background(), "send", "--help"); status != 0 || !strings.Contains(out, "produce") {
		t.Errorf("send --help: exit %d, %q", status, out)
	}
}

// TestExitStatusPerOutcome: 0 COMPLETED, 1 FAILED or no daemon, 3
// REJECTED, 4 not decided (the client's --timeout ran out while the
// command runs on), against a real daemon.
func TestExitStatusPerOutcome(t *testing.T) {
	addr := startDaemon(t)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"send", "depth", "--addr", addr}, exitCompleted},
		{[]string{"send", "depth", "--addr", addr, "--queue", "NO.SUCH.QUEUE"}, exitFailed},
		{[]string{"send", "produce", "--addr", addr, "--priority", "10"}, exitRejected},
		{[]string{"send", "depth", "--addr", "127.0.0.1:1", "--timeout", "1s"}, exitFailed},
	} {
		if _, stderr, status := runCLI(t, context.Background(), tc.args...); status != tc.want {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, status, tc.want, stderr)
		}
	}

	// 5 messages at 5/s outlast a 300ms --timeout: not decided, and how to look.
	out, stderr, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--count", "5", "--rate", "5",
		"--key", "cli-slow", "--timeout", "300ms")
	if status != exitNotDecided || strings.Contains(stderr, "is the daemon running") ||
		!strings.Contains(stderr, "the command may still be running: mqprobe send status PRODUCE cli-slow (or curl http://"+addr+"/commands/PRODUCE/cli-slow)") {
		t.Errorf("client timeout: exit %d, stdout %q, stderr %q", status, out, stderr)
	}

	// Without --key a key is generated and shown, so the command can be looked up.
	_, stderr, status = runCLI(t, context.Background(), "send", "depth", "--addr", addr)
	if status != 0 || !regexp.MustCompile(`idempotency key [0-9a-f-]{36}\n`).MatchString(stderr) {
		t.Errorf("generated key: exit %d, stderr %q", status, stderr)
	}
}

// TestAddrForms: --addr takes host:port or an http(s) URL, a path in the
// URL prefixing the API's.
func TestAddrForms(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"operationType":"DEPTH","idempotencyKey":"k","status":"COMPLETED","replay":false,"durationMs":1,`+
			`"result":{"currentDepth":3,"maxDepth":5000,"openInputCount":0,"openOutputCount":0,"queueType":"local"},"error":null,"tags":{}}`)
	}))
	defer srv.Close()
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	for addr, want := range map[string]string{
		hostPort:                  "/queue/depth",
		srv.URL:                   "/queue/depth",
		srv.URL + "/":             "/queue/depth",
		srv.URL + "/mqprobe":      "/mqprobe/queue/depth",
		srv.URL + "/mqprobe/api/": "/mqprobe/api/queue/depth",
	} {
		mu.Lock()
		paths = nil
		mu.Unlock()
		out, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", addr)
		mu.Lock()
		got := paths
		mu.Unlock()
		if status != 0 || len(got) != 1 || got[0] != want || !strings.Contains(out, `"currentDepth": 3`) {
			t.Errorf("--addr %s: exit %d, paths %v (want %s), stdout %q, stderr %q", addr, status, got, want, out, stderr)
		}
	}
}

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, as PEM files, and another CA that issued neither.
type testPKI struct {
	dir                            string
	caFile, serverCert, serverKey  string
	clientCert, clientKey, otherCA string
	ca                             *testenv.CA
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	ca := testenv.NewCA(t)
	p := testPKI{dir: t.TempDir(), ca: ca, caFile: ca.Bundle, otherCA: testenv.NewCA(t).Bundle}
	p.serverCert, p.serverKey = testenv.WriteKeyPair(t, p.dir, "server", ca.Issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth))
	p.clientCert, p.clientKey = testenv.WriteKeyPair(t, p.dir, "client", ca.Issue(t, "cli", x509.ExtKeyUsageClientAuth))
	return p
}

// TestHTTPSWithToken: over HTTPS the CLI verifies the daemon against
// --ca-file and sends the token of --token-file or $MQPROBE_TOKEN, never
// printing it; without --addr the configuration's address, TLS and token
// apply.
func TestHTTPSWithToken(t *testing.T) {
	const token = "cli-t0ken-s3cret"
	p := newTestPKI(t)
	addr := startDaemonWith(t, func(cfg *config.Config) {
		cfg.HTTP.AuthToken = token
		cfg.HTTP.TLS = httpapi.TLSSettings{CertFile: p.serverCert, KeyFile: p.serverKey}
	})
	tokenFile := filepath.Join(p.dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQPROBE_TOKEN", "")
	t.Setenv("MQPROBE_HTTP_AUTHTOKEN", "")
	depth := []string{"send", "depth", "--timeout", "10s"}
	check := func(name string, want int, args ...string) string {
		t.Helper()
		out, stderr, status := runCLI(t, context.Background(), append(depth, args...)...)
		if status != want || strings.Contains(out+stderr, token) {
			t.Errorf("%s: exit %d (want %d), or the token shown\nstdout %s\nstderr %s", name, status, want, out, stderr)
		}
		return stderr
	}
	check("https URL, CA, token file", 0, "--addr", "https://"+addr, "--ca-file", p.caFile, "--token-file", tokenFile)
	check("host:port with --ca-file means https", 0, "--addr", addr, "--ca-file", p.caFile, "--token-file", tokenFile)
	// A missing token is the caller's configuration, not a REJECTED command.
	if stderr := check("no token", exitUsage, "--addr", "https://"+addr, "--ca-file", p.caFile); !strings.Contains(stderr, "401 Unauthorized: the daemon wants its bearer token: --token-file, $MQPROBE_TOKEN") {
		t.Errorf("no token: stderr %q does not name the token options", stderr)
	}
	if stderr := check("untrusted certificate", exitFailed, "--addr", "https://"+addr, "--ca-file", p.otherCA, "--token-file", tokenFile); !strings.Contains(stderr, "certificate") {
		t.Errorf("untrusted certificate: stderr %q does not say why", stderr)
	}
	t.Setenv("MQPROBE_TOKEN", token)
	check("$MQPROBE_TOKEN", 0, "--addr", "https://"+addr, "--ca-file", p.caFile)

	// No --addr: http.addr, https for http.tls (its certificate trusted),
	// and http.authToken.
	t.Setenv("MQPROBE_TOKEN", "")
	t.Setenv("MQPROBE_HTTP_ADDR", addr)
	t.Setenv("MQPROBE_HTTP_TLS_CERTFILE", p.serverCert)
	t.Setenv("MQPROBE_HTTP_TLS_KEYFILE", p.serverKey)
	t.Setenv("MQPROBE_HTTP_AUTHTOKEN", token)
	check("the configuration's defaults", 0)
	if out, stderr, status := runCLI(t, context.Background(), "health"); status != 0 || !strings.Contains(out, "health/ready") {
		t.Errorf("health over the configuration's HTTPS: exit %d\n%s\n%s", status, out, stderr)
	}
}

// TestMTLS: a daemon that asks for client certificates serves the CLI
// with --cert-file/--key-file and refuses it without.
func TestMTLS(t *testing.T) {
	p := newTestPKI(t)
	addr := startDaemonWith(t, func(cfg *config.Config) {
		cfg.HTTP.TLS = httpapi.TLSSettings{CertFile: p.serverCert, KeyFile: p.serverKey, ClientCAFile: p.caFile}
	})
	t.Setenv("MQPROBE_TOKEN", "")
	t.Setenv("MQPROBE_HTTP_AUTHTOKEN", "")
	if out, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", addr, "--ca-file", p.caFile,
		"--cert-file", p.clientCert, "--key-file", p.clientKey); status != 0 || !strings.Contains(out, `"currentDepth"`) {
		t.Errorf("with a client certificate: exit %d\n%s\n%s", status, out, stderr)
	}
	if _, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", addr, "--ca-file", p.caFile,
		"--timeout", "5s"); status != exitFailed {
		t.Errorf("without a client certificate: exit %d, want %d\n%s", status, exitFailed, stderr)
	}
	// The look-up hint after a timeout is a curl command that works here.
	_, stderr, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--ca-file", p.caFile,
		"--cert-file", p.clientCert, "--key-file", p.clientKey, "--count", "5", "--rate", "5", "--key", "mtls-slow", "--timeout", "300ms")
	want := fmt.Sprintf("curl --cacert %q --cert %q --key %q https://%s/commands/PRODUCE/mtls-slow", p.caFile, p.clientCert, p.clientKey, addr)
	if status != exitNotDecided || !strings.Contains(stderr, want) {
		t.Fatalf("timeout hint: exit %d, stderr %q; want %q", status, stderr, want)
	}
	out, err := exec.Command("sh", "-c", want+" -sS").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"idempotencyKey":"mtls-slow"`) {
		t.Errorf("the hint's curl command: %v\n%s", err, out)
	}
}

func TestVersionDetails(t *testing.T) {
	out, status := mqprobe(t, "version")
	for _, want := range []string{"mqprobe ", "\n  commit:", "\n  built:", "\n  go:          " + runtime.Version() + "\n",
		versionIBMMQLine} {
		if status != 0 || !strings.Contains(out, want) {
			t.Errorf("version: exit %d, %q lacks %q", status, out, want)
		}
	}
	commit, buildDate = "0123abc", "2026-11-24T10:00:00Z"
	defer func() { commit, buildDate = "", "" }()
	if out, _ := mqprobe(t, "version"); !strings.Contains(out, "commit:      0123abc\n") || !strings.Contains(out, "built:       2026-11-24T10:00:00Z\n") {
		t.Errorf("version with -ldflags values: %q", out)
	}
}

func TestHealth(t *testing.T) {
	addr := startDaemon(t)
	if out, stderr, status := runCLI(t, context.Background(), "health", "--addr", addr); status != 0 || !strings.Contains(out, "health/ready") {
		t.Errorf("healthy daemon: exit %d\n%s\n%s", status, out, stderr)
	}
	sick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"status":"draining"}`)
	}))
	defer sick.Close()
	if _, stderr, status := runCLI(t, context.Background(), "health", "--addr", sick.URL); status != exitFailed ||
		!strings.Contains(stderr, `/health/ready: 503 Service Unavailable: {"status":"draining"}`) {
		t.Errorf("503: exit %d, stderr %q", status, stderr)
	}
	if _, stderr, status := runCLI(t, context.Background(), "health", "--addr", "127.0.0.1:1"); status != exitFailed || !strings.Contains(stderr, "no answer") {
		t.Errorf("nothing listening: exit %d, stderr %q", status, stderr)
	}
}

// fakeCommands is a daemon's POST /messages/produce and
// GET /commands/{operationType}/{key} as the API contract describes them:
// the POST blocks until the command has been polled `polls` times, and
// each poll shows more progress.
type fakeCommands struct {
	t     *testing.T
	polls int
	addr  string

	mu      sync.Mutex
	key     string
	total   int64
	seen    int
	started time.Time
	pollC   chan struct{}
}

func newFakeCommands(t *testing.T, polls int) *fakeCommands {
	f := &fakeCommands{t: t, polls: polls, pollC: make(chan struct{}, 1000), started: time.Now().UTC()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /messages/produce", f.produce)
	mux.HandleFunc("GET /commands/{op}/{key}", f.state)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.addr = srv.URL
	return f
}

func (f *fakeCommands) produce(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Batch struct {
			Count int64 `json:"count"`
		} `json:"batch"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		f.t.Errorf("POST: %v", err)
	}
	f.mu.Lock()
	f.key, f.total = r.Header.Get("Idempotency-Key"), body.Batch.Count
	f.mu.Unlock()
	for range f.polls {
		select {
		case <-f.pollC:
		case <-time.After(10 * time.Second):
			f.t.Error("the CLI stopped polling GET /commands")
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(f.result())
}

func (f *fakeCommands) result() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	out, _ := json.Marshal(map[string]any{"operationType": "PRODUCE", "idempotencyKey": f.key, "status": "COMPLETED",
		"replay": false, "target": "QM1:DEV.QUEUE.1", "attempt": 1, "durationMs": 50012, "error": nil, "tags": map[string]string{},
		"result": map[string]any{"enqueued": f.total, "transactions": f.total / 100, "bytes": f.total * 1024, "elapsed": "PT50S",
			"ratePerSec": 19999.5, "latencyMs": map[string]any{"p50": 0.031, "p95": 0.052, "p99": 0.081, "max": 1.5}}})
	return out
}

func (f *fakeCommands) state(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ms := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }
	if r.PathValue("op") != "PRODUCE" || f.key == "" || r.PathValue("key") != f.key {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"type":"https://mqprobe.dev/problems/not-found","title":"Not found","status":404,"detail":"no %s command with key %s"}`,
			r.PathValue("op"), r.PathValue("key"))
		return
	}
	f.seen++
	done := int64(5230 * f.seen)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"operationType":"PRODUCE","idempotencyKey":%q,"status":"IN_PROGRESS","attempt":1,`+
		`"createdAt":%q,"updatedAt":%q,"expiresAt":%q,"lease":{"holder":"probe-1","expiresAt":%q},`+
		`"progress":{"total":%d,"done":%d,"committed":%d,"ratePerSec":19987.2,"startedAt":%q}}`,
		f.key, ms(f.started), ms(time.Now()), ms(f.started.Add(24*time.Hour)), ms(time.Now().Add(30*time.Second)),
		f.total, done, done/100*100, ms(f.started))
	select {
	case f.pollC <- struct{}{}:
	default:
	}
}

// runOnPTY runs the CLI with stdout on a pseudo-terminal and returns what
// the terminal showed, stderr and the exit status.
func runOnPTY(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	terminal, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pseudo-terminal: %v", err)
	}
	defer terminal.Close()
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(&screen, terminal) //nolint:errcheck // ends with EIO once tty closes
	}()
	var stderr bytes.Buffer
	status := execute(context.Background(), args, tty, &stderr)
	tty.Close()
	<-read
	return strings.ReplaceAll(screen.String(), "\r\n", "\n"), stderr.String(), status
}

// TestProduceLiveLineOnATerminal: send produce --wait on a terminal polls
// GET /commands/PRODUCE/{key} while the POST runs, redraws one live line
// (done/total, committed, rate, ETA), then prints the summary.
func TestProduceLiveLineOnATerminal(t *testing.T) {
	f := newFakeCommands(t, 4)
	screen, stderr, status := runOnPTY(t, "send", "produce", "--addr", f.addr, "--count", "1000000", "--rate", "20000", "--wait")
	if status != 0 {
		t.Fatalf("exit %d\nscreen %q\nstderr %s", status, screen, stderr)
	}
	key := regexp.MustCompile(`idempotency key ([0-9a-f-]{36})\n`).FindStringSubmatch(stderr)
	if key == nil || key[1] != f.key {
		t.Fatalf("the generated key is not shown, or not the one sent (%q): stderr %q", f.key, stderr)
	}
	live := regexp.MustCompile(`\r\[#*-*\] [0-9.]+s +[0-9]+%  put ([0-9]+)/1000000  committed ([0-9]+)  19987\.2 msg/s  ETA [0-9hms]+`)
	lines := live.FindAllStringSubmatch(screen, -1)
	if len(lines) < 2 || lines[0][1] != "5230" || lines[0][2] != "5200" || lines[1][1] != "10460" {
		t.Errorf("live lines %q in screen %q", lines, screen)
	}
	summary := regexp.MustCompile(`\nPRODUCE ` + f.key + `  COMPLETED  QM1:DEV.QUEUE.1  in 50.012s\n  enqueued +1000000\n`)
	if !summary.MatchString(screen) || strings.Contains(screen, `"enqueued"`) {
		t.Errorf("no summary table after the live line:\n%q", screen)
	}
}

// TestProduceLiveLineAgainstTheDaemon: the same under a real daemon: the
// line shows the daemon's live counts (GET /commands/PRODUCE/{key}) while
// the paced PRODUCE runs, and the summary follows.
func TestProduceLiveLineAgainstTheDaemon(t *testing.T) {
	addr := startDaemon(t)
	screen, stderr, status := runOnPTY(t, "send", "produce", "--addr", addr, "--count", "4000", "--rate", "4000", "--wait", "--key", "cli-pty")
	if status != 0 {
		t.Fatalf("exit %d\nscreen %q\nstderr %s", status, screen, stderr)
	}
	live := regexp.MustCompile(`\r\[[-#]{20}\] [0-9.]+s +[0-9]+%  put ([0-9]+)/4000  committed ([0-9]+)  [0-9.]+ msg/s  ETA [0-9hms]+`)
	lines := live.FindAllStringSubmatch(screen, -1)
	if len(lines) == 0 {
		t.Fatalf("no live line with the daemon's counts on the terminal: %q", screen)
	}
	for _, l := range lines {
		put, _ := strconv.Atoi(l[1])
		committed, _ := strconv.Atoi(l[2])
		if put < 1 || committed > put {
			t.Errorf("live line %q: want 0 < put and committed <= put", l[0])
		}
	}
	if !strings.Contains(screen, "\nPRODUCE cli-pty  COMPLETED  QM1:DEV.QUEUE.1  in ") ||
		!regexp.MustCompile(`\n  enqueued +4000\n`).MatchString(screen) {
		t.Errorf("no summary: %q", screen)
	}
	// JSON on demand, also on a terminal.
	screen, _, status = runOnPTY(t, "send", "produce", "--addr", addr, "--count", "4000", "--rate", "4000", "--key", "cli-pty", "--output", "json")
	if status != 0 || !strings.Contains(screen, `"enqueued": 4000`) {
		t.Errorf("--output json: exit %d, %q", status, screen)
	}
}

// TestSendStatus: send status shows a command's live state, its exit
// status saying whether it is decided.
func TestSendStatus(t *testing.T) {
	f := newFakeCommands(t, 1)
	f.mu.Lock()
	f.key, f.total = "k1", 1000
	f.mu.Unlock()
	out, stderr, status := runCLI(t, context.Background(), "send", "status", "produce", "k1", "--addr", f.addr, "--output", "table")
	if status != exitNotDecided || !strings.Contains(out, "PRODUCE k1  IN_PROGRESS  attempt 1") ||
		!strings.Contains(out, "running on probe-1") || !strings.Contains(out, "done 5230/1000, committed 5200, 19987.2 msg/s") {
		t.Errorf("in progress: exit %d\n%s\n%s", status, out, stderr)
	}
	out, stderr, status = runCLI(t, context.Background(), "send", "status", "PRODUCE", "nope", "--addr", f.addr)
	if status != exitFailed || !strings.Contains(stderr, "no PRODUCE command with key nope") || !strings.Contains(out, "not-found") {
		t.Errorf("unknown key: exit %d\n%s\n%s", status, out, stderr)
	}
}

// TestConsumeSummaryLeavesPayloadsOut: the CONSUME table lists messages
// without their payloads unless asked.
func TestConsumeSummaryLeavesPayloadsOut(t *testing.T) {
	addr := startDaemon(t)
	if _, _, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--queue", "DEV.QUEUE.3", "--count", "10",
		"--payload", "template", "--template", "hello {{seq}}"); status != 0 {
		t.Fatalf("produce: exit %d", status)
	}
	out, _, status := runCLI(t, context.Background(), "send", "consume", "--addr", addr, "--queue", "DEV.QUEUE.3",
		"--max-messages", "5", "--wait-seconds", "0", "--browse", "--output", "table")
	if status != 0 || !regexp.MustCompile(`\n  received +0\n  browsed +5\n`).MatchString(out) ||
		strings.Count(out, "nonpersistent") != 5 || strings.Contains(out, "hello") || strings.Contains(out, "payloadBase64") {
		t.Errorf("consume table: exit %d\n%s", status, out)
	}
	out, _, _ = runCLI(t, context.Background(), "send", "consume", "--addr", addr, "--queue", "DEV.QUEUE.3",
		"--max-messages", "2", "--wait-seconds", "0", "--output", "table", "--show-payloads")
	if !strings.Contains(out, `payload: "hello 1"`) || !strings.Contains(out, `payload: "hello 2"`) {
		t.Errorf("--show-payloads:\n%s", out)
	}
}

// TestConsumeLiveLineAgainstTheDaemon: a CONSUME waiting for messages
// shows its live line (got 0 of 10 so far), then its summary once the
// messages it waited for arrive.
func TestConsumeLiveLineAgainstTheDaemon(t *testing.T) {
	addr := startDaemon(t)
	produced := make(chan int, 1)
	go func() {
		time.Sleep(time.Second) // the CONSUME waits on an empty queue meanwhile
		_, status := mqprobe(t, "send", "produce", "--addr", addr, "--queue", "DEV.QUEUE.3", "--count", "10")
		produced <- status
	}()
	screen, stderr, status := runOnPTY(t, "send", "consume", "--addr", addr, "--queue", "DEV.QUEUE.3", "--max-messages", "10",
		"--wait-seconds", "10", "--wait", "--key", "cli-pty-consume")
	if p := <-produced; p != 0 {
		t.Fatalf("produce: exit %d", p)
	}
	if status != 0 {
		t.Fatalf("exit %d\nscreen %q\nstderr %s", status, screen, stderr)
	}
	if !regexp.MustCompile(`\r\[-{20}\] [0-9.]+s +0%  got 0/10  committed 0[^0-9]`).MatchString(screen) {
		t.Errorf("no live line from the daemon while the CONSUME waits: %q", screen)
	}
	if !strings.Contains(screen, "\nCONSUME cli-pty-consume  COMPLETED  QM1:DEV.QUEUE.3  in ") ||
		!regexp.MustCompile(`\n  received +10\n`).MatchString(screen) {
		t.Errorf("no summary: %q", screen)
	}
}

// TestWaitPerOperationOverHTTP: --wait means "wait for the outcome" for
// every operation; over HTTP the reply is the outcome, so each completes.
func TestWaitPerOperationOverHTTP(t *testing.T) {
	addr := startDaemon(t)
	for _, args := range [][]string{
		{"produce", "--count", "3"},
		{"consume", "--max-messages", "3", "--wait-seconds", "0"},
		{"depth"},
		{"connection-test"},
	} {
		out, stderr, status := runCLI(t, context.Background(), append([]string{"send"}, append(args, "--addr", addr, "--wait", "--output", "json")...)...)
		if status != 0 || !strings.Contains(out, `"status": "COMPLETED"`) {
			t.Errorf("send %s --wait: exit %d\n%s\n%s", args[0], status, out, stderr)
		}
	}
}

// TestSizeUnits: --size takes plain bytes or a size with a binary or
// decimal unit; anything else is a usage error naming the flag and the forms.
func TestSizeUnits(t *testing.T) {
	addr := startDaemon(t)
	for size, want := range map[string]int{"300": 600, "2KiB": 4096, "1KB": 2000, "1 MiB": 2 << 20} {
		out, stderr, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--count", "2", "--size", size, "--output", "json")
		var reply struct {
			Result struct {
				Bytes int `json:"bytes"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(out), &reply); status != 0 || err != nil || reply.Result.Bytes != want {
			t.Errorf("--size %q: exit %d, %s %s; want %d bytes put", size, status, out, stderr, want)
		}
	}
	_, stderr, status := runCLI(t, context.Background(), "send", "test", "--addr", addr, "--size", "2XB")
	if want := `invalid argument "2XB" for "--size" flag: give bytes (1024) or a size with a unit: 2KiB, 1MiB (1024-based), 2KB, 1MB (1000-based)`; status != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("--size 2XB: exit %d, %s; want 2 and %q", status, stderr, want)
	}
}

// TestConsumePayloadsOnlyWhenAsked: the CLI's CONSUME leaves payloads out
// of the result (ids and sizes stay) unless --include-payloads asks; over
// HTTP a CONSUME without includePayloads still gets them.
func TestConsumePayloadsOnlyWhenAsked(t *testing.T) {
	addr := startDaemon(t)
	if _, _, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--queue", "DEV.QUEUE.3", "--count", "3",
		"--payload", "template", "--template", "hello {{seq}}"); status != 0 {
		t.Fatalf("produce: exit %d", status)
	}
	type consumed struct {
		Result struct {
			Messages []struct {
				MsgIDBase64   string
				SizeBytes     int
				PayloadBase64 string
			}
			PayloadsOmitted bool
		}
	}
	for _, tc := range []struct {
		flags   []string
		payload string
	}{{nil, ""}, {[]string{"--include-payloads"}, "aGVsbG8gMQ=="}} {
		out, stderr, status := runCLI(t, context.Background(), append([]string{"send", "consume", "--addr", addr, "--queue", "DEV.QUEUE.3",
			"--browse", "--wait-seconds", "0", "--output", "json"}, tc.flags...)...)
		var r consumed
		if err := json.Unmarshal([]byte(out), &r); status != 0 || err != nil || len(r.Result.Messages) != 1 ||
			r.Result.Messages[0].MsgIDBase64 == "" || r.Result.Messages[0].SizeBytes != 7 ||
			r.Result.Messages[0].PayloadBase64 != tc.payload || r.Result.PayloadsOmitted != (tc.payload == "") {
			t.Errorf("consume %v: exit %d %s %s", tc.flags, status, out, stderr)
		}
	}
	resp, err := http.Post("http://"+addr+"/messages/consume", "application/json",
		strings.NewReader(`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"},"browseOnly":true,"waitSeconds":0}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r consumed
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Result.Messages) != 1 ||
		r.Result.Messages[0].PayloadBase64 != "aGVsbG8gMQ==" || r.Result.PayloadsOmitted {
		t.Errorf("HTTP CONSUME without includePayloads: %d %+v %v; want the payload", resp.StatusCode, r, err)
	}
}

// TestProduceHelpStatesTheCount: HTTP requires batch.count; the CLI's
// help says what it sends when --count is not given.
func TestProduceHelpStatesTheCount(t *testing.T) {
	out, _, status := runCLI(t, context.Background(), "send", "produce", "--help")
	if !regexp.MustCompile(`--count int +messages to put \(batch\.count, which HTTP requires; the CLI always sends it\) \(default 1\)`).MatchString(out) || status != 0 {
		t.Errorf("send produce --help: exit %d\n%s", status, out)
	}
}

// TestYAMLAndQuery: -o yaml prints the answer as block YAML in its key
// order; --query narrows it with JMESPath, printed as JSON or YAML.
func TestYAMLAndQuery(t *testing.T) {
	addr := startDaemon(t)
	out, stderr, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--count", "3", "--key", "yaml-1",
		"--tag", "flag=true", "--tag", "n=007", "-o", "yaml")
	for _, want := range []string{"operationType: PRODUCE\nidempotencyKey: yaml-1\nstatus: COMPLETED\n", "\n  enqueued: 3\n",
		"\n  flag: \"true\"\n", "\n  n: \"007\"\n"} {
		if status != 0 || !strings.Contains(out, want) {
			t.Errorf("-o yaml: exit %d, %s%s; want %q", status, out, stderr, want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--query", "result.result.enqueued"}, "3\n"},
		{[]string{"--query", "{key: idempotencyKey, n: result.result.enqueued}"}, "{\n  \"key\": \"yaml-1\",\n  \"n\": 3\n}\n"},
		{[]string{"--query", "{key: idempotencyKey}", "-o", "yaml"}, "key: yaml-1\n"},
	} {
		out, stderr, status := runCLI(t, context.Background(), append([]string{"send", "status", "PRODUCE", "yaml-1", "--addr", addr, "--query"}, tc.args[1:]...)...)
		if status != 0 || out != tc.want {
			t.Errorf("send status %v: exit %d, %q %s; want %q", tc.args, status, out, stderr, tc.want)
		}
	}
}

// TestConsumeShowsItWaits: without --wait too, a CONSUME waiting on an
// empty queue draws its live line on a terminal instead of waiting
// silently.
func TestConsumeShowsItWaits(t *testing.T) {
	addr := startDaemon(t)
	screen, stderr, status := runOnPTY(t, "send", "consume", "--addr", addr, "--queue", "DEV.QUEUE.3", "--max-messages", "4",
		"--wait-seconds", "3", "--key", "cli-pty-consume-empty")
	if status != 0 || !regexp.MustCompile(`\r\[-{20}\] [0-9.]+s +0%  got 0/4  committed 0[^0-9]`).MatchString(screen) ||
		!strings.Contains(screen, "\nCONSUME cli-pty-consume-empty  COMPLETED") {
		t.Errorf("exit %d, stderr %s; no live line while the CONSUME waits:\n%q", status, stderr, screen)
	}
}

// TestMsgIDFormat: tables show MsgIds in hex, saying so; --msgid-format
// base64 shows the API's encoding, as the JSON has it.
func TestMsgIDFormat(t *testing.T) {
	addr := startDaemon(t)
	out, _, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--count", "2", "--key", "msgid-1", "-o", "json")
	var reply struct{ Result struct{ FirstMsgID string } }
	if err := json.Unmarshal([]byte(out), &reply); err != nil || status != 0 || reply.Result.FirstMsgID == "" {
		t.Fatalf("produce: exit %d %s", status, out)
	}
	raw, _ := base64.StdEncoding.DecodeString(reply.Result.FirstMsgID)
	for format, want := range map[string]string{
		"":       "first MsgId (hex)",
		"hex":    "first MsgId (hex)",
		"base64": "first MsgId (base64)",
	} {
		args := []string{"send", "produce", "--addr", addr, "--count", "2", "--key", "msgid-1", "-o", "table"}
		value := hex.EncodeToString(raw)
		if format != "" {
			args = append(args, "--msgid-format", format)
		}
		if format == "base64" {
			value = reply.Result.FirstMsgID
		}
		out, _, status := runCLI(t, context.Background(), args...)
		if status != 0 || !regexp.MustCompile(regexp.QuoteMeta(want)+` +`+regexp.QuoteMeta(value)+`\n`).MatchString(out) {
			t.Errorf("--msgid-format %q: exit %d\n%s\nwant %s  %s", format, status, out, want, value)
		}
	}
	out, _, _ = runCLI(t, context.Background(), "send", "consume", "--addr", addr, "--max-messages", "2", "--wait-seconds", "0", "-o", "table")
	if !strings.Contains(out, "MsgId (hex)") || !strings.Contains(out, hex.EncodeToString(raw)) {
		t.Errorf("consume table:\n%s\nwant the MsgIds in hex, said so", out)
	}
	if _, stderr, status := runCLI(t, context.Background(), "send", "depth", "--msgid-format", "b64"); status != exitUsage ||
		!strings.Contains(stderr, `--msgid-format "b64": must be hex or base64`) {
		t.Errorf("--msgid-format b64: exit %d %s", status, stderr)
	}
}
