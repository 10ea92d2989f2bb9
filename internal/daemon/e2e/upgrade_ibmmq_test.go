//go:build ibmmq

package e2e_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// upgradeMQServerConfig is the shared queue manager of the IBM MQ upgrade
// tests: IBM's developer queues, DEV.QUEUE.1 and DEV.QUEUE.2 holding at
// most upgradeFullDepth messages, so a PRODUCE of more fails part-way.
const upgradeMQServerConfig = `
queueManagers:
  - name: QM1
    queues:
      - name: DEV.QUEUE.1
        maxDepth: 20
      - name: DEV.QUEUE.2
        maxDepth: 20
      - name: DEV.QUEUE.3
      - name: DEV.DEAD.LETTER.QUEUE
`

const upgradeFullDepth = 20

// upgradeVars are the settings of the IBM MQ upgrade test's processes: a
// short lease and visibility timeout, so a takeover comes quickly.
var upgradeVars = map[string]string{"MQPROBE_IDEMPOTENCY_LEASE": "2s", "MQPROBE_SQS_VISIBILITYTIMEOUT": "3s"}

// TestIBMMQUpgradeMixedVersions: the previous release and this tree, built
// with the ibmmq backend, on one queue manager (an mqserver process, whose
// messages outlive the daemons, so PRODUCE checkpoints and resumes), one
// table and one command queue, on each emulator.
//   - sigkill-mid-produce: a PRODUCE from the command queue, taken by one
//     version alone, is killed (SIGKILL) after two commits; the other
//     version, started in its place as a rolling upgrade (or rollback)
//     would, takes the command over when the lease has expired and resumes
//     it: the queue holds its count (at most one transaction more), and
//     one final result event says so.
//   - failed-resumable-retried: a PRODUCE that fails part-way on one
//     version (queue full) leaves a FAILED, resumable record; sent again to
//     the other, once there is room, it resumes after what was committed:
//     the queue gets exactly the rest.
func TestIBMMQUpgradeMixedVersions(t *testing.T) {
	previous, current := daemontest.Versions(t)
	onEachEmulator(t, func(t *testing.T, _ *awsEmulator) {
		srv := daemontest.StartMQServerConfig(t, upgradeMQServerConfig)
		env := newLocalAWS(t, 50)
		vars := daemonProcessEnv(env, ibmmqProcessEnv(srv))
		maps.Copy(vars, upgradeVars)
		results := newResultQueue(t, env.results)
		run := fmt.Sprintf("upgrade-ibmmq-%d", time.Now().UnixNano()%1e9)
		pairs := []struct {
			dir           string
			first, second daemontest.Version
		}{{"old-to-new", previous, current}, {"new-to-old", current, previous}}

		t.Run("sigkill-mid-produce", func(t *testing.T) {
			for _, pair := range pairs {
				t.Run(pair.dir, func(t *testing.T) {
					killedMidProduceIsResumed(t, env, results, srv.Target("DEV.QUEUE.3"), run+"-kill-"+pair.dir, pair.dir, pair.first, pair.second, vars)
				})
			}
		})

		t.Run("failed-resumable-retried", func(t *testing.T) {
			old, new := startVersion(t, previous, vars), startVersion(t, current, vars)
			byLabel := map[string]*daemontest.Process{"old": old, "new": new}
			for i, pair := range pairs {
				t.Run(pair.dir, func(t *testing.T) {
					target := srv.Target(fmt.Sprintf("DEV.QUEUE.%d", i+1))
					failedIsRetried(t, target, run+"-failed-"+pair.dir, pair.dir, byLabel[pair.first.Label], byLabel[pair.second.Label])
				})
			}
		})
	})
}

// killedMidProduceIsResumed runs the sigkill-mid-produce scenario in one
// direction: first alone takes the command from the queue and is killed
// mid-run, second is started and finishes it.
func killedMidProduceIsResumed(t *testing.T, env *localAWS, results *resultQueue, target, key, dir string, first, second daemontest.Version, vars map[string]string) {
	const count, txSize = 40, 5
	victim := startVersion(t, first, vars)
	before := victim.DepthOf(t, target)
	sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64,"rateLimitPerSec":20,"transaction":{"enabled":true,"txSize":%d}}}`,
		target, count, txSize), map[string]string{"Idempotency-Key": key})
	// Two commits on the queue mean the first checkpoint is written.
	seen := 0
	if !testenv.Until(30*time.Second, func() bool {
		seen = victim.DepthOf(t, target) - before
		return seen >= 2*txSize
	}) {
		t.Fatalf("sigkill-mid-produce %s: %s committed %d messages within 30s, want %d", dir, victim.Name, seen, 2*txSize)
	}
	if seen >= count {
		t.Fatalf("sigkill-mid-produce %s: %s finished (%d put) before it could be killed: the command is too fast", dir, victim.Name, seen)
	}
	victim.Kill(t)
	survivor := startVersion(t, second, vars)
	t.Logf("killed %s with %d messages put; %s takes over", victim.Name, seen, survivor.Name)

	// An outcome: neither progress nor a replay (a redelivered copy may
	// legitimately be replayed).
	final := func(e receivedEvent) bool {
		return e.Data.IdempotencyKey == key && e.Data.Status != result.StatusInProgress && !e.Data.Replay
	}
	results.waitUntil(t, 90*time.Second, func(evs []receivedEvent) (bool, string) {
		n := countReceivedEvents(evs, final)
		return n >= 1, fmt.Sprintf("sigkill-mid-produce %s: %d final result events for %s", dir, n, key)
	})
	waitSQSQueueDrained(t, env.commands, 30*time.Second)
	results.collectFor(t, 2*time.Second)
	var finals []receivedEvent
	for _, e := range results.received() {
		if final(e) {
			finals = append(finals, e)
		}
	}
	if len(finals) != 1 {
		t.Fatalf("sigkill-mid-produce %s: %d outcome events (%s), want exactly one", dir, len(finals), describeSources(finals))
	}
	e := finals[0]
	var res struct {
		Enqueued    int
		ResumedFrom *int
	}
	if err := json.Unmarshal(e.Data.Result, &res); err != nil || e.Data.Status != result.StatusCompleted || e.Data.Attempt != 2 ||
		e.Source != "mqprobe/"+survivor.Name || res.ResumedFrom == nil || res.Enqueued != count {
		t.Errorf("sigkill-mid-produce %s: result %s attempt %d by %s: %s; want COMPLETED on attempt 2 by %s, resuming, %d enqueued",
			dir, e.Data.Status, e.Data.Attempt, e.Source, e.Data.Result, survivor.Name, count)
	}
	onQueue := survivor.DepthOf(t, target) - before
	if repeated := onQueue - count; repeated < 0 || repeated > txSize {
		t.Errorf("sigkill-mid-produce %s: the queue got %d messages for a PRODUCE of %d: %d repeated, want 0 to one transaction (%d)", dir, onQueue, count, repeated, txSize)
	}
	if res.ResumedFrom != nil {
		t.Logf("%s resumed from %d; %d messages on the queue for %d", survivor.Name, *res.ResumedFrom, onQueue, count)
	}
}

// failedIsRetried runs the failed-resumable-retried scenario in one
// direction on target, an empty queue holding at most upgradeFullDepth
// messages.
func failedIsRetried(t *testing.T, target, key, dir string, first, second *daemontest.Process) {
	const count, txSize = upgradeFullDepth + 10, 10
	produce := fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":64,"transaction":{"enabled":true,"txSize":%d}}}`, target, count, txSize)
	failed := first.Post(t, "/messages/produce", produce, "Idempotency-Key", key)
	var f struct {
		Status   result.Status
		Progress *result.Progress
	}
	if err := json.Unmarshal(failed.Body, &f); err != nil || f.Status != result.StatusFailed || f.Progress == nil ||
		f.Progress.Committed != upgradeFullDepth || !f.Progress.Resumable {
		t.Fatalf("failed-resumable-retried %s: %s on a queue full at %d: %d %s; want FAILED, resumable, %d committed",
			dir, first.Name, upgradeFullDepth, failed.Status, failed.Body, upgradeFullDepth)
	}
	// Make room: take the committed messages off the queue.
	drain := first.Post(t, "/messages/consume", fmt.Sprintf(`{%s,"maxMessages":%d}`, target, upgradeFullDepth), "Idempotency-Key", key+"-drain")
	if drain.Status != http.StatusOK || first.DepthOf(t, target) != 0 {
		t.Fatalf("failed-resumable-retried %s: draining the queue: %d %s", dir, drain.Status, drain.Body)
	}
	retried := second.Post(t, "/messages/produce", produce, "Idempotency-Key", key)
	var r struct {
		Status  result.Status
		Attempt int
		Result  struct {
			Enqueued    int
			ResumedFrom *int
		}
	}
	if err := json.Unmarshal(retried.Body, &r); err != nil || retried.Status != http.StatusCreated || r.Status != result.StatusCompleted ||
		r.Attempt != 2 || r.Result.ResumedFrom == nil || *r.Result.ResumedFrom != upgradeFullDepth || r.Result.Enqueued != count {
		t.Errorf("failed-resumable-retried %s: %s retrying %s's FAILED record: %d %s; want 201 COMPLETED on attempt 2, resumed from %d, %d enqueued",
			dir, second.Name, first.Name, retried.Status, retried.Body, upgradeFullDepth, count)
	}
	if d := second.DepthOf(t, target); d != count-upgradeFullDepth {
		t.Errorf("failed-resumable-retried %s: the queue holds %d messages after the retry, want the %d not committed before", dir, d, count-upgradeFullDepth)
	}
}
