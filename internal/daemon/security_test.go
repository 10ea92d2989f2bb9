package daemon_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestTargetPolicy: commands reach only what the operator allowed, and a
// refused one never opens a connection.
func TestTargetPolicy(t *testing.T) {
	t.Setenv("MQPROBE_TEST_LAB_PASSWORD", "lab-pw")
	var counter *mqtest.CountingBackend
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		counter = &mqtest.CountingBackend{Backend: s.Opts.Backend}
		s.Opts.Backend = counter
		s.Cfg.Targets.Inline = targets.Allowlist{QueueManagers: []string{"QM1"}, Queues: []string{"DEV.QUEUE.1"},
			Hosts: []string{"*.mq.example.com:1414"}}
		s.Cfg.Targets.Profiles = map[string]targets.ProfileConfig{
			"lab":    {QueueManager: "QM1", Queue: "DEV.QUEUE.2", AllowedQueues: []string{"DEV.QUEUE.3"}, Auth: targets.AuthConfig{User: "app", PasswordRef: "env:MQPROBE_TEST_LAB_PASSWORD"}},
			"broken": {QueueManager: "QM1", Queue: "DEV.QUEUE.2", Auth: targets.AuthConfig{User: "app", PasswordRef: "env:MQPROBE_TEST_UNSET_PASSWORD"}},
		}
	})
	refused := map[string]string{
		`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"}}`:                                                         "targets.inline.queues",
		`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","channel":"DEV.APP.SVRCONN","connName":"evil.org(1414)"}}`: "targets.inline.hosts",
		`{"targetRef":"lab","queue":"DEV.QUEUE.1"}`:                                                                       "allowedQueues",
		`{"targetRef":"broken"}`: "env:MQPROBE_TEST_UNSET_PASSWORD",
	}
	for body, says := range refused {
		r := h.Post("/queue/depth", body)
		p := r.JSON(t)
		if r.Status != http.StatusUnprocessableEntity || p["code"] != "TARGET_NOT_ALLOWED" || !strings.Contains(p["detail"].(string), says) {
			t.Errorf("%s: %d %s; want 422 TARGET_NOT_ALLOWED naming %s", body, r.Status, r.Body, says)
		}
	}
	if n := counter.Connects.Load(); n != 0 {
		t.Fatalf("refused commands opened %d connections", n)
	}
	// On the bus the refusal is a rejected result event, never retried.
	h.Submit(`{"operationType":"DEPTH","idempotencyKey":"bus-refused","targetRef":"lab","queue":"SYSTEM.ADMIN.COMMAND.QUEUE"}`)
	if got := daemontest.Summary(h.WaitResults("bus-refused", 1)); got["REJECTED/TARGET_NOT_ALLOWED"] != 1 || len(got) != 1 {
		t.Errorf("bus refusal: %v", got)
	}
	// What is allowed runs: the profile's queue, an allowed queue, an allowed inline target.
	for body, queue := range map[string]string{
		`{"targetRef":"lab"}`:                                     "QM1:DEV.QUEUE.2",
		`{"targetRef":"lab","queue":"DEV.QUEUE.3"}`:               "QM1:DEV.QUEUE.3",
		`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`: "QM1:DEV.QUEUE.1",
	} {
		r := h.Post("/queue/depth", body)
		if r.Status != http.StatusOK || r.JSON(t)["target"] != queue {
			t.Errorf("%s: %d %s; want 200 on %s", body, r.Status, r.Body, queue)
		}
	}
	// A queue without targetRef is a schema error naming the rule.
	r := h.Post("/queue/depth", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"queue":"DEV.QUEUE.2"}`)
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "targetRef") {
		t.Errorf("queue with an inline target: %d %s", r.Status, r.Body)
	}
}

// TestRateLimit: a target over its token bucket gets 429 with Retry-After
// over HTTP and is redelivered on the bus; replays are not limited.
func TestRateLimit(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Targets.Profiles = map[string]targets.ProfileConfig{
			"slow": {QueueManager: "QM1", Queue: "DEV.QUEUE.1", RateLimit: targets.ProfileRateLimit{CommandsPerSecond: 2, Burst: 2}},
		}
	})
	body := `{"targetRef":"slow"}`
	for i := range 2 {
		if r := h.Post("/queue/depth", body, "Idempotency-Key", "rl-"+strconv.Itoa(i)); r.Status != http.StatusOK {
			t.Fatalf("command %d within the burst: %d %s", i, r.Status, r.Body)
		}
	}
	r := h.Post("/queue/depth", body, "Idempotency-Key", "rl-2")
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "1" || r.JSON(t)["type"] != "https://mqprobe.dev/problems/rate-limited" {
		t.Fatalf("third command in the burst: %d Retry-After %q %s; want 429 with Retry-After 1", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	// Nothing was recorded for the refused command: it runs once admitted.
	if got := h.Results("rl-2"); len(got) != 0 {
		t.Fatalf("a rate-limited command left result events: %+v", got)
	}
	// A replay costs the target nothing, so it is answered at once.
	if r := h.Post("/queue/depth", body, "Idempotency-Key", "rl-0"); r.Status != http.StatusOK || r.Header.Get("Idempotent-Replay") != "true" {
		t.Fatalf("replay under the limit: %d %s", r.Status, r.Body)
	}
	// On the bus an over-limit command comes back later and runs once.
	for i := range 4 {
		h.Submit(`{"operationType":"DEPTH","targetRef":"slow"}`, "Idempotency-Key", "rl-bus-"+strconv.Itoa(i))
	}
	for i := range 4 {
		if got := daemontest.Summary(h.WaitResults("rl-bus-"+strconv.Itoa(i), 1)); got["COMPLETED"] != 1 || len(got) != 1 {
			t.Errorf("bus command %d under the rate limit: %v", i, got)
		}
	}
}

// TestPastedPasswordsRedactedWhateverTheEnvelope: a password pasted where a
// reference belongs, inside an SNS notification on the bus (escaped in its
// Message) or in a body cut off mid-value, reaches neither the reply, nor
// the result events, nor the logs.
func TestPastedPasswordsRedactedWhateverTheEnvelope(t *testing.T) {
	const pasted = "Pasted-Canary-41c7e2"
	logs := &testenv.Buffer{}
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Opts.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	depth := `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","auth":{"user":"app","passwordRef":"` + pasted + `"}}}`
	message, err := json.Marshal(depth)
	if err != nil {
		t.Fatal(err)
	}
	notification := `{"Type":"Notification","MessageId":"sns-pasted-1","Message":` + string(message) + `}`
	cut := func(body string) string { return body[:strings.Index(body, pasted)+len(pasted)/2] }
	var answers strings.Builder
	for _, c := range []struct{ path, key, body string }{
		{"/commands", "pasted-sns", notification},
		{"/commands", "pasted-sns-cut", cut(notification)},
		{"/queue/depth", "pasted-cut", cut(depth)},
	} {
		r := h.Post(c.path, c.body, "Idempotency-Key", c.key)
		fmt.Fprintf(&answers, "%d %v %s\n", r.Status, r.Header, r.Body)
		evs := h.WaitResults(c.key, 1)
		if d := evs[0].Data; d.Status != "REJECTED" || !strings.Contains(d.RawBody, "<redacted>") {
			t.Errorf("%s %s: %s %s rawBody %s; want REJECTED with the password redacted", c.path, c.key, d.Status, d.Error.Code, d.RawBody)
		}
	}
	_, _, results := h.Get("/results?limit=1000")
	h.Shutdown()
	for where, text := range map[string]string{"replies": answers.String(), "result events": string(results), "logs": logs.String()} {
		if i := strings.Index(text, pasted[:8]); i >= 0 {
			t.Errorf("the password appears in the %s: …%s…", where, text[max(0, i-200):min(len(text), i+50)])
		}
	}
}

// TestInvalidIdempotencyKeysEchoedCapped: an invalid key is echoed at most
// command.MaxEchoedKeyLength characters, escaped, in the problem, the result
// event and the audit line, and never in the Idempotency-Key header; a valid
// one is echoed as given.
func TestInvalidIdempotencyKeysEchoedCapped(t *testing.T) {
	logs := &testenv.Buffer{}
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Opts.Log = slog.New(slog.NewJSONHandler(logs, nil))
	})
	long := strings.Repeat("k", 100000)
	longEcho := strings.Repeat("k", command.MaxEchoedKeyLength) + "…(+99936 more)"
	depth := `{` + daemontest.Target + `}`
	withBodyKey := `{"idempotencyKey":"ctl\u0000\u001b[31m\r\nX-Injected: 1",` + daemontest.Target + `}`
	for _, c := range []struct {
		name, body, header, echo string
	}{
		{"100,000-character header", depth, long, longEcho},
		{"control characters in the command's key", withBodyKey, "", `ctl\x00\x1b[31m\r\nX-Injected: 1`},
		{"tab and a non-ASCII byte in the header", depth, "tab\there\xff", `tab\there\xff`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var headers []string
			if c.header != "" {
				headers = []string{"Idempotency-Key", c.header}
			}
			r := h.Post("/queue/depth", c.body, headers...)
			p := r.JSON(t)
			if r.Status != http.StatusBadRequest || p["code"] != "INVALID_KEY" || p["idempotencyKey"] != c.echo {
				t.Errorf("%d %s; want 400 INVALID_KEY echoing %q", r.Status, r.Body, c.echo)
			}
			if got, ok := r.Header["Idempotency-Key"]; ok || r.Header.Get("X-Injected") != "" {
				t.Errorf("reply headers echo the key: Idempotency-Key %q, X-Injected %q", got, r.Header.Get("X-Injected"))
			}
			if len(r.Body) > 2000 {
				t.Errorf("reply body of %d bytes: %.300s", len(r.Body), r.Body)
			}
			evs := h.Results(c.echo)
			if len(evs) != 1 || evs[0].Data.Error == nil || evs[0].Data.Error.Code != "INVALID_KEY" {
				t.Fatalf("stored events under %q: %+v", c.echo, evs)
			}
			if stored, _ := json.Marshal(evs[0]); len(stored) > 3000 {
				t.Errorf("stored event of %d bytes", len(stored))
			}
		})
	}
	// On the bus: the Location names the rejection's echoed key.
	r := h.Post("/commands", `{"operationType":"DEPTH",`+daemontest.Target+`}`, "Idempotency-Key", long)
	if loc := r.Header.Get("Location"); r.Status != http.StatusAccepted || loc != "/results?idempotencyKey="+url.QueryEscape(longEcho) {
		t.Errorf("POST /commands: %d Location %.200q", r.Status, loc)
	}
	if got := daemontest.Summary(h.WaitResults(longEcho, 2)); got["REJECTED/INVALID_KEY"] != 2 {
		t.Errorf("results under the echoed key: %v", got)
	}
	// A valid key is echoed as given, even on a rejection.
	r = h.Post("/queue/depth", `{`+daemontest.Target+`,"tags":{"n":1}}`, "Idempotency-Key", "valid-key-1")
	if r.Status != http.StatusUnprocessableEntity || r.Header.Get("Idempotency-Key") != "valid-key-1" || r.JSON(t)["idempotencyKey"] != "valid-key-1" {
		t.Errorf("valid key on a rejection: %d %v %s", r.Status, r.Header, r.Body)
	}
	_, _, results := h.Get("/results?limit=1000")
	h.Shutdown()
	for where, text := range map[string]string{"result events": string(results), "logs": logs.String()} {
		if strings.Contains(text, strings.Repeat("k", command.MaxEchoedKeyLength+1)) {
			t.Errorf("the %s hold more than %d characters of the key", where, command.MaxEchoedKeyLength)
		}
	}
	if !strings.Contains(logs.String(), `"msg":"command","key":"`+longEcho+`"`) {
		t.Errorf("no audit line names the key as echoed: %.2000s", logs.String())
	}
}

// TestEmbeddedBackendRefusesInlineConnections: the embedded backend
// connects nowhere, so a connection test naming where to connect is
// refused, naming the field, instead of answered connected: true.
func TestEmbeddedBackendRefusesInlineConnections(t *testing.T) {
	var counter *mqtest.CountingBackend
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		counter = &mqtest.CountingBackend{Backend: s.Opts.Backend}
		s.Opts.Backend = counter
		s.Cfg.Targets.Inline.CCDTURLs = []string{"https://config.example.com/ccdt/*"}
	})
	for field, member := range map[string]string{
		"target.connName": `"connName":"169.254.169.254(80)"`,
		"target.channel":  `"channel":"DEV.APP.SVRCONN"`,
		"target.ccdtUrl":  `"ccdtUrl":"https://config.example.com/ccdt/qm1.json"`,
		"target.ssl":      `"ssl":{"cipherSpec":"ANY_TLS13_OR_HIGHER"}`,
	} {
		r := h.Post("/connections/test", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1",`+member+`}}`)
		p := r.JSON(t)
		detail, _ := p["detail"].(string)
		if r.Status != http.StatusUnprocessableEntity || p["code"] != "TARGET_NOT_ALLOWED" ||
			!strings.HasPrefix(detail, field+": the embedded MQ backend connects nowhere") || !strings.Contains(detail, "mq.backend ibmmq") {
			t.Errorf("%s: %d %s; want 422 TARGET_NOT_ALLOWED naming the field and the rule", field, r.Status, r.Body)
		}
	}
	if n := counter.Connects.Load(); n != 0 {
		t.Fatalf("refused connection tests connected %d times", n)
	}
	r := h.Post("/connections/test", `{`+daemontest.Target+`}`)
	if r.Status != http.StatusOK || r.JSON(t)["result"].(map[string]any)["connected"] != true {
		t.Errorf("connection test to the embedded queue manager: %d %s", r.Status, r.Body)
	}
}

// TestMutualTLS: with http.tls.clientCAFile the API speaks HTTPS and
// accepts only clients holding a certificate the CA signed.
func TestMutualTLS(t *testing.T) {
	ca := testenv.NewCA(t)
	serverCertFile, serverKeyFile := testenv.WriteKeyPair(t, t.TempDir(), "server", ca.Issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth))
	clientCert := ca.Issue(t, "probe-client", x509.ExtKeyUsageClientAuth)
	strangerCert := testenv.NewCA(t).Issue(t, "stranger", x509.ExtKeyUsageClientAuth)

	cfg := config.Default()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Idempotency.Store = config.StoreMemory
	cfg.HTTP.TLS = httpapi.TLSSettings{CertFile: serverCertFile, KeyFile: serverKeyFile, ClientCAFile: ca.Bundle}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test", Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})

	roots := ca.Pool()
	client := func(certs ...tls.Certificate) *http.Client {
		return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs, MinVersion: tls.VersionTLS12}}}
	}
	url := "https://" + d.Addr() + "/status"
	var resp *http.Response
	testenv.Until(5*time.Second, func() bool {
		resp, err = client(clientCert).Get(url)
		return err == nil
	})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("client with a certificate: %v %v", resp, err)
	}
	resp.Body.Close()
	for name, c := range map[string]*http.Client{"no certificate": client(), "another CA's certificate": client(strangerCert)} {
		if resp, err := c.Get(url); err == nil {
			resp.Body.Close()
			t.Errorf("%s: answered %d; want the TLS handshake refused", name, resp.StatusCode)
		}
	}
	if resp, err := http.Get("http://" + d.Addr() + "/status"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP was served")
		}
	}
}
