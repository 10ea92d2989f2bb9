//go:build ibmmq

package e2e_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// These tests run daemon processes with the ibmmq backend sharing one
// queue manager, an mqserver process reached through the MQ client
// library, as instances share a queue manager in production: the queue is
// where exactly-once is judged.

// TestIBMMQThreeInstancesShareOneQueueManager: 200 PRODUCEs of 5 messages,
// each delivered 3 times at once to three instances, leave exactly 1,000
// messages on the one shared queue.
func TestIBMMQThreeInstancesShareOneQueueManager(t *testing.T) {
	threeInstancesShareQueueAndTable(t, daemontest.StartMQServer(t))
}

// TestIBMMQKilledInstanceRepeatsAtMostOneTransaction: the instance running
// a PRODUCE is killed with SIGKILL mid-way; the queue manager backs its
// open transaction out when its connection drops, the other instance takes
// the claim over and resumes from the last checkpoint, and the shared queue
// ends with the command's messages plus at most one transaction repeated.
func TestIBMMQKilledInstanceRepeatsAtMostOneTransaction(t *testing.T) {
	const count, txSize = 40, 5
	srv := daemontest.StartMQServer(t)
	env := newLocalAWS(t, 50)
	vars := ibmmqProcessEnv(srv)
	maps.Copy(vars, map[string]string{"MQPROBE_IDEMPOTENCY_LEASE": "2s", "MQPROBE_SQS_VISIBILITYTIMEOUT": "3s"})
	procs := startDaemonProcesses(t, 2, daemonProcessEnv(env, vars))
	results := newResultQueue(t, env.results)
	key := fmt.Sprintf("ibmmq-takeover-%d", time.Now().UnixNano()%1e9)
	target := srv.Target("DEV.QUEUE.2")
	sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64,"rateLimitPerSec":20,"transaction":{"enabled":true,"txSize":%d}}}`,
		target, count, txSize), map[string]string{"Idempotency-Key": key})

	// Two commits on the shared queue mean the first checkpoint is written.
	_, survivor, _ := killLeaseHolder(t, procs, "PRODUCE", key, target, 2*txSize, count, 30*time.Second)

	e := results.wait(key, 1, 30*time.Second)[0]
	var res struct {
		Enqueued    int
		ResumedFrom *int
	}
	if err := json.Unmarshal(e.Data.Result, &res); err != nil || e.Data.Status != result.StatusCompleted ||
		e.Data.Attempt != 2 || e.Source != "mqprobe/"+survivor.Name || res.ResumedFrom == nil {
		t.Fatalf("result %s attempt %d by %s: %s; want COMPLETED on attempt 2 by %s, resuming", e.Data.Status, e.Data.Attempt, e.Source, e.Data.Result, survivor.Name)
	}
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	results.quiet(key, 1, time.Second)
	// The victim's committed transactions stay on the queue; its open one
	// was backed out with its connection. What it committed after the last
	// checkpoint the survivor put again.
	onQueue := survivor.DepthOf(t, target)
	repeated := onQueue - count
	figures := daemontest.FaultFigures{Sent: 1}
	switch {
	case len(results.of(key)) != 1:
		figures.Duplicated++
	case repeated >= 0 && repeated <= txSize && res.Enqueued == count:
		figures.Executed++
	default:
		figures.Lost++
	}
	daemontest.ReportFault(t, "ibmmq-sigkill-mid-produce", figures, daemontest.FaultFigures{Sent: 1, Executed: 1},
		"resumedFrom", *res.ResumedFrom, "onSharedQueue", onQueue, "repeated", repeated, "txSize", txSize)
	if repeated < 0 || repeated > txSize {
		t.Errorf("the shared queue holds %d messages for a PRODUCE of %d: %d repeated, want 0 to one transaction (%d)", onQueue, count, repeated, txSize)
	}
}

// TestIBMMQServerRestartMidRun: the queue manager is killed and restarted
// while PRODUCEs run on two instances; their connections break (2009), the
// pools reconnect to the restarted server, and every command still ends in
// exactly one outcome.
func TestIBMMQServerRestartMidRun(t *testing.T) {
	const commands, count, txSize = 12, 30, 5
	srv := daemontest.StartMQServer(t)
	env := newLocalAWS(t, 50)
	vars := ibmmqProcessEnv(srv)
	maps.Copy(vars, map[string]string{"MQPROBE_IDEMPOTENCY_LEASE": "3s", "MQPROBE_SQS_VISIBILITYTIMEOUT": "5s"})
	procs := startDaemonProcesses(t, 2, daemonProcessEnv(env, vars))
	results := newResultQueue(t, env.results)
	run := fmt.Sprintf("restart-%d", time.Now().UnixNano()%1e9)
	target := srv.Target("DEV.QUEUE.3")
	for i := range commands {
		sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64,"rateLimitPerSec":40,"transaction":{"enabled":true,"txSize":%d}}}`,
			target, count, txSize), map[string]string{"Idempotency-Key": fmt.Sprintf("%s-%02d", run, i)})
	}
	testenv.Eventually(t, 30*time.Second, "two transactions committed", func() bool { return procs[0].DepthOf(t, target) >= 2*txSize })
	srv.Down(t)
	downAt := time.Now()
	time.Sleep(time.Second)
	srv.Up(t)
	t.Logf("queue manager restarted after %s", time.Since(downAt).Round(time.Millisecond))

	isOurs := func(e receivedEvent) bool { return strings.HasPrefix(e.Data.IdempotencyKey, run+"-") }
	results.waitUntil(t, 90*time.Second, func(evs []receivedEvent) (bool, string) {
		n := countReceivedEvents(evs, isOurs)
		return n >= commands, fmt.Sprintf("%d of %d result events", n, commands)
	})
	waitSQSQueueDrained(t, env.commands, 20*time.Second)
	results.collectFor(t, time.Second)
	outcomes := map[string][]receivedEvent{}
	for _, e := range results.received() {
		if isOurs(e) && !e.Data.Replay {
			outcomes[e.Data.IdempotencyKey] = append(outcomes[e.Data.IdempotencyKey], e)
		}
	}
	figures := daemontest.FaultFigures{Sent: commands}
	statuses := map[result.Status]int{}
	for i := range commands {
		key := fmt.Sprintf("%s-%02d", run, i)
		switch evs := outcomes[key]; len(evs) {
		case 0:
			figures.Lost++
			t.Errorf("key %s: no outcome", key)
		case 1:
			figures.Executed++
			statuses[evs[0].Data.Status]++
			if evs[0].Data.Status != result.StatusCompleted {
				t.Logf("key %s: %s %+v", key, evs[0].Data.Status, evs[0].Data.Error)
			}
		default:
			figures.Duplicated++
			t.Errorf("key %s: %d outcomes", key, len(evs))
		}
	}
	if n := sqsQueueMessages(t, env.deadLetters); n != 0 {
		t.Errorf("%d commands in the dead-letter queue", n)
	}
	daemontest.ReportFault(t, "ibmmq-server-restart", figures, daemontest.FaultFigures{Sent: commands, Executed: commands},
		"completed", statuses[result.StatusCompleted], "failed", statuses[result.StatusFailed],
		"onQueueAfterRestart", procs[0].DepthOf(t, target))
}

// leaseHolder is the instance holding op#key's lease, as p's API reports
// it, or "" while nobody does.
// killLeaseHolder waits, up to within, until queue holds at least atLeast
// messages (queue is a command's target fragment) and one of the two instances holds the lease of op's key, then
// kills that instance: victim, the other (survivor), and the depth seen.
// The command must not have finished (total messages) by then.
func killLeaseHolder(t *testing.T, procs []*daemontest.Process, op, key, queue string,
	atLeast, total int, within time.Duration) (victim, survivor *daemontest.Process, seen int) {
	t.Helper()
	testenv.Eventually(t, within, fmt.Sprintf("%d messages on the queue and %s's lease held", atLeast, op), func() bool {
		if seen = procs[0].DepthOf(t, queue); seen < atLeast {
			return false
		}
		holder := leaseHolder(t, procs[0], op, key)
		for i, p := range procs {
			if p.Name == holder {
				victim, survivor = p, procs[1-i]
			}
		}
		return victim != nil
	})
	if seen >= total {
		t.Fatalf("%s finished (depth %d) before it could be killed: the command is too fast", victim.Name, seen)
	}
	victim.Kill(t)
	t.Logf("killed %s with %d messages on the queue", victim.Name, seen)
	return victim, survivor, seen
}

func leaseHolder(t *testing.T, p *daemontest.Process, op, key string) string {
	t.Helper()
	status, body, err := p.Get("/commands/" + op + "/" + key)
	if err != nil || (status != http.StatusOK && status != http.StatusNotFound) {
		t.Fatalf("%s: GET /commands/%s/%s: %d %s %v", p.Name, op, key, status, body, err)
	}
	var view struct{ Lease *struct{ Holder string } }
	if err := json.Unmarshal(body, &view); err != nil || view.Lease == nil {
		return ""
	}
	return view.Lease.Holder
}

// TestIBMMQKilledDuringStoreOutageRepeatsAtMostOneTransaction: the store
// (reached by both instances through a proxy) is cut while an instance
// runs a PRODUCE, and that instance is killed while it waits for a
// checkpoint it cannot store. It committed nothing after that checkpoint,
// so once the store is back the other instance takes over (after the lease
// and its grace) and the queue ends with the command's messages plus at
// most one transaction, which the result's resumedFrom accounts for.
func TestIBMMQKilledDuringStoreOutageRepeatsAtMostOneTransaction(t *testing.T) {
	const count, txSize = 40, 5
	srv := daemontest.StartMQServer(t)
	env := newLocalAWS(t, 50)
	proxy, _ := proxiedDynamoDB(t, env)
	vars := ibmmqProcessEnv(srv)
	maps.Copy(vars, map[string]string{"MQPROBE_IDEMPOTENCY_LEASE": "2s", "MQPROBE_SQS_VISIBILITYTIMEOUT": "3s",
		"AWS_ENDPOINT_URL_DYNAMODB": "http://" + proxy.Addr()})
	procs := startDaemonProcesses(t, 2, daemonProcessEnv(env, vars))
	results := newResultQueue(t, env.results)
	key := fmt.Sprintf("ibmmq-outage-kill-%d", time.Now().UnixNano()%1e9)
	target := srv.Target("DEV.QUEUE.3")
	before := procs[0].DepthOf(t, target)
	sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"messageSizeBytes":64,"rateLimitPerSec":20,"transaction":{"enabled":true,"txSize":%d}}}`,
		target, count, txSize), map[string]string{"Idempotency-Key": key})

	var victim, survivor *daemontest.Process
	atCut := 0
	testenv.Eventually(t, 30*time.Second, fmt.Sprintf("%d messages committed by the lease holder", 2*txSize), func() bool {
		if atCut = procs[0].DepthOf(t, target) - before; atCut < 2*txSize {
			return false
		}
		holder := leaseHolder(t, procs[0], "PRODUCE", key)
		for i, p := range procs {
			if p.Name == holder {
				victim, survivor = p, procs[1-i]
			}
		}
		return victim != nil
	})
	// The store is cut for both instances (a DEPTH through them would
	// need it too); the victim waits for its checkpoint meanwhile.
	proxy.Cut()
	time.Sleep(time.Second)
	victim.Kill(t)
	time.Sleep(time.Second)
	proxy.Restore()
	t.Logf("killed %s during the store outage; %d messages were committed when the store was cut", victim.Name, atCut)

	evs := results.wait(key, 1, time.Minute)
	e := evs[len(evs)-1]
	var res struct {
		Enqueued    int
		ResumedFrom *int
	}
	if err := json.Unmarshal(e.Data.Result, &res); err != nil || e.Data.Status != result.StatusCompleted ||
		e.Source != "mqprobe/"+survivor.Name || res.ResumedFrom == nil {
		t.Fatalf("result %s attempt %d by %s: %s; want COMPLETED by %s, resuming", e.Data.Status, e.Data.Attempt, e.Source, e.Data.Result, survivor.Name)
	}
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	results.quiet(key, 1, time.Second)
	onQueue := survivor.DepthOf(t, target) - before
	repeated := onQueue - count
	figures := daemontest.FaultFigures{Sent: 1}
	switch {
	case len(results.of(key)) != 1:
		figures.Duplicated++
	case repeated >= 0 && repeated <= txSize && res.Enqueued == count:
		figures.Executed++
	default:
		figures.Lost++
	}
	daemontest.ReportFault(t, "ibmmq-sigkill-during-store-outage", figures, daemontest.FaultFigures{Sent: 1, Executed: 1},
		"resumedFrom", *res.ResumedFrom, "committedAtCut", atCut, "onSharedQueue", onQueue, "repeated", repeated, "txSize", txSize)
	if repeated < 0 || repeated > txSize {
		t.Errorf("the shared queue holds %d messages for a PRODUCE of %d (resumed from %d): %d repeated, want 0 to one transaction (%d)",
			onQueue, count, *res.ResumedFrom, repeated, txSize)
	}
}
