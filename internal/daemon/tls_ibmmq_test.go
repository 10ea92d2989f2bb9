//go:build ibmmq

package daemon_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// TestIBMMQBackendOverTLS runs commands through a targets profile whose
// ssl settings (cipherSpec, keyStoreRef naming a PKCS #12 file with its
// stash beside it) reach the IBM MQ client, which speaks TLS to a queue
// manager server in this process: a proxy between them sees a TLS
// handshake as each connection's first bytes, and the commands work.
func TestIBMMQBackendOverTLS(t *testing.T) {
	srv, pki := mqsimtest.StartTLS(t)
	proxy := mqsimtest.StartProxy(t, srv.Addr().String())
	keyStore := filepath.Join(t.TempDir(), "client.p12")
	pki.KeyRepository(t, keyStore, "daemon-key-passw0rd", false, true)
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.MQ.Backend = config.BackendIBMMQ
		s.Opts.Backend = nil
		s.Cfg.Targets.Inline.Hosts = []string{"127.0.0.1"}
		s.Cfg.Targets.Profiles = map[string]targets.ProfileConfig{
			"tls": {QueueManager: "QM1", Queue: "DEV.QUEUE.1", Channel: mqserver.TLSChannel, ConnName: proxy.ConnName,
				SSL:  targets.SSLConfig{Enabled: true, CipherSpec: "ANY_TLS12_OR_HIGHER", KeyStoreRef: "file:" + keyStore},
				Auth: targets.AuthConfig{User: mqsimtest.User}},
		}
	})
	if r := h.Post("/messages/produce", `{"targetRef":"tls","batch":{"count":5,"messageSizeBytes":64}}`); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	r := h.Post("/queue/depth", `{"targetRef":"tls"}`)
	if d := r.JSON(t)["result"].(map[string]any); r.Status != http.StatusOK || d["currentDepth"] != float64(5) {
		t.Fatalf("depth: %d %s, want 5", r.Status, r.Body)
	}
	r = h.Post("/messages/consume", `{"targetRef":"tls","maxMessages":5,"waitSeconds":1}`)
	if r.Status != http.StatusOK || r.JSON(t)["result"].(map[string]any)["received"] != float64(5) {
		t.Fatalf("consume: %d %s", r.Status, r.Body)
	}
	// CONNECTION_TEST names the CipherSpec the channel instance runs.
	r = h.Post("/connections/test", `{"targetRef":"tls"}`)
	ch, _ := r.JSON(t)["result"].(map[string]any)["channel"].(map[string]any)
	if cipher, _ := ch["cipher"].(string); r.Status != http.StatusOK || ch["name"] != mqserver.TLSChannel || !strings.HasPrefix(cipher, "TLS_") {
		t.Fatalf("connection test over TLS: %d %s, want the channel's CipherSpec", r.Status, r.Body)
	}
	// And the queue manager's certificate: the test PKI issues it for a day.
	cert, _ := ch["certificate"].(map[string]any)
	if subject, _ := cert["subject"].(string); !strings.Contains(subject, "CN=QM1") || cert["daysToExpiry"] != float64(0) {
		t.Errorf("connection test over TLS: certificate %v, want QM1's with 0 whole days left", cert)
	}
	firsts := proxy.FirstBytes()
	if len(firsts) == 0 {
		t.Fatal("the proxy saw no connection")
	}
	for _, first := range firsts {
		if len(first) < 3 || first[0] != 0x16 || first[1] != 0x03 {
			t.Errorf("a connection started %x, want a TLS handshake record (16 03 ..)", first)
		}
	}
}
