//go:build ibmmq

package daemon_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// startIBMMQDaemon starts the daemon on the IBM MQ client, reaching srv.
func startIBMMQDaemon(t *testing.T, srv *daemontest.MQServer) *daemontest.Harness {
	t.Helper()
	return daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.MQ.Backend = config.BackendIBMMQ
		s.Cfg.Targets.Inline.Hosts = []string{"127.0.0.1:" + srv.Port}
		s.Opts.Backend = nil
	})
}

// TestIBMMQDepthConsumerStopped: across processes, through the command
// server of an mqserver with queue monitoring on, a DEPTH of a queue whose
// consumer stopped reports the oldest message's age within a second of
// the truth and, with thresholds, a critical verdict.
func TestIBMMQDepthConsumerStopped(t *testing.T) {
	srv := daemontest.StartMQServerConfig(t, "queueMonitoring: MEDIUM\n")
	h := startIBMMQDaemon(t, srv)
	target := srv.Target("DEV.QUEUE.1")

	putFrom := time.Now()
	if r := h.Post("/messages/produce", fmt.Sprintf(`{%s,"batch":{"count":3,"messageSizeBytes":64}}`, target)); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	putTo := time.Now()
	if r := h.Post("/messages/consume", fmt.Sprintf(`{%s,"maxMessages":1,"waitSeconds":0}`, target)); r.Status != http.StatusOK {
		t.Fatalf("consume: %d %s", r.Status, r.Body)
	}

	var (
		res           map[string]any
		before, after time.Time
	)
	testenv.Eventually(t, 20*time.Second, "the oldest message past the threshold", func() bool {
		before = time.Now()
		r := h.Post("/queue/depth", fmt.Sprintf(`{%s,"thresholds":{"maxOldestMessageAgeSeconds":1,"maxDepthShare":0.8}}`, target))
		after = time.Now()
		if r.Status != http.StatusOK {
			t.Fatalf("depth: %d %s", r.Status, r.Body)
		}
		res = r.JSON(t)["result"].(map[string]any)
		age, _ := res["oldestMessageAgeSeconds"].(float64)
		return age > 1
	})
	age := time.Duration(res["oldestMessageAgeSeconds"].(float64) * float64(time.Second))
	lo, hi := before.Sub(putTo), after.Sub(putFrom)
	t.Logf("oldest message age %s; truth between %s and %s", age, lo, hi)
	if age < lo-time.Second || age > hi+time.Second {
		t.Errorf("oldest message age %s, want within a second of %s..%s", age, lo, hi)
	}
	if res["verdict"] != "critical" || res["currentDepth"] != float64(2) || res["openInputCount"] != float64(0) ||
		res["lastGetAt"] == nil || res["lastPutAt"] == nil || res["missing"] != nil {
		t.Errorf("DEPTH of a queue whose consumer stopped: %v", res)
	}
}

// TestIBMMQDepthWithMONQOff: with queue monitoring off, IBM's default,
// DEPTH answers the rest, names the monitored figures as missing with how
// to enable them, and a verdict on a missing figure is unknown.
func TestIBMMQDepthWithMONQOff(t *testing.T) {
	srv := daemontest.StartMQServer(t)
	h := startIBMMQDaemon(t, srv)
	target := srv.Target("DEV.QUEUE.1")
	if r := h.Post("/messages/produce", fmt.Sprintf(`{%s,"batch":{"count":2,"messageSizeBytes":64}}`, target)); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}
	r := h.Post("/queue/depth", fmt.Sprintf(`{%s,"thresholds":{"maxOldestMessageAgeSeconds":300}}`, target))
	if r.Status != http.StatusOK {
		t.Fatalf("depth: %d %s", r.Status, r.Body)
	}
	res := r.JSON(t)["result"].(map[string]any)
	missing, _ := res["missing"].(map[string]any)
	why, _ := missing["oldestMessageAgeSeconds"].(string)
	if res["currentDepth"] != float64(2) || res["uncommittedMessages"] != float64(0) || res["oldestMessageAgeSeconds"] != nil ||
		!strings.Contains(why, "ALTER QMGR MONQ(MEDIUM)") || res["verdict"] != "unknown" {
		t.Errorf("DEPTH with MONQ(OFF): %v", res)
	}
}

// TestIBMMQConnectionTestHealth: across processes, CONNECTION_TEST names
// the queue manager's CCSID, its dead-letter queue with its depth, and
// the channel instance's status from the command server, each timed.
func TestIBMMQConnectionTestHealth(t *testing.T) {
	srv := daemontest.StartMQServer(t)
	h := startIBMMQDaemon(t, srv)
	r := h.Post("/connections/test", "{"+srv.Target("DEV.QUEUE.1")+"}")
	if r.Status != http.StatusOK {
		t.Fatalf("connection test: %d %s", r.Status, r.Body)
	}
	res := r.JSON(t)["result"].(map[string]any)
	dlq, _ := res["deadLetterQueue"].(map[string]any)
	ch, _ := res["channel"].(map[string]any)
	cs, _ := res["commandServer"].(map[string]any)
	if res["queueManager"] != "QM1" || res["ccsid"] != float64(1208) || res["platform"] != "UNIX" ||
		dlq["name"] != "DEV.DEAD.LETTER.QUEUE" || dlq["currentDepth"] != float64(0) ||
		ch["name"] != "DEV.APP.SVRCONN" || ch["instances"] != float64(1) || ch["cipher"] != nil ||
		cs["answered"] != true || res["missing"] != nil {
		t.Errorf("CONNECTION_TEST: %s", r.Body)
	}
	for _, ms := range []any{res["connectMs"], res["inquireMs"], dlq["inquireMs"], cs["ms"]} {
		if v, ok := ms.(float64); !ok || v < 0 {
			t.Errorf("a timing is missing or negative: %s", r.Body)
		}
	}
}
