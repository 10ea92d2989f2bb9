package e2e_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestDrainHandsOverUnderLoad: SIGTERM to an instance in the middle of a
// PRODUCE stops its intake, backs the open transaction out, releases the
// claim and returns the message, so the other instance resumes from the
// checkpoint at once — long before the 30 s lease or visibility timeout
// would have let it — and the command completes exactly once.
func TestDrainHandsOverUnderLoad(t *testing.T) {
	const count, txSize = 40, 5
	const lease = 30 * time.Second
	env := newLocalAWS(t, 50)
	procs := startDaemonProcesses(t, 2, daemonProcessEnv(env, map[string]string{
		"MQPROBE_IDEMPOTENCY_LEASE":     lease.String(),
		"MQPROBE_SQS_VISIBILITYTIMEOUT": "30s",
		"MQPROBE_HTTP_SHUTDOWNTIMEOUT":  "300ms",
		"MQPROBE_BUS_NACKDELAY":         "1s",
	}))
	results := newResultQueue(t, env.results)
	key := fmt.Sprintf("drain-%d", time.Now().UnixNano()%1e9)
	body := fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64,"rateLimitPerSec":20,"transaction":{"enabled":true,"txSize":%d}}}`,
		daemontest.Target, count, txSize)
	sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": key})

	var victim, survivor *daemontest.Process
	seen := 0
	testenv.Eventually(t, 30*time.Second, fmt.Sprintf("an instance committing %d messages", 2*txSize), func() bool {
		for i, p := range procs {
			if d := p.Depth(t, "DEV.QUEUE.1"); d >= 2*txSize {
				victim, survivor, seen = p, procs[1-i], d
				return true
			}
		}
		return false
	})
	if seen >= count {
		t.Fatalf("%s finished (depth %d) before the SIGTERM: the command is too fast", victim.Name, seen)
	}
	stopped := time.Now()
	victim.Stop(syscall.SIGTERM)
	if victim.Err != nil {
		t.Fatalf("%s exited with %v after SIGTERM; want a clean drain", victim.Name, victim.Err)
	}
	t.Logf("%s drained in %s at depth %d", victim.Name, time.Since(stopped).Round(time.Millisecond), seen)

	tk := awaitTakeover(t, env, results, key, survivor, count, lease/2, false)
	handover := time.Since(stopped)
	// A drain backs the open transaction out and checkpoints every commit,
	// so the survivor resumes exactly where the victim's commits ended.
	if tk.from%txSize != 0 || tk.from < seen-seen%txSize || tk.from >= count {
		t.Errorf("resumedFrom %d: want the victim's last commit (it had committed at least %d) and below %d", tk.from, seen-seen%txSize, count)
	}
	daemontest.ReportFault(t, "sigterm-mid-produce", tk.figures, daemontest.FaultFigures{Sent: 1, Executed: 1},
		"resumedFrom", tk.from, "handoverMs", handover.Milliseconds(), "leaseMs", lease.Milliseconds())
}
