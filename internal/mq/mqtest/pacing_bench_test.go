package mqtest

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

func TestPacingFigures(t *testing.T) {
	// 101 puts at 100/s, 10ms apart but for slow gaps of 30ms: the p99 of
	// 100 gaps (nearest rank) is the 99th smallest.
	puts := func(slow ...int) []time.Time {
		times := make([]time.Time, 101)
		at := time.Unix(0, 0)
		for i := range times {
			times[i] = at
			at = at.Add(10 * time.Millisecond)
			if slices.Contains(slow, i) {
				at = at.Add(20 * time.Millisecond)
			}
		}
		return times
	}
	for _, tc := range []struct {
		slow       []int
		ratio, gap float64
	}{
		{nil, 1, 1},
		{[]int{50}, 1 / 1.02, 1},
		{[]int{10, 50}, 1 / 1.04, 3},
	} {
		ratio, gap := Pacing(puts(tc.slow...), 100)
		if math.Abs(ratio-tc.ratio) > 1e-9 || math.Abs(gap-tc.gap) > 1e-9 {
			t.Errorf("slow gaps after %v: ratio %v, p99 gap/interval %v; want %v, %v", tc.slow, ratio, gap, tc.ratio, tc.gap)
		}
	}
}

func TestTimedBackendRecordsPuts(t *testing.T) {
	clock := NewPutClock(4)
	backend := TimedBackend{embedded.NewDefault(), clock}
	ctx := context.Background()
	conn, err := backend.Connect(ctx, mq.Target{QueueManager: embedded.DefaultQueueManager})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	q, err := conn.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	for range 3 {
		if _, err := q.Put(ctx, &mq.Message{Payload: []byte("x")}, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	info, err := mq.InquireQueue(ctx, conn, "DEV.QUEUE.1")
	if err != nil {
		t.Fatal(err)
	}
	times := clock.Sorted()
	if len(times) != 3 || times[0].Before(before) || time.Since(times[2]) < 0 || info.CurrentDepth != 3 {
		t.Errorf("recorded %v (depth %d) for 3 puts after %v", times, info.CurrentDepth, before)
	}
}

// A wrapped in-process queue manager must not pass for a durable one: PRODUCE
// would then store checkpoints in the pacing benchmark that it does not
// store with the embedded queue manager itself.
func TestTimedBackendKeepsWhetherMessagesOutliveTheProcess(t *testing.T) {
	if mq.MessagesOutliveProcess(TimedBackend{embedded.NewDefault(), NewPutClock(0)}) {
		t.Error("a timed embedded backend claims its messages outlive the process")
	}
	if !mq.MessagesOutliveProcess(TimedBackend{Backend: unboundBackend{}}) {
		t.Error("a timed backend that cannot say claims its messages end with the process")
	}
}

// unboundBackend is a backend that does not say where its messages live.
type unboundBackend struct{ mq.Backend }
