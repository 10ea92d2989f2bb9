package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestFaultItemLimit consumes 3,000 one-byte messages in one CONSUME on
// DynamoDB, whose 400 KB item cannot list them all (each listed message
// takes ~230 bytes in the record, twice: checkpoint and result). The
// command must end within 60 s in one outcome; the messages past the list
// are counted, not listed, and every message taken off the queue counted.
func TestFaultItemLimit(t *testing.T) {
	onEachEmulator(t, faultItemLimit)
}

func faultItemLimit(t *testing.T, e *awsEmulator) {
	const messages = 3000
	env := newLocalAWS(t, 100)
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) {
		s.Cfg.Idempotency.Lease = 6 * time.Second
	})
	results := newResultQueue(t, env.results)
	run := daemontest.FaultRun()

	produce := "item-limit-produce-" + run
	sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},`+
		`"batch":{"count":%d,"messageSizeBytes":1}}`, messages), map[string]string{"Idempotency-Key": produce})
	if ev := results.wait(produce, 1, 2*time.Minute)[0]; ev.Data.Status != result.StatusCompleted {
		t.Fatalf("PRODUCE of %d messages: %s %+v", messages, ev.Data.Status, ev.Data.Error)
	}
	before := h.Depth("DEV.QUEUE.1")

	key := "item-limit-consume-" + run
	sent := time.Now()
	sendCommand(t, env.commands, fmt.Sprintf(`{"operationType":"CONSUME","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},`+
		`"maxMessages":%d,"waitSeconds":0}`, messages), map[string]string{"Idempotency-Key": key})
	final := func(evs []receivedEvent) []receivedEvent {
		var out []receivedEvent
		for _, ev := range evs {
			if ev.Data.IdempotencyKey == key && ev.Data.Status != result.StatusInProgress {
				out = append(out, ev)
			}
		}
		return out
	}
	results.waitUntil(t, 60*time.Second, func(evs []receivedEvent) (bool, string) {
		return len(final(evs)) > 0, "no outcome of the CONSUME yet"
	})
	took := time.Since(sent)
	waitSQSQueueDrained(t, env.commands, 30*time.Second)
	results.collectFor(t, 2*time.Second) // a second outcome would show now
	after := h.Depth("DEV.QUEUE.1")
	consumed := before - after

	outcomes := final(results.received())
	ev := outcomes[0]
	var r struct {
		Received  int               `json:"received"`
		Truncated bool              `json:"truncated"`
		Messages  []json.RawMessage `json:"messages"`
	}
	if ev.Data.Status == result.StatusCompleted {
		if err := json.Unmarshal(ev.Data.Result, &r); err != nil {
			t.Fatalf("CONSUME result: %v", err)
		}
	}
	listed, counted := len(r.Messages), r.Received-len(r.Messages)
	got := daemontest.FaultFigures{Sent: 1, Rejected: 0}
	switch {
	case len(outcomes) > 1:
		got.Duplicated = 1
	case ev.Data.Status == result.StatusCompleted && r.Received == consumed && listed+counted == consumed:
		got.Executed = 1
	default:
		got.Lost = 1
	}
	daemontest.ReportFault(t, "item-limit-"+e.name, got, daemontest.FaultFigures{Sent: 1, Executed: 1},
		"consumed", consumed, "listed", listed, "counted", counted, "seconds", int(took.Seconds()))
	if ev.Data.Status != result.StatusCompleted {
		t.Fatalf("CONSUME ended %s: %+v", ev.Data.Status, ev.Data.Error)
	}
	if consumed != messages || r.Received != messages || !r.Truncated || listed == 0 || listed >= messages {
		t.Errorf("consumed %d (queue %d → %d), received %d, listed %d, truncated %v: want all %d received, some listed, truncated",
			consumed, before, after, r.Received, listed, r.Truncated, messages)
	}
	rec, ok, err := dynamodb.New(ddbClient, env.table).Get(context.Background(), "CONSUME#"+key)
	if err != nil || !ok || rec.Status != idempotency.StatusCompleted {
		t.Fatalf("record of the CONSUME: %v %v %s, want COMPLETED", ok, err, rec.Status)
	}
	if n := idempotency.RecordSize(rec); n > dynamodb.MaxItemBytes {
		t.Errorf("record holds %d bytes, over the declared %d", n, dynamodb.MaxItemBytes)
	}
}
