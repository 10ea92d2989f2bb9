//go:build ibmmq

package daemon_test

import (
	"net/http"
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
)

// TestIBMMQBackend runs commands through the daemon on the IBM MQ client
// (the project's stub in CI): the mq.backend switch reaches the adapter.
func TestIBMMQBackend(t *testing.T) {
	h := start(t, func(s *setup) {
		s.cfg.MQ.Backend = config.BackendIBMMQ
		s.cfg.Targets.Inline.Hosts = []string{"localhost:1414"} // required with ibmmq; these targets name no host
		s.opts.Backend = nil
	})
	if r := h.post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"},"batch":{"count":25,"messageSizeBytes":512}}`); r.status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.status, r.body)
	}
	r := h.post("/messages/consume", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"},"maxMessages":25,"waitSeconds":1}`)
	if r.status != http.StatusOK || r.json(t)["result"].(map[string]any)["received"] != float64(25) {
		t.Fatalf("consume: %d %s", r.status, r.body)
	}
	c := h.post("/connections/test", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"}}`)
	if res := c.json(t)["result"].(map[string]any); c.status != http.StatusOK || res["queueManager"] != "QM1" || res["platform"] != "UNIX" {
		t.Fatalf("connection test: %d %s", c.status, c.body)
	}
}
