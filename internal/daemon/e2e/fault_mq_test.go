package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestFaultConnectionBroken breaks the embedded queue manager's connections
// (its fault hook) while PRODUCEs are in the middle of transactions.
func TestFaultConnectionBroken(t *testing.T) {
	backend := daemontest.NewEmbeddedBackend(t)
	runConnectionBroken(t, "mq-connection-broken-embedded", backend, backend.Faults().BreakConnections)
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
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) {
		s.Opts.Backend = backend
		s.Opts.Store.(*storetest.Counting).BeforeUpdate = func(u idempotency.Update) error {
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

	run := daemontest.FaultRun()
	keys := make([]string, len(queues))
	baseline := map[string]int{} // messages other tests left on a shared queue manager
	for i, queue := range queues {
		keys[i] = fmt.Sprintf("%s-%s-%d", name, run, i)
		baseline[queue] = daemontest.QueueDepth(t, backend, queue)
		sendCommand(t, env.commands, daemontest.FaultProduce(keys[i], queue, count, txSize, rate), map[string]string{"Idempotency-Key": keys[i]})
	}
	// committed reads a command's checkpoint: what its record says it
	// committed. A PRODUCE on an embedded queue manager, whose messages die
	// with the process, stores one only when an attempt fails; while it
	// runs, its live progress says what it has committed.
	committed := func(key string) int {
		rec, ok, err := h.Store.Get(ctx, "PRODUCE#"+key)
		if err != nil {
			t.Fatalf("record of %s: %v", key, err)
		}
		var progress struct{ Committed int }
		if ok && rec.Progress != "" {
			if err := json.Unmarshal([]byte(rec.Progress), &progress); err != nil {
				t.Fatalf("progress of %s: %v", key, err)
			}
			return progress.Committed
		}
		if mq.MessagesOutliveProcess(backend) {
			return 0
		}
		var live struct{ Progress struct{ Committed int } }
		if status, _, body := h.Get("/commands/PRODUCE/" + key); status == http.StatusOK {
			if err := json.Unmarshal(body, &live); err != nil {
				t.Fatalf("GET /commands/PRODUCE/%s: %v: %s", key, err, body)
			}
		}
		return live.Progress.Committed
	}
	// done is how many messages a running command has put, committed or
	// not (its live progress).
	done := func(key string) int {
		var live struct{ Progress struct{ Done int } }
		if status, _, body := h.Get("/commands/PRODUCE/" + key); status == http.StatusOK {
			if err := json.Unmarshal(body, &live); err != nil {
				t.Fatalf("GET /commands/PRODUCE/%s: %v: %s", key, err, body)
			}
		}
		return live.Progress.Done
	}
	// midTransaction: a transaction is committed and checkpointed, and puts
	// of the next one are made, uncommitted. They need not be on the queue
	// yet: the IBM MQ client library holds asynchronous puts under
	// syncpoint back until the commit.
	midTransaction := func() bool {
		for _, key := range keys {
			c := committed(key)
			if c < txSize || c >= count || done(key) <= c {
				return false
			}
		}
		return true
	}
	testenv.Eventually(t, 30*time.Second, "every command in the middle of a transaction", midTransaction)
	breakConnections()

	// The open transactions are backed out: each queue holds what its
	// command committed, before any retry (a redelivery waits for the nack
	// delay) puts more.
	resumeAt := make([]int, len(queues))
	settled := func() bool {
		for i, queue := range queues {
			resumeAt[i] = committed(keys[i])
			if daemontest.QueueDepth(t, backend, queue)-baseline[queue] != resumeAt[i] {
				return false
			}
		}
		return true
	}
	if !testenv.Until(500*time.Millisecond, settled) {
		for i, queue := range queues {
			t.Errorf("%s: depth %d above the %d committed after the break: the transaction was not backed out",
				queue, daemontest.QueueDepth(t, backend, queue)-baseline[queue], resumeAt[i])
		}
		t.FailNow()
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
	daemontest.ReportFault(t, name, got, daemontest.FaultFigures{Sent: len(keys), Executed: len(keys)},
		"brokenAttempts", brokenAttempts, "resumedFrom", fmt.Sprint(resumeAt))
}
