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
// getter's would, and the message it left is counted, not lost: in flight,
// or received when the getters, started as the puts end, take it before
// the run stops.
func TestPutterGetFailureFailsTheRun(t *testing.T) {
	env := newEmbeddedEnv(t)
	pool, err := mq.NewPool(env.backend, mq.PoolConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	env.backend.(*embedded.Backend).Faults().FailNth(mq.VerbGet, 1, mq.ReasonConnectionBroken) // the get that takes the first put's message
	cfg := Config{Target: env.target, Queue: env.queue, Count: 100, Rate: highRate, MessageSize: 256, LossTimeout: 2 * time.Second}
	st, err := Run(context.Background(), pool, cfg, nil)
	if !mq.IsReason(err, mq.ReasonConnectionBroken) || !strings.Contains(err.Error(), "getter 0: get from") {
		t.Fatalf("run: %v, want the getter's 2009", err)
	}
	if st.Sent != 1 || st.Received+st.InFlight != 1 || st.Lost != 0 {
		t.Errorf("got %+v; want 1 sent, received or in flight, none lost", st)
	}
}
