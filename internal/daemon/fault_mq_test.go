package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestFaultConnectionBroken breaks the embedded queue manager's connections
// (its fault hook) while PRODUCEs are in the middle of transactions.
func TestFaultConnectionBroken(t *testing.T) {
	backend := newEmbeddedBackend(t)
	runConnectionBroken(t, "mq-connection-broken-embedded", backend, backend.Faults().BreakConnections)
}

// TestFaultQueueFull fills an embedded queue (its fault hook caps MAXDEPTH).
func TestFaultQueueFull(t *testing.T) {
	backend := newEmbeddedBackend(t)
	runQueueFull(t, "mq-queue-full-embedded", backend, backend.Faults().CapDepth)
}

func newEmbeddedBackend(t *testing.T) *embedded.Backend {
	t.Helper()
	backend, err := embedded.New(embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return backend
}

// runConnectionBroken runs three paced PRODUCEs over SQS, one per queue,
// breaks every MQ connection (reason 2009) once each has committed a
// transaction and is in the middle of the next, and checks that the open
// transactions were backed out, that each attempt failed as transient and
// was retried from its checkpoint, and that each command was executed once.
func runConnectionBroken(t *testing.T, name string, backend mq.Backend, breakConnections func()) {
	const count, txSize, rate = 40, 10, 20
	queues := []string{"DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3"}
	env := newLocalAWS(t, 20)
	var (
		mu       sync.Mutex
		failures []string // error messages of failed attempts
	)
	h := start(t, inAWSMode(env), func(s *setup) {
		s.opts.Backend = backend
		s.opts.Store.(*storetest.Counting).BeforeUpdate = func(u idempotency.Update) error {
			if u.Kind == idempotency.UpdateFail {
				mu.Lock()
				failures = append(failures, u.ErrorMessage)
				mu.Unlock()
			}
			return nil
		}
	})
	results := newResultQueue(t, env.results)
	ctx := context.Background()

	run := faultRun()
	keys := make([]string, len(queues))
	baseline := map[string]int{} // messages other tests left on a shared queue manager
	for i, queue := range queues {
		keys[i] = fmt.Sprintf("%s-%s-%d", name, run, i)
		baseline[queue] = queueDepth(t, backend, queue)
		sendCommand(t, env.commands, faultProduce(keys[i], queue, count, txSize, rate), map[string]string{"Idempotency-Key": keys[i]})
	}
	// committed reads a command's checkpoint: what its record says it
	// committed.
	committed := func(key string) int {
		rec, ok, err := h.store.Get(ctx, "PRODUCE#"+key)
		if err != nil {
			t.Fatalf("record of %s: %v", key, err)
		}
		var progress struct{ Committed int }
		if ok && rec.Progress != "" {
			if err := json.Unmarshal([]byte(rec.Progress), &progress); err != nil {
				t.Fatalf("progress of %s: %v", key, err)
			}
		}
		return progress.Committed
	}
	// midTransaction: a transaction is committed and checkpointed, and puts
	// of the next one are on the queue, uncommitted (CURDEPTH counts them).
	midTransaction := func() bool {
		for i, queue := range queues {
			c := committed(keys[i])
			if c < txSize || c >= count || queueDepth(t, backend, queue)-baseline[queue] <= c {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(30 * time.Second); !midTransaction(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the commands were not all in the middle of a transaction within 30s")
		}
	}
	breakConnections()

	// The open transactions are backed out: each queue holds what its
	// command committed, before any retry (a redelivery waits for the nack
	// delay) puts more.
	resumeAt := make([]int, len(queues))
	settled := func() bool {
		for i, queue := range queues {
			resumeAt[i] = committed(keys[i])
			if queueDepth(t, backend, queue)-baseline[queue] != resumeAt[i] {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(500 * time.Millisecond); !settled(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			for i, queue := range queues {
				t.Errorf("%s: depth %d above the %d committed after the break: the transaction was not backed out",
					queue, queueDepth(t, backend, queue)-baseline[queue], resumeAt[i])
			}
			t.FailNow()
		}
	}

	for i, key := range keys {
		e := results.wait(key, 1, 30*time.Second)[0]
		var res struct {
			Enqueued    int
			ResumedFrom *int
		}
		if err := json.Unmarshal(e.Data.Result, &res); err != nil {
			t.Fatalf("result of %s: %v", key, err)
		}
		if e.Data.Attempt != 2 || res.ResumedFrom == nil || *res.ResumedFrom != resumeAt[i] || res.Enqueued != count {
			t.Errorf("%s: attempt %d result %s, want attempt 2 resuming from the checkpoint %d and enqueuing %d in all",
				key, e.Data.Attempt, e.Data.Result, resumeAt[i], count)
		}
	}
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	results.collectFor(t, time.Second) // a retry too many would publish again
	evs := eventsByKey(cloudEvents(results.received()))
	puts := map[string]int{}
	for _, queue := range queues {
		for key, n := range putsByKey(t, backend, queue) {
			puts[key] += n
		}
	}
	got, problems := tally(keys, count, puts, evs)
	reportProblems(t, problems)
	mu.Lock()
	defer mu.Unlock()
	brokenAttempts := 0
	for _, msg := range failures {
		if strings.Contains(msg, "MQRC_CONNECTION_BROKEN") {
			brokenAttempts++
		} else {
			t.Errorf("an attempt failed with %q, want only MQRC_CONNECTION_BROKEN", msg)
		}
	}
	if brokenAttempts != len(keys) {
		t.Errorf("%d attempts failed with MQRC_CONNECTION_BROKEN, want one per command (%d)", brokenAttempts, len(keys))
	}
	reportFault(t, name, got, faultFigures{Sent: len(keys), Executed: len(keys)},
		"brokenAttempts", brokenAttempts, "resumedFrom", fmt.Sprint(resumeAt))
}

// runQueueFull caps the queues' depth a few messages above what
// DEV.QUEUE.2 holds and sends a PRODUCE that does not fit: its transaction
// is backed out and it ends in one `failed` result carrying reason 2053,
// never retried.
func runQueueFull(t *testing.T, name string, backend mq.Backend, capDepth func(int)) {
	const room, count = 5, 8
	h := start(t, func(s *setup) { s.opts.Backend = backend })
	before := queueDepth(t, backend, "DEV.QUEUE.2")
	capDepth(before + room)
	defer capDepth(0)
	key := fmt.Sprintf("%s-%s", name, faultRun())
	h.submit(faultProduce(key, "DEV.QUEUE.2", count, count, 0), "Idempotency-Key", key)
	e := h.waitResults(key, 1)[0]
	// A retry would run again after the nack delay (50 ms here).
	time.Sleep(time.Second)
	evs := h.results(key)
	rec, ok, err := h.store.Get(context.Background(), "PRODUCE#"+key)
	if err != nil || !ok {
		t.Fatalf("record of %s: %v (found %v)", key, err, ok)
	}
	got := faultFigures{Sent: 1}
	failed := 0
	for _, d := range evs {
		switch d.Data.Status {
		case result.StatusFailed:
			failed++
		case result.StatusCompleted:
			got.Executed++
		case result.StatusRejected:
			got.Rejected++
		}
	}
	if e.Type != result.TypeFailed || e.Data.Error == nil || e.Data.Error.Reason != int32(mq.ReasonQFull) ||
		e.Data.Error.Code != "MQRC_Q_FULL" || e.Data.Error.Transient {
		t.Errorf("result %s %+v, want failed with MQRC_Q_FULL (2053), not transient", e.Type, e.Data.Error)
	} else {
		t.Logf("failed result: %s", e.Data.Error.Message)
	}
	if len(evs) != 1 || rec.Status != idempotency.StatusFailed || rec.Attempt != 1 {
		t.Errorf("%d result events and record %s attempt %d, want one event and a FAILED record never retried", len(evs), rec.Status, rec.Attempt)
	}
	if d := queueDepth(t, backend, "DEV.QUEUE.2"); d != before {
		t.Errorf("DEV.QUEUE.2 holds %d messages, want the %d it held: the failed transaction backed out", d, before)
	}
	if failed != 1 {
		got.Lost = 1
	}
	reportFault(t, name, got, faultFigures{Sent: 1}, "failed", failed, "reason", reasonOf(e))
}

// reasonOf is the MQ reason a result event reports, 0 for none.
func reasonOf(e result.Event) int32 {
	if e.Data.Error == nil {
		return 0
	}
	return e.Data.Error.Reason
}
