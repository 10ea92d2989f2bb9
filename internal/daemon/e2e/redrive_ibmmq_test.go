//go:build ibmmq

package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestIBMMQRedriveKilledHalfWayMovesEachMessageOnce: 1,000 messages with
// IBM-format MQDLH headers sit on the simulator's dead-letter queue; the
// instance redriving them is killed with SIGKILL half way, the queue
// manager backs its open unit of work out, the other instance takes the
// claim over, and the destination ends with exactly 1,000 messages, the
// dead-letter queue with none, and the result counts 1,000 moved.
func TestIBMMQRedriveKilledHalfWayMovesEachMessageOnce(t *testing.T) {
	const count, txSize = 1000, 2
	srv := daemontest.StartMQServer(t)
	env := newLocalAWS(t, 50)
	vars := ibmmqProcessEnv(srv)
	maps.Copy(vars, map[string]string{"MQPROBE_IDEMPOTENCY_LEASE": "2s", "MQPROBE_SQS_VISIBILITYTIMEOUT": "3s"})
	procs := startDaemonProcesses(t, 2, daemonProcessEnv(env, vars))
	results := newResultQueue(t, env.results)
	run := time.Now().UnixNano() % 1e9
	dlq, dest := srv.Target("DEV.DEAD.LETTER.QUEUE"), srv.Target("DEV.QUEUE.1")

	// Dead-letter the messages as a queue manager would: each starts with
	// an MQDLH naming DEV.QUEUE.1 and MQRC_Q_FULL.
	h := mq.DeadLetterHeader{Reason: mq.ReasonQFull, DestQueue: "DEV.QUEUE.1", DestQMgr: "QM1", Encoding: mq.EncodingNativeLittle,
		CCSID: 1208, Format: mq.FormatString, PutApplType: 6, PutApplName: "amqrmppa", PutTime: time.Now().Add(-time.Minute)}
	raw, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	body := base64.StdEncoding.EncodeToString(append(raw, "order"...))
	fill := fmt.Sprintf("redrive-fill-%d", run)
	sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"PRODUCE",%s,"batch":{"count":%d,"transaction":{"enabled":true,"txSize":100}},"payload":{"mode":"fixed","fixedBase64":%q}}`,
		dlq, count, body), map[string]string{"Idempotency-Key": fill})
	if e := results.wait(fill, 1, 60*time.Second)[0]; e.Data.Status != result.StatusCompleted {
		t.Fatalf("filling the dead-letter queue: %s %+v", e.Data.Status, e.Data.Error)
	}

	key := fmt.Sprintf("redrive-%d", run)
	sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"REDRIVE",%s,"txSize":%d}`, dlq, txSize),
		map[string]string{"Idempotency-Key": key})
	_, survivor, seen := killLeaseHolder(t, procs, "REDRIVE", key, dest, count/2, count, 60*time.Second)

	e := results.wait(key, 1, 60*time.Second)[0]
	var res struct {
		Moved         int
		ByDestination map[string]int
		ResumedFrom   *int
	}
	if err := json.Unmarshal(e.Data.Result, &res); err != nil || e.Data.Status != result.StatusCompleted ||
		e.Data.Attempt != 2 || e.Source != "mqprobe/"+survivor.Name || res.ResumedFrom == nil {
		t.Fatalf("result %s attempt %d by %s: %s %+v; want COMPLETED on attempt 2 by %s, resuming",
			e.Data.Status, e.Data.Attempt, e.Source, e.Data.Result, e.Data.Error, survivor.Name)
	}
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	results.quiet(key, 1, time.Second)
	onDest, onDLQ := survivor.DepthOf(t, dest), survivor.DepthOf(t, dlq)
	figures := daemontest.FaultFigures{Sent: 1}
	switch {
	case len(results.of(key)) != 1 || onDest > count:
		figures.Duplicated++
	case onDest == count && onDLQ == 0 && res.Moved == count:
		figures.Executed++
	default:
		figures.Lost++
	}
	daemontest.ReportFault(t, "ibmmq-sigkill-mid-redrive", figures, daemontest.FaultFigures{Sent: 1, Executed: 1},
		"resumedFrom", *res.ResumedFrom, "killedAt", seen, "onDestination", onDest, "onDeadLetterQueue", onDLQ, "moved", res.Moved, "txSize", txSize)
	if onDest != count || onDLQ != 0 || res.Moved != count || res.ByDestination["DEV.QUEUE.1"] != count {
		t.Errorf("destination holds %d, dead-letter queue %d, result moved %d (%v): want %d, 0, %d", onDest, onDLQ, res.Moved, res.ByDestination, count, count)
	}
}
