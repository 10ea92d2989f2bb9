package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/result"
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
		target, count, txSize)
	sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": key})

	var victim, survivor *daemonProcess
	seen := 0
	for deadline := time.Now().Add(30 * time.Second); victim == nil; time.Sleep(20 * time.Millisecond) {
		for i, p := range procs {
			if d := p.depth(t, "DEV.QUEUE.1"); d >= 2*txSize {
				victim, survivor, seen = p, procs[1-i], d
				break
			}
		}
		if victim == nil && time.Now().After(deadline) {
			t.Fatalf("no instance committed %d messages within 30s", 2*txSize)
		}
	}
	if seen >= count {
		t.Fatalf("%s finished (depth %d) before the SIGTERM: the command is too fast", victim.name, seen)
	}
	stopped := time.Now()
	victim.stop(syscall.SIGTERM)
	if victim.err != nil {
		t.Fatalf("%s exited with %v after SIGTERM; want a clean drain", victim.name, victim.err)
	}
	t.Logf("%s drained in %s at depth %d", victim.name, time.Since(stopped).Round(time.Millisecond), seen)

	evs := results.wait(key, 1, lease/2)
	handover := time.Since(stopped)
	e := evs[0]
	if e.Data.Status != result.StatusCompleted || e.Data.Replay || e.Data.Attempt != 2 || e.Source != "mqprobe/"+survivor.name {
		t.Fatalf("result %s replay=%v attempt %d source %s error %+v; want COMPLETED on attempt 2 by %s",
			e.Data.Status, e.Data.Replay, e.Data.Attempt, e.Source, e.Data.Error, survivor.name)
	}
	var res struct {
		Enqueued    int
		ResumedFrom *int
	}
	if err := json.Unmarshal(e.Data.Result, &res); err != nil || res.ResumedFrom == nil {
		t.Fatalf("result %s: no resumedFrom (%v)", e.Data.Result, err)
	}
	from := *res.ResumedFrom
	// A drain backs the open transaction out and checkpoints every commit,
	// so the survivor resumes exactly where the victim's commits ended.
	if from%txSize != 0 || from < seen-seen%txSize || from >= count {
		t.Errorf("resumedFrom %d: want the victim's last commit (it had committed at least %d) and below %d", from, seen-seen%txSize, count)
	}
	survivorPut := survivor.depth(t, "DEV.QUEUE.1")
	if res.Enqueued != count || survivorPut != count-from {
		t.Errorf("enqueued %d, survivor put %d; want %d and %d", res.Enqueued, survivorPut, count, count-from)
	}
	rec, ok, err := dynamodb.New(ddbClient, env.table).Get(context.Background(), "PRODUCE#"+key)
	if err != nil || !ok || rec.Status != idempotency.StatusCompleted || rec.Attempt != 2 {
		t.Errorf("record %+v (found %v, %v), want COMPLETED on attempt 2", rec, ok, err)
	}
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	results.quiet(key, 1, time.Second)
	got := faultFigures{Sent: 1}
	switch executions := countReceivedEvents(results.of(key), func(e receivedEvent) bool {
		return e.Data.Status == result.StatusCompleted && !e.Data.Replay
	}); {
	case executions > 1:
		got.Duplicated++
	case executions == 1 && res.Enqueued == count && survivorPut == count-from:
		got.Executed++
	default:
		got.Lost++
	}
	reportFault(t, "sigterm-mid-produce", got, faultFigures{Sent: 1, Executed: 1},
		"resumedFrom", from, "handoverMs", handover.Milliseconds(), "leaseMs", lease.Milliseconds())
}
