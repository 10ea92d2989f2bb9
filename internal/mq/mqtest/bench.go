package mqtest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Benchmark shape: 2 KiB non-persistent messages, committed every 100.
const (
	benchPayloadSize = 2048
	benchTxSize      = 100
)

// RunBackendBenchmarks runs the bare put and get loops against h's backend
// and reports msgs/s.
func RunBackendBenchmarks(b *testing.B, h Harness) {
	b.Run("PutLoop", func(b *testing.B) { benchPutLoop(b, h) })
	b.Run("GetLoop", func(b *testing.B) { benchGetLoop(b, h) })
}

// benchQueue is an open queue pair for one benchmark.
type benchQueue struct {
	b       *testing.B
	ctx     context.Context
	conn    mq.Conn
	out, in mq.Queue
	batch   int // messages per fill/drain, a multiple of benchTxSize below MAXDEPTH
}

func newBenchQueue(b *testing.B, h Harness) *benchQueue {
	b.Helper()
	env := h.New(b)
	env.setDefaults()
	ctx := context.Background()
	conn, err := env.Backend.Connect(ctx, env.Target)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	b.Cleanup(func() { conn.Close() })
	out, err := conn.OpenQueue(ctx, env.Queue, mq.OpenOutput)
	if err != nil {
		b.Fatalf("open: %v", err)
	}
	in, err := conn.OpenQueue(ctx, env.Queue, mq.OpenInputShared)
	if err != nil {
		b.Fatalf("open: %v", err)
	}
	batch := max(env.MaxDepth*4/5/benchTxSize*benchTxSize, benchTxSize)
	return &benchQueue{b: b, ctx: ctx, conn: conn, out: out, in: in, batch: batch}
}

func (q *benchQueue) commit() {
	if err := q.conn.Commit(q.ctx); err != nil {
		q.b.Fatalf("commit: %v", err)
	}
}

// fill puts n messages, committing every benchTxSize.
func (q *benchQueue) fill(msg *mq.Message, n int) {
	for i := 1; i <= n; i++ {
		if _, err := q.out.Put(q.ctx, msg, mq.PutOptions{Syncpoint: true}); err != nil {
			q.b.Fatalf("put: %v", err)
		}
		if i%benchTxSize == 0 {
			q.commit()
		}
	}
	q.commit()
}

// drain gets until the queue is empty.
func (q *benchQueue) drain(msg *mq.Message) {
	for {
		err := q.in.Get(q.ctx, msg, mq.GetOptions{})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return
		}
		if err != nil {
			q.b.Fatalf("drain: %v", err)
		}
	}
}

func reportRate(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "msgs/s")
	}
}

func benchPutLoop(b *testing.B, h Harness) {
	q := newBenchQueue(b, h)
	msg := &mq.Message{Payload: make([]byte, benchPayloadSize)}
	scratch := &mq.Message{}
	b.SetBytes(benchPayloadSize)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		if _, err := q.out.Put(q.ctx, msg, mq.PutOptions{Syncpoint: true}); err != nil {
			b.Fatalf("put %d: %v", i, err)
		}
		if i%benchTxSize == 0 {
			q.commit()
			if i%q.batch == 0 { // keep below MAXDEPTH, off the clock
				b.StopTimer()
				q.drain(scratch)
				b.StartTimer()
			}
		}
	}
	q.commit()
	b.StopTimer()
	reportRate(b)
}

func benchGetLoop(b *testing.B, h Harness) {
	q := newBenchQueue(b, h)
	fill := &mq.Message{Payload: make([]byte, benchPayloadSize)}
	msg := &mq.Message{Payload: make([]byte, 0, benchPayloadSize)}
	b.SetBytes(benchPayloadSize)
	b.ReportAllocs()
	b.ResetTimer()
	left := 0
	for i := 1; i <= b.N; i++ {
		if left == 0 { // refill off the clock
			b.StopTimer()
			q.commit()
			left = min(q.batch, b.N-i+1)
			q.fill(fill, left)
			b.StartTimer()
		}
		if err := q.in.Get(q.ctx, msg, mq.GetOptions{Syncpoint: true}); err != nil {
			b.Fatalf("get %d: %v", i, err)
		}
		left--
		if i%benchTxSize == 0 {
			q.commit()
		}
	}
	q.commit()
	b.StopTimer()
	reportRate(b)
}

// PutClock records when each put reaches a backend wrapped by
// TimedBackend, so pacing can be measured from outside what puts.
type PutClock struct {
	mu    sync.Mutex
	times []time.Time
}

// NewPutClock returns a clock with room for expected puts.
func NewPutClock(expected int) *PutClock {
	return &PutClock{times: make([]time.Time, 0, expected)}
}

func (c *PutClock) record(t time.Time) {
	c.mu.Lock()
	c.times = append(c.times, t)
	c.mu.Unlock()
}

// Sorted returns the recorded times in order (concurrent putters
// interleave).
func (c *PutClock) Sorted() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.times)
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// TimedBackend passes everything through to Backend and records the time
// of every put on Clock.
type TimedBackend struct {
	mq.Backend
	Clock *PutClock
}

// MessagesOutliveProcess is the wrapped backend's answer (mq.ProcessBound):
// without it a wrapped in-process queue manager would pass for a durable
// one, and PRODUCE would store checkpoints it does not store there.
func (b TimedBackend) MessagesOutliveProcess() bool { return mq.MessagesOutliveProcess(b.Backend) }

// Connect implements mq.Backend.
func (b TimedBackend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	c, err := b.Backend.Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	return timedConn{c, b.Clock}, nil
}

type timedConn struct {
	mq.Conn
	clock *PutClock
}

func (c timedConn) OpenQueue(ctx context.Context, name string, opts mq.OpenOption) (mq.Queue, error) {
	q, err := c.Conn.OpenQueue(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return timedQueue{q, c.clock}, nil
}

type timedQueue struct {
	mq.Queue
	clock *PutClock
}

func (q timedQueue) Put(ctx context.Context, msg *mq.Message, opts mq.PutOptions) (mq.PutResult, error) {
	q.clock.record(time.Now())
	return q.Queue.Put(ctx, msg, opts)
}

// Pacing returns, for put times in order, the achieved ÷ requested rate
// (puts after the first ÷ time from the first put to the last, over rate)
// and the 99th percentile gap between consecutive puts (nearest rank) over
// the nominal interval 1/rate. It needs at least two puts.
func Pacing(times []time.Time, rate int) (ratio, p99Gap float64) {
	span := times[len(times)-1].Sub(times[0]).Seconds()
	ratio = float64(len(times)-1) / span / float64(rate)
	gaps := make([]time.Duration, len(times)-1)
	for i := range gaps {
		gaps[i] = times[i+1].Sub(times[i])
	}
	slices.Sort(gaps)
	p99 := gaps[(len(gaps)*99+99)/100-1] // the ⌈0.99·n⌉-th smallest
	return ratio, p99.Seconds() * float64(rate)
}
