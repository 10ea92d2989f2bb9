//go:build ibmmq

package daemon_test

import (
	"net/http"
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq/ibmmqtest"
)

// TestIBMMQBackend runs commands through the daemon on the IBM MQ client
// (the project's client library in CI, connected to a queue manager server
// in this process): the mq.backend switch reaches the adapter.
func TestIBMMQBackend(t *testing.T) {
	srv := ibmmqtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER()) // these targets name no host: the client's own configuration decides
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.MQ.Backend = config.BackendIBMMQ
		s.Cfg.Targets.Inline.Hosts = []string{"localhost:1414"} // required with ibmmq
		s.Opts.Backend = nil
	})
	if r := h.Post("/messages/produce", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"},"batch":{"count":25,"messageSizeBytes":512}}`); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	// The messages are on the server's queue manager, read without the client.
	if depth := daemontest.QueueDepth(t, srv.Backend(), "DEV.QUEUE.3"); depth != 25 {
		t.Fatalf("DEV.QUEUE.3 on the server holds %d messages after the produce, want 25", depth)
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
