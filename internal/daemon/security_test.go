package daemon_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// TestTargetPolicy: commands reach only what the operator allowed, and a
// refused one never opens a connection.
func TestTargetPolicy(t *testing.T) {
	t.Setenv("MQPROBE_TEST_LAB_PASSWORD", "lab-pw")
	var counter *mqtest.CountingBackend
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		counter = &mqtest.CountingBackend{Backend: s.Opts.Backend}
		s.Opts.Backend = counter
		s.Cfg.Targets.Inline = config.InlineAllowlist{QueueManagers: []string{"QM1"}, Queues: []string{"DEV.QUEUE.1"},
			Hosts: []string{"*.mq.example.com:1414"}}
		s.Cfg.Targets.Profiles = map[string]config.TargetProfile{
			"lab":    {QueueManager: "QM1", Queue: "DEV.QUEUE.2", AllowedQueues: []string{"DEV.QUEUE.3"}, Auth: config.AuthConfig{User: "app", PasswordRef: "env:MQPROBE_TEST_LAB_PASSWORD"}},
			"broken": {QueueManager: "QM1", Queue: "DEV.QUEUE.2", Auth: config.AuthConfig{User: "app", PasswordRef: "env:MQPROBE_TEST_UNSET_PASSWORD"}},
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
		s.Cfg.Targets.Profiles = map[string]config.TargetProfile{
			"slow": {QueueManager: "QM1", Queue: "DEV.QUEUE.1", RateLimit: config.ProfileRateLimit{CommandsPerSecond: 2, Burst: 2}},
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

// TestMutualTLS: with http.tls.clientCAFile the API speaks HTTPS and
// accepts only clients holding a certificate the CA signed.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCA(t)
	serverCert := issue(t, ca, caKey, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	clientCert := issue(t, ca, caKey, "probe-client", x509.ExtKeyUsageClientAuth)
	otherCA, otherKey := newCA(t)
	strangerCert := issue(t, otherCA, otherKey, "stranger", x509.ExtKeyUsageClientAuth)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	writePEM(t, filepath.Join(dir, "server.pem"), "CERTIFICATE", serverCert.Certificate[0])
	keyDER, err := x509.MarshalPKCS8PrivateKey(serverCert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "server-key.pem"), "PRIVATE KEY", keyDER)

	cfg := config.Default()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Idempotency.Store = config.StoreMemory
	cfg.HTTP.TLS = config.HTTPTLSConfig{CertFile: filepath.Join(dir, "server.pem"), KeyFile: filepath.Join(dir, "server-key.pem"),
		ClientCAFile: filepath.Join(dir, "ca.pem")}
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

	roots := x509.NewCertPool()
	roots.AddCert(ca)
	client := func(certs ...tls.Certificate) *http.Client {
		return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs, MinVersion: tls.VersionTLS12}}}
	}
	url := "https://" + d.Addr() + "/status"
	var resp *http.Response
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err = client(clientCert).Get(url); err == nil || time.Now().After(deadline) {
			break
		}
	}
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

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "mqprobe test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func issue(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, usage x509.ExtKeyUsage) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
