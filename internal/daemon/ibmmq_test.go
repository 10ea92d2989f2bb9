//go:build ibmmq

package daemon_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// TestIBMMQBackend runs commands through the daemon on the IBM MQ client:
// the mq.backend switch reaches the adapter, and PRODUCE, DEPTH (of a local
// queue and of an alias), CONSUME and CONNECTION_TEST work end to end. It
// runs against the queue manager MQPROBE_TEST_IBMMQ_QMGR and its siblings
// name (make test-ibmmq-real), or else a queue manager server in this
// process, reached through the client library as any queue manager is.
func TestIBMMQBackend(t *testing.T) {
	qm := ibmmqQueueManager(t)
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.MQ.Backend = config.BackendIBMMQ
		s.Cfg.Targets.Inline.Hosts = []string{qm.host}
		s.Cfg.Targets.Inline.SecretRefs = []string{"env:MQPROBE_TEST_IBMMQ_PASSWORD"}
		s.Opts.Backend = nil
	})
	target := qm.target(qm.queue)
	// Start empty: a real queue manager's queue may hold anything.
	for drained := false; !drained; {
		r := h.Post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":1000,"waitSeconds":0}`, target))
		drained = r.Status == http.StatusOK && r.JSON(t)["result"].(map[string]any)["received"] == float64(0)
	}
	if r := h.Post("/messages/produce", fmt.Sprintf(`{%s,"batch":{"count":25,"messageSizeBytes":512}}`, target)); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	depth := func(target string) map[string]any {
		t.Helper()
		r := h.Post("/queue/depth", "{"+target+"}")
		if r.Status != http.StatusOK {
			t.Fatalf("depth: %d %s", r.Status, r.Body)
		}
		return r.JSON(t)["result"].(map[string]any)
	}
	if d := depth(target); d["currentDepth"] != float64(25) || d["queueType"] != "local" {
		t.Fatalf("depth of %s after the produce: %v, want a local queue holding 25", qm.queue, d)
	}
	if qm.alias != "" {
		if d := depth(qm.target(qm.alias)); d["queueType"] != "alias" || d["baseQueue"] != qm.queue || d["currentDepth"] != float64(25) {
			t.Fatalf("depth of the alias %s: %v, want its base queue %s's 25", qm.alias, d, qm.queue)
		}
	}
	r := h.Post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":25,"waitSeconds":1}`, target))
	if r.Status != http.StatusOK || r.JSON(t)["result"].(map[string]any)["received"] != float64(25) {
		t.Fatalf("consume: %d %s", r.Status, r.Body)
	}
	c := h.Post("/connections/test", fmt.Sprintf(`{%s}`, target))
	if res := c.JSON(t)["result"].(map[string]any); c.Status != http.StatusOK || res["queueManager"] != qm.name {
		t.Fatalf("connection test: %d %s", c.Status, c.Body)
	}
}

// ibmmqQM is a queue manager the daemon's ibmmq tests run against.
type ibmmqQM struct {
	name, channel, connName, user string
	password                      bool
	host                          string // connName's first host:port, for targets.inline.hosts
	queue, alias                  string // alias: one resolving to queue, "" if unknown
}

// ibmmqQueueManager is the queue manager MQPROBE_TEST_IBMMQ_* name, or a
// queue manager server started in this process for t.
func ibmmqQueueManager(t *testing.T) ibmmqQM {
	t.Helper()
	qm := ibmmqQM{
		name:     os.Getenv("MQPROBE_TEST_IBMMQ_QMGR"),
		channel:  os.Getenv("MQPROBE_TEST_IBMMQ_CHANNEL"),
		connName: os.Getenv("MQPROBE_TEST_IBMMQ_CONNNAME"),
		user:     os.Getenv("MQPROBE_TEST_IBMMQ_USER"),
		password: os.Getenv("MQPROBE_TEST_IBMMQ_PASSWORD") != "",
		queue:    cmp.Or(os.Getenv("MQPROBE_TEST_IBMMQ_QUEUE"), "DEV.QUEUE.1"),
		alias:    os.Getenv("MQPROBE_TEST_IBMMQ_ALIAS"),
	}
	if qm.name == "" {
		srv := mqsimtest.Start(t)
		qm = ibmmqQM{name: "QM1", channel: mqsimtest.Channel, connName: srv.ConnName, user: mqsimtest.User,
			queue: "DEV.QUEUE.1", alias: "DEV.ALIAS.1"}
	}
	eps, err := mq.ParseConnName(qm.connName)
	if err != nil {
		t.Fatalf("MQPROBE_TEST_IBMMQ_CONNNAME: %v", err)
	}
	qm.host = net.JoinHostPort(eps[0].Host, strconv.Itoa(eps[0].Port))
	return qm
}

// target is the JSON "target" member naming queue on qm.
func (qm ibmmqQM) target(queue string) string {
	t := map[string]any{"queueManager": qm.name, "queue": queue, "channel": qm.channel, "connName": qm.connName}
	if qm.user != "" {
		auth := map[string]string{"user": qm.user}
		if qm.password {
			auth["passwordRef"] = "env:MQPROBE_TEST_IBMMQ_PASSWORD"
		}
		t["auth"] = auth
	}
	b, _ := json.Marshal(t)
	return `"target":` + string(b)
}
