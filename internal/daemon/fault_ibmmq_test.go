//go:build ibmmq

package daemon_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
	"github.com/mqprobe/mqprobe/internal/result"
)

// The MQ faults again, through the IBM MQ adapter and its client library
// to a queue manager server in this process (found through MQSERVER, as
// the daemon's targets name no host), whose queue manager injects them.

// TestFaultQueueFullStub caps every queue's depth on the server.
func TestFaultQueueFullStub(t *testing.T) {
	srv := mqsimtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER())
	runQueueFull(t, "mq-queue-full-stub", ibmmq.New(), srv.Faults().CapDepth)
}

// TestFaultAsyncPutFailsMidBatchStub: PRODUCE puts asynchronously (the
// default on IBM MQ); the 25th put of 50, committed every 10, fails on the
// queue manager while the client has long moved on. The commit of its
// transaction asks MQSTAT first, backs the transaction out and fails the
// command: 20 messages committed and on the queue, the result saying so
// with the failed put's reason, and no checkpoint counting past 20.
func TestFaultAsyncPutFailsMidBatchStub(t *testing.T) {
	srv := mqsimtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER())
	backend := ibmmq.New()
	var mu sync.Mutex
	var checkpoints []int
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Opts.Backend = backend
		s.Opts.Store.(*storetest.Counting).BeforeUpdate = func(u idempotency.Update) error {
			if u.Progress != nil && *u.Progress != "" {
				var p struct{ Committed int }
				if err := json.Unmarshal([]byte(*u.Progress), &p); err != nil {
					t.Errorf("checkpoint %q: %v", *u.Progress, err)
				}
				mu.Lock()
				checkpoints = append(checkpoints, p.Committed)
				mu.Unlock()
			}
			return nil
		}
	})
	before := daemontest.QueueDepth(t, backend, "DEV.QUEUE.2")
	srv.Faults().FailNth(mq.VerbPut, 25, mq.ReasonQFull)
	defer srv.Faults().FailNth(mq.VerbPut, 0, 0)
	key := "async-put-fails-" + daemontest.FaultRun()
	h.Submit(daemontest.FaultProduce(key, "DEV.QUEUE.2", 50, 10, 0), "Idempotency-Key", key)
	e := h.WaitResults(key, 1)[0]
	if e.Type != result.TypeFailed || e.Data.Error == nil || e.Data.Error.Reason != int32(mq.ReasonQFull) ||
		!strings.Contains(e.Data.Error.Message, "asynchronous puts failed") {
		t.Fatalf("result %s %+v, want failed with the asynchronous put's MQRC_Q_FULL (2053)", e.Type, e.Data.Error)
	}
	t.Logf("failed result: %s", e.Data.Error.Message)
	if p := e.Data.Progress; p == nil || p.Committed != 20 {
		t.Errorf("progress %+v, want 20 committed (two transactions of 10)", p)
	}
	if d := daemontest.QueueDepth(t, backend, "DEV.QUEUE.2"); d != before+20 {
		t.Errorf("DEV.QUEUE.2 holds %d messages more, want 20: the failed put's transaction backed out", d-before)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range checkpoints {
		if c > 20 {
			t.Errorf("a checkpoint counted %d messages (all: %v), past the 20 committed before the failed put", c, checkpoints)
		}
	}
	if !slices.Contains(checkpoints, 20) {
		t.Errorf("checkpoints %v, want one of 20 committed", checkpoints)
	}
}
