package probe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

func newEmbeddedEnv(*testing.T) testEnv {
	b := embedded.NewDefault()
	return testEnv{
		backend:    b,
		target:     mq.Target{QueueManager: embedded.DefaultQueueManager},
		faults:     b.Faults(),
		queue:      "DEV.QUEUE.1",
		replyQueue: "DEV.QUEUE.2",
	}
}

func TestRunEmbedded(t *testing.T) { runBackendCases(t, newEmbeddedEnv) }

// A get failing in a putter's gets after its put fails the run as a
// getter's would, and the message it left is counted in flight, not as
// never sent.
func TestPutterGetFailureFailsTheRun(t *testing.T) {
	env := newEmbeddedEnv(t)
	pool, err := mq.NewPool(env.backend, mq.PoolConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	env.backend.(*embedded.Backend).Faults().FailNth(mq.VerbGet, 9, mq.ReasonConnectionBroken) // after the 5th put: each put's gets are one that takes it and one that finds none
	cfg := Config{Target: env.target, Queue: env.queue, Count: 100, Rate: highRate, MessageSize: 256, LossTimeout: 2 * time.Second}
	st, err := Run(context.Background(), pool, cfg, nil)
	if !mq.IsReason(err, mq.ReasonConnectionBroken) || !strings.Contains(err.Error(), "getter 0: get from") {
		t.Fatalf("run: %v, want the getter's 2009", err)
	}
	if st.Sent != 5 || st.Received != 4 || st.InFlight != 1 {
		t.Errorf("got %+v; want 5 sent, 4 received, the 5th in flight", st)
	}
}
