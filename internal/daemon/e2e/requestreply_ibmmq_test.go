//go:build ibmmq

package e2e_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/probe"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestIBMMQRequestReplyThroughAResponderProcess: one daemon process runs
// a responder on DEV.QUEUE.1 of an mqserver process; another daemon
// process runs requestReply TESTs against it, with a dynamic reply queue
// from the model SYSTEM.DEFAULT.MODEL.QUEUE and with the fixed DEV.QUEUE.2.
// Every probe comes back, its round trip split into hops whose means add
// up; a TEST naming a reply queue the responder's allowlist refuses loses
// its probes, which the responder dead-letters; SIGTERM drains the
// responder and its log says so.
func TestIBMMQRequestReplyThroughAResponderProcess(t *testing.T) {
	srv := daemontest.StartMQServer(t)
	dir := t.TempDir()
	responderConfig := filepath.Join(dir, "responder.yaml")
	if err := os.WriteFile(responderConfig, fmt.Appendf(nil, `mq:
  backend: ibmmq
targets:
  allowInline: false
  profiles:
    lab:
      queueManager: QM1
      channel: DEV.APP.SVRCONN
      connName: %s
      queue: DEV.QUEUE.1
      allowedQueues: ["AMQ.*", "DEV.QUEUE.2"]
responders:
  - name: lab-echo
    targetRef: lab
    concurrency: 2
`, srv.ConnName()), 0o600); err != nil {
		t.Fatal(err)
	}
	responderProc, _ := daemontest.StartProcess(t, "responder", map[string]string{"MQPROBE_CONFIG": responderConfig})
	prober, _ := daemontest.StartProcess(t, "prober", ibmmqProcessEnv(srv))

	requestQueue := srv.Target("DEV.QUEUE.1")
	for _, replyQueue := range []string{"SYSTEM.DEFAULT.MODEL.QUEUE", "DEV.QUEUE.2"} {
		key := "rr-" + strings.ToLower(strings.ReplaceAll(replyQueue, ".", "-"))
		st := runTest(t, prober, key, fmt.Sprintf(`{%s,"mode":"requestReply","replyQueue":%q,"count":200,"batch":{"rateLimitPerSec":100}}`,
			requestQueue, replyQueue))
		if st.Sent != 200 || st.Received != 200 || st.Lost != 0 || st.Hops == nil || st.Hops.Probes != 200 {
			t.Fatalf("%s: %+v; want 200 round trips, each split into hops", key, st)
		}
		if replyQueue == "DEV.QUEUE.2" && st.ReplyQueue != replyQueue || replyQueue != "DEV.QUEUE.2" && !strings.HasPrefix(st.ReplyQueue, "AMQ.") {
			t.Errorf("%s: replies came to %q", key, st.ReplyQueue)
		}
		h := st.Hops
		sum := h.OutboundMs.Mean + h.ResponderMs.Mean + h.ReturnMs.Mean
		if math.Abs(sum-h.RoundTripMs.Mean) > 1e-6 || h.ClockAdjusted != 0 {
			t.Errorf("%s: mean hops %.6f + %.6f + %.6f = %.6f ms, mean round trip %.6f ms, %d clock-adjusted (one host: want 0)",
				key, h.OutboundMs.Mean, h.ResponderMs.Mean, h.ReturnMs.Mean, sum, h.RoundTripMs.Mean, h.ClockAdjusted)
		}
		t.Logf("%s: round trip mean %.3f ms = outbound %.3f + responder %.3f + return %.3f; p99 %.3f ms",
			key, h.RoundTripMs.Mean, h.OutboundMs.Mean, h.ResponderMs.Mean, h.ReturnMs.Mean, h.RoundTripMs.P99)
	}

	// DEV.QUEUE.3 is outside the responder's allowlist: it answers none of
	// these, and dead-letters each request.
	st := runTest(t, prober, "rr-refused", fmt.Sprintf(`{%s,"mode":"requestReply","replyQueue":"DEV.QUEUE.3","count":3}`, requestQueue))
	if st.Sent != 3 || st.Lost != 3 || st.Received != 0 {
		t.Errorf("rr-refused: %+v; want 3 sent and lost", st)
	}
	if n := prober.DepthOf(t, srv.Target("DEV.DEAD.LETTER.QUEUE")); n != 3 {
		t.Errorf("dead-letter queue holds %d, want the 3 refused requests", n)
	}
	// A worker counts a request just after its put: the counts may trail
	// the runs' ends by a moment.
	wants := []string{`mqprobe_responder_requests_total{outcome="replied",responder="lab-echo"} 400`,
		`mqprobe_responder_requests_total{outcome="dead_lettered",responder="lab-echo"} 3`}
	var metrics []byte
	if !testenv.Until(10*time.Second, func() bool {
		_, metrics, _ = responderProc.Get("/metrics")
		return strings.Contains(string(metrics), wants[0]) && strings.Contains(string(metrics), wants[1])
	}) {
		t.Errorf("responder /metrics lacks %q:\n%s", wants, metrics)
	}

	responderProc.Stop(os.Interrupt)
	if log := daemontest.LogTail(responderProc.Log, 64<<10); !strings.Contains(log, `"msg":"responders stopped","reason":"daemon draining"`) {
		t.Errorf("the responder's log does not say its responders stopped for the drain:\n%s", log)
	}
}

// runTest starts a TEST on p and returns its final statistics.
func runTest(t *testing.T, p *daemontest.Process, key, body string) probe.Stats {
	t.Helper()
	if r := p.Post(t, "/tests", body, "Idempotency-Key", key); r.Status != http.StatusAccepted {
		t.Fatalf("POST /tests %s: %d %s", key, r.Status, r.Body)
	}
	var v struct {
		Status string
		Result *probe.Stats
	}
	testenv.Eventually(t, 60*time.Second, "the end of test "+key, func() bool {
		status, data, err := p.Get("/tests/" + key)
		if err != nil || status != http.StatusOK {
			t.Fatalf("GET /tests/%s: %d %s %v", key, status, data, err)
		}
		v.Status, v.Result = "", nil
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("GET /tests/%s: %v: %s", key, err, data)
		}
		return v.Status != "IN_PROGRESS"
	})
	if v.Status != "COMPLETED" || v.Result == nil {
		t.Fatalf("test %s ended %s: %+v", key, v.Status, v.Result)
	}
	return *v.Result
}
