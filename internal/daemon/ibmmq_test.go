//go:build ibmmq

package daemon_test

import (
	"net/http"
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// TestIBMMQBackend runs commands through the daemon on the IBM MQ client
// (the project's stub in CI): the mq.backend switch reaches the adapter.
func TestIBMMQBackend(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.MQ.Backend = config.BackendIBMMQ
		s.Cfg.Targets.Inline.Hosts = []string{"localhost:1414"} // required with ibmmq; these targets name no host
		s.Opts.Backend = nil
	})
	if r := h.Post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"},"batch":{"count":25,"messageSizeBytes":512}}`); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	r := h.Post("/messages/consume", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"},"maxMessages":25,"waitSeconds":1}`)
	if r.Status != http.StatusOK || r.JSON(t)["result"].(map[string]any)["received"] != float64(25) {
		t.Fatalf("consume: %d %s", r.Status, r.Body)
	}
	c := h.Post("/connections/test", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"}}`)
	if res := c.JSON(t)["result"].(map[string]any); c.Status != http.StatusOK || res["queueManager"] != "QM1" || res["platform"] != "UNIX" {
		t.Fatalf("connection test: %d %s", c.Status, c.Body)
	}
}
