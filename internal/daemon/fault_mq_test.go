package daemon_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestFaultQueueFull fills an embedded queue (its fault hook caps MAXDEPTH).
func TestFaultQueueFull(t *testing.T) {
	backend := daemontest.NewEmbeddedBackend(t)
	runQueueFull(t, "mq-queue-full-embedded", backend, backend.Faults().CapDepth)
}

// runQueueFull caps the queues' depth a few messages above what
// DEV.QUEUE.2 holds and sends a PRODUCE that does not fit: its transaction
// is backed out and it ends in one `failed` result carrying reason 2053,
// never retried.
func runQueueFull(t *testing.T, name string, backend mq.Backend, capDepth func(int)) {
	const room, count = 5, 8
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Opts.Backend = backend })
	before := daemontest.QueueDepth(t, backend, "DEV.QUEUE.2")
	capDepth(before + room)
	defer capDepth(0)
	key := fmt.Sprintf("%s-%s", name, daemontest.FaultRun())
	h.Submit(daemontest.FaultProduce(key, "DEV.QUEUE.2", count, count, 0), "Idempotency-Key", key)
	e := h.WaitResults(key, 1)[0]
	awaitAcked(t, h) // a nacked command would run again
	evs := h.Results(key)
	rec, ok, err := h.Store.Get(context.Background(), "PRODUCE#"+key)
	if err != nil || !ok {
		t.Fatalf("record of %s: %v (found %v)", key, err, ok)
	}
	got := daemontest.FaultFigures{Sent: 1}
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
	if d := daemontest.QueueDepth(t, backend, "DEV.QUEUE.2"); d != before {
		t.Errorf("DEV.QUEUE.2 holds %d messages, want the %d it held: the failed transaction backed out", d, before)
	}
	if failed != 1 {
		got.Lost = 1
	}
	daemontest.ReportFault(t, name, got, daemontest.FaultFigures{Sent: 1}, "failed", failed, "reason", reasonOf(e))
}

// reasonOf is the MQ reason a result event reports, 0 for none.
func reasonOf(e result.Event) int32 {
	if e.Data.Error == nil {
		return 0
	}
	return e.Data.Error.Reason
}
