package probe

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// putFaults are the fault hooks the cases need (mqtest.Faults has them).
type putFaults interface {
	DropNth(n int)
	DuplicateNth(n int)
}

// testEnv is one case's backend: empty queues, no faults armed.
type testEnv struct {
	backend           mq.Backend
	target            mq.Target
	faults            putFaults
	queue, replyQueue string // two distinct empty local queues
}

// caseTimeout bounds one case, so a hung run fails it instead of the
// whole test binary.
const caseTimeout = 20 * time.Second

// runBackendCases runs every case against the backend newEnv provides.
// Cases run one after another, so a shared queue manager sees one at a time.
func runBackendCases(t *testing.T, newEnv func(t *testing.T) testEnv) {
	cases := []struct {
		name string
		run  func(*probeFixture)
	}{
		{"CleanByCount", testCleanByCount},
		{"CleanConcurrent", testCleanConcurrent},
		{"ByDuration", testByDuration},
		{"ReplyQueue", testReplyQueue},
		{"IgnoresOtherTraffic", testIgnoresOtherTraffic},
		{"InjectedLoss", testInjectedLoss},
		{"InjectedDuplication", testInjectedDuplication},
		{"StopMidRun", testStopMidRun},
		{"StopBeforeTheFirstPut", testStopBeforeTheFirstPut},
		{"CancelReturnsError", testCancelReturnsError},
		{"RateHonoured", testRateHonoured},
		{"HighRate", testHighRate},
		{"HighRateConcurrent", testHighRateConcurrent},
		{"StopMidRunAtAHighRate", testStopMidRunAtAHighRate},
		{"Progress", testProgress},
		{"UnknownQueue", testUnknownQueue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(newProbeFixture(t, newEnv(t))) })
	}
}

// probeFixture is one case: its env, a pool over a tapped backend, and a
// context bounded by caseTimeout.
type probeFixture struct {
	t    *testing.T
	env  testEnv
	tap  *tapBackend
	pool *mq.Pool
	ctx  context.Context
}

func newProbeFixture(t *testing.T, env testEnv) *probeFixture {
	tap := &tapBackend{Backend: env.backend, queue: env.queue}
	pool, err := mq.NewPool(tap, mq.PoolConfig{MaxConnsPerTarget: 16})
	if err != nil {
		t.Fatalf("new pool: %v", err)
	}
	t.Cleanup(func() { pool.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	t.Cleanup(cancel)
	return &probeFixture{t: t, env: env, tap: tap, pool: pool, ctx: ctx}
}

// config is a small run against the env's queue.
func (f *probeFixture) config() Config {
	return Config{Target: f.env.target, Queue: f.env.queue, MessageSize: 256, LossTimeout: 2 * time.Second}
}

func (f *probeFixture) run(ctx context.Context, cfg Config, progress func(Progress)) Stats {
	f.t.Helper()
	st, err := Run(ctx, f.pool, cfg, progress)
	if err != nil {
		f.t.Fatalf("run: %v (stats %+v)", err, st)
	}
	return st
}

// wantClean asserts every message came back exactly once, in order when
// order is asked for.
func (f *probeFixture) wantClean(st Stats, sent int64, ordered bool) {
	f.t.Helper()
	if st.Sent != sent || st.Received != sent || st.Lost != 0 || st.Duplicated != 0 || st.InFlight != 0 {
		f.t.Errorf("got %+v; want sent = received = %d, nothing lost, duplicated or in flight", st, sent)
	}
	if ordered && st.OutOfOrder != 0 {
		f.t.Errorf("outOfOrder = %d, want 0", st.OutOfOrder)
	}
	l := st.LatencyMs
	if l.P50 <= 0 || l.P50 > l.P90 || l.P90 > l.P99 || l.P99 > l.P999 || l.P999 > l.Max {
		f.t.Errorf("latency percentiles %+v not positive and ordered", l)
	}
	var counted int64
	for _, b := range st.LatencyHistogram {
		counted += b.Count
	}
	if counted != st.Received {
		f.t.Errorf("latency histogram %v counts %d round trips, want %d", st.LatencyHistogram, counted, st.Received)
	}
	if want := float64(st.Received) / st.Elapsed.Seconds(); st.ThroughputPerSec < want*0.99 || st.ThroughputPerSec > want*1.01 {
		f.t.Errorf("throughput %.1f, want received/elapsed = %.1f", st.ThroughputPerSec, want)
	}
}

// wantDepth asserts how many messages are left on a queue.
func (f *probeFixture) wantDepth(queue string, want int) {
	f.t.Helper()
	c, err := f.env.backend.Connect(f.ctx, f.env.target)
	if err != nil {
		f.t.Fatalf("connect: %v", err)
	}
	defer c.Close()
	info, err := mq.InquireQueue(f.ctx, c, queue)
	if err != nil {
		f.t.Fatalf("inquire %s: %v", queue, err)
	}
	if info.CurrentDepth != want {
		f.t.Errorf("depth of %s = %d, want %d", queue, info.CurrentDepth, want)
	}
}

func testCleanByCount(f *probeFixture) {
	cfg := f.config()
	cfg.Count = 300
	st := f.run(f.ctx, cfg, nil)
	f.wantClean(st, 300, true)
	if st.Stopped {
		f.t.Error("stopped = true for a run that was not stopped")
	}
	f.wantDepth(f.env.queue, 0)
}

// highRate is a rate whose putters spin (an interval under a millisecond):
// on a queue manager in this process the putters then get too.
const highRate = 5_000

// wantPutterGets asserts who got the messages: on a queue manager in this
// process at highRate the putters, each right after its put (the getters
// only take what is left when the puts end); elsewhere the getters.
func (f *probeFixture) wantPutterGets(st Stats) {
	f.t.Helper()
	byPutters := f.tap.noWaitGets.Load()
	if mq.MessagesOutliveProcess(f.env.backend) {
		if byPutters != 0 {
			f.t.Errorf("%d messages got without waiting on a queue manager elsewhere, want 0: getters wait there", byPutters)
		}
		return
	}
	if byPutters < st.Received*9/10 {
		f.t.Errorf("putters got %d of %d messages on a queue manager in this process, want nearly all", byPutters, st.Received)
	}
}

func testHighRate(f *probeFixture) {
	cfg := f.config()
	cfg.Count, cfg.Rate = 1000, highRate
	st := f.run(f.ctx, cfg, nil)
	f.wantClean(st, 1000, true)
	f.wantPutterGets(st)
	f.wantDepth(f.env.queue, 0)
}

func testHighRateConcurrent(f *probeFixture) {
	cfg := f.config()
	cfg.Count, cfg.Rate, cfg.Putters, cfg.Getters = 1000, highRate, 2, 2
	st := f.run(f.ctx, cfg, nil)
	f.wantClean(st, 1000, false)
	f.wantPutterGets(st)
	f.wantDepth(f.env.queue, 0)
}

// A stop ends the puts; the getters, started then, drain what is in flight.
func testStopMidRunAtAHighRate(f *probeFixture) {
	cfg := f.config()
	cfg.Duration, cfg.Rate = 20*time.Second, highRate
	ctx, stop := context.WithCancelCause(f.ctx)
	f.tap.armBefore(map[int64]func(){500: func() { stop(ErrStopped) }})
	st := f.run(ctx, cfg, nil)
	if !st.Stopped || st.Sent < 499 || st.Lost != 0 || st.InFlight != 0 || st.Received != st.Sent {
		f.t.Errorf("got %+v; want stopped after about 500 with every message back", st)
	}
	f.wantDepth(f.env.queue, 0)
}

func testCleanConcurrent(f *probeFixture) {
	cfg := f.config()
	cfg.Count, cfg.Putters, cfg.Getters = 400, 3, 2
	f.wantClean(f.run(f.ctx, cfg, nil), 400, false)
}

func testByDuration(f *probeFixture) {
	cfg := f.config()
	cfg.Duration, cfg.Rate = 600*time.Millisecond, 250
	st := f.run(f.ctx, cfg, nil)
	// 150 are due in 600 ms. Stalls cost their length (the schedule moves
	// on rather than bursting), and a loaded 2-core machine running tests
	// under the race detector stalls a lot: only a loose lower bound.
	if st.Sent < 50 || st.Sent > 150 {
		f.t.Errorf("sent %d in 600 ms at 250/s, want 50 to 150", st.Sent)
	}
	f.wantClean(st, st.Sent, true)
	if st.Elapsed < 500*time.Millisecond || st.Elapsed > 600*time.Millisecond+cfg.LossTimeout {
		f.t.Errorf("elapsed %s, want about 600ms", st.Elapsed)
	}
}

func testReplyQueue(f *probeFixture) {
	moved := f.startRelay(f.env.queue, f.env.replyQueue)
	cfg := f.config()
	cfg.Count, cfg.Rate, cfg.ReplyQueue = 150, 500, f.env.replyQueue
	f.wantClean(f.run(f.ctx, cfg, nil), 150, true)
	if n := moved.Load(); n != 150 {
		f.t.Errorf("relay moved %d messages, want 150", n)
	}
}

// startRelay moves every message from one queue to another, as a
// responder application would, until the case ends.
func (f *probeFixture) startRelay(from, to string) *atomic.Int64 {
	ctx, cancel := context.WithCancel(f.ctx)
	c, err := f.env.backend.Connect(ctx, f.env.target)
	if err != nil {
		f.t.Fatalf("relay: connect: %v", err)
	}
	in, err := c.OpenQueue(ctx, from, mq.OpenInputShared)
	if err != nil {
		f.t.Fatalf("relay: open %s: %v", from, err)
	}
	out, err := c.OpenQueue(ctx, to, mq.OpenOutput)
	if err != nil {
		f.t.Fatalf("relay: open %s: %v", to, err)
	}
	var moved atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		var msg mq.Message
		for ctx.Err() == nil {
			err := in.Get(ctx, &msg, mq.GetOptions{Wait: 50 * time.Millisecond})
			if mq.IsReason(err, mq.ReasonNoMsgAvailable) || ctx.Err() != nil {
				continue
			}
			if err == nil {
				moved.Add(1) // before the put: the probe may see it at once
				_, err = out.Put(ctx, &msg, mq.PutOptions{})
			}
			if err != nil {
				f.t.Errorf("relay: %v", err)
				return
			}
		}
	})
	f.t.Cleanup(func() {
		cancel()
		wg.Wait()
		c.Close()
	})
	return &moved
}

func testIgnoresOtherTraffic(f *probeFixture) {
	c, err := f.env.backend.Connect(f.ctx, f.env.target)
	if err != nil {
		f.t.Fatalf("connect: %v", err)
	}
	defer c.Close()
	q, err := c.OpenQueue(f.ctx, f.env.queue, mq.OpenOutput)
	if err != nil {
		f.t.Fatalf("open: %v", err)
	}
	for range 5 {
		if _, err := q.Put(f.ctx, &mq.Message{Payload: []byte("someone else's")}, mq.PutOptions{}); err != nil {
			f.t.Fatalf("put: %v", err)
		}
	}
	cfg := f.config()
	cfg.Count = 50
	f.wantClean(f.run(f.ctx, cfg, nil), 50, true)
	f.wantDepth(f.env.queue, 5)
}

func testInjectedLoss(f *probeFixture) {
	f.tap.armBefore(map[int64]func(){
		5:  func() { f.env.faults.DropNth(1) },
		17: func() { f.env.faults.DropNth(1) },
		40: func() { f.env.faults.DropNth(1) },
	})
	cfg := f.config()
	cfg.Count, cfg.LossTimeout = 50, time.Second // the drain waits this out for the dropped ones
	st := f.run(f.ctx, cfg, nil)
	if st.Sent != 50 || st.Received != 47 || st.Lost != 3 || st.Duplicated != 0 || st.OutOfOrder != 0 || st.InFlight != 0 {
		f.t.Errorf("got %+v; want sent 50, received 47, lost 3, nothing else", st)
	}
}

func testInjectedDuplication(f *probeFixture) {
	f.tap.armBefore(map[int64]func(){
		10: func() { f.env.faults.DuplicateNth(1) },
		30: func() { f.env.faults.DuplicateNth(1) },
	})
	cfg := f.config()
	cfg.Count = 50
	st := f.run(f.ctx, cfg, nil)
	if st.Sent != 50 || st.Received != 50 || st.Duplicated != 2 || st.Lost != 0 || st.OutOfOrder != 0 || st.InFlight != 0 {
		f.t.Errorf("got %+v; want sent = received = 50, duplicated 2, nothing else", st)
	}
}

// testStopBeforeTheFirstPut: a stop that arrives while the run is still
// connecting ends it as stopped, with nothing sent, not as a failure.
func testStopBeforeTheFirstPut(f *probeFixture) {
	ctx, stop := context.WithCancelCause(f.ctx)
	stop(ErrStopped)
	cfg := f.config()
	cfg.Count = 50
	st := f.run(ctx, cfg, nil)
	if !st.Stopped || st.Sent != 0 || st.Received != 0 {
		f.t.Errorf("got %+v; want stopped with nothing sent", st)
	}
}

func testStopMidRun(f *probeFixture) {
	ctx, stop := context.WithCancelCause(f.ctx)
	defer stop(nil)
	time.AfterFunc(300*time.Millisecond, func() { stop(ErrStopped) })
	cfg := f.config()
	cfg.Duration, cfg.Rate = 20*time.Second, 200
	start := time.Now()
	st := f.run(ctx, cfg, nil)
	if !st.Stopped {
		f.t.Error("stopped = false after ErrStopped")
	}
	if st.Sent < 20 || st.Sent > 200 {
		f.t.Errorf("sent %d in about 300 ms at 200/s", st.Sent)
	}
	f.wantClean(st, st.Sent, true)
	if took := time.Since(start); took > 300*time.Millisecond+cfg.LossTimeout {
		f.t.Errorf("stopped run took %s, want the stop plus at most the drain", took)
	}
}

func testCancelReturnsError(f *probeFixture) {
	ctx, cancel := context.WithCancel(f.ctx)
	time.AfterFunc(200*time.Millisecond, cancel)
	cfg := f.config()
	cfg.Duration, cfg.Rate = 20*time.Second, 200
	st, err := Run(ctx, f.pool, cfg, nil)
	if !errors.Is(err, context.Canceled) {
		f.t.Fatalf("err = %v, want context.Canceled", err)
	}
	if st.Stopped || st.Sent == 0 || st.Sent != st.Received+st.Lost+st.InFlight {
		f.t.Errorf("stats so far %+v: want not stopped, sent > 0, sent = received + lost + inFlight", st)
	}
}

func testRateHonoured(f *probeFixture) {
	cfg := f.config()
	cfg.Duration, cfg.Rate, cfg.Putters = time.Second, 400, 2
	st := f.run(f.ctx, cfg, nil)
	// The rate is the total over the putters: never above it, and below
	// by what stalls cost, which on a loaded machine can be much (see
	// ByDuration; BenchmarkProbePacing measures the ratio on a quiet one).
	if st.Sent < 200 || st.Sent > 400 {
		f.t.Errorf("sent %d in 1 s at 400/s over 2 putters, want 200 to 400", st.Sent)
	}
	f.wantClean(st, st.Sent, false)
	// Stalls touch few puts: most follow the 2.5 ms interval.
	if gap := f.tap.medianGap(); gap < 1250*time.Microsecond || gap > 3750*time.Microsecond {
		f.t.Errorf("median time between puts %s at 400/s, want about 2.5ms", gap)
	}
	// No bursts: 20 puts are due in any 50 ms; allow timer jitter.
	if n := f.tap.maxPutsWithin(50 * time.Millisecond); n > 33 {
		f.t.Errorf("%d puts within 50 ms at 400/s, want about 20", n)
	}
}

func testProgress(f *probeFixture) {
	var got []Stats
	var windows []Window
	cfg := f.config()
	cfg.Duration, cfg.Rate, cfg.ProgressEvery = 600*time.Millisecond, 300, 100*time.Millisecond
	f.run(f.ctx, cfg, func(p Progress) {
		got = append(got, p.Stats)
		windows = append(windows, p.Window)
	})
	if len(got) < 3 {
		f.t.Fatalf("%d progress reports in 600 ms every 100 ms, want at least 3", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Sent < got[i-1].Sent || got[i].Elapsed <= got[i-1].Elapsed {
			f.t.Errorf("report %d (%+v) went back from %+v", i, got[i], got[i-1])
		}
	}
	if got[len(got)-1].Sent <= got[0].Sent {
		f.t.Errorf("sent did not grow across progress reports: %d then %d", got[0].Sent, got[len(got)-1].Sent)
	}
	// Each window holds the round trips since the previous report: together
	// they are every one reported so far, and each has its own latency.
	var windowed int64
	for i, w := range windows {
		windowed += w.Received
		if windowed != got[i].Received {
			f.t.Errorf("report %d: windows so far hold %d round trips, the totals %d", i, windowed, got[i].Received)
		}
		if (w.Received > 0) != (w.LatencyMs.P50 > 0 && w.LatencyMs.P99 >= w.LatencyMs.P50) {
			f.t.Errorf("report %d: window of %d round trips has latency %+v", i, w.Received, w.LatencyMs)
		}
	}
	last := got[len(got)-1]
	var histogrammed int64
	for _, b := range last.LatencyHistogram {
		histogrammed += b.Count
	}
	if last.Received == 0 || histogrammed != last.Received {
		f.t.Errorf("last report: histogram counts %d round trips, received %d", histogrammed, last.Received)
	}
}

func testUnknownQueue(f *probeFixture) {
	cfg := f.config()
	cfg.Count, cfg.Queue = 10, "MQPROBE.NO.SUCH.QUEUE"
	_, err := Run(f.ctx, f.pool, cfg, nil)
	var e *mq.Error
	if !errors.As(err, &e) || e.Reason != mq.ReasonUnknownObjectName {
		f.t.Fatalf("err = %v, want *mq.Error with MQRC_UNKNOWN_OBJECT_NAME", err)
	}
}

// tapBackend watches the puts to one queue: it timestamps them and can
// arm a fault right before a given one, which makes the fault hit exactly
// that put (1-based).
type tapBackend struct {
	mq.Backend
	queue string

	mu     sync.Mutex
	puts   int64
	times  []time.Time
	before map[int64]func()
	// noWaitGets counts messages got by gets that do not wait: a putter's
	// after its put (run.putterGets).
	noWaitGets atomic.Int64
}

// MessagesOutliveProcess is the tapped backend's answer, which decides
// whether the putters get (run.putterGets).
func (b *tapBackend) MessagesOutliveProcess() bool { return mq.MessagesOutliveProcess(b.Backend) }

func (b *tapBackend) armBefore(hooks map[int64]func()) {
	b.mu.Lock()
	b.before = hooks
	b.mu.Unlock()
}

// maxPutsWithin is the most puts seen within any window of length d.
func (b *tapBackend) maxPutsWithin(d time.Duration) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	most, lo := 0, 0
	for hi, t := range b.times {
		for t.Sub(b.times[lo]) >= d {
			lo++
		}
		most = max(most, hi-lo+1)
	}
	return most
}

// medianGap is the median time between consecutive puts.
func (b *tapBackend) medianGap() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.times) < 2 {
		return 0
	}
	gaps := make([]time.Duration, len(b.times)-1)
	for i := range gaps {
		gaps[i] = b.times[i+1].Sub(b.times[i])
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

func (b *tapBackend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	c, err := b.Backend.Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	return &tapConn{Conn: c, b: b}, nil
}

type tapConn struct {
	mq.Conn
	b *tapBackend
}

func (c *tapConn) OpenQueue(ctx context.Context, name string, opts mq.OpenOption) (mq.Queue, error) {
	q, err := c.Conn.OpenQueue(ctx, name, opts)
	if err != nil || name != c.b.queue {
		return q, err
	}
	return &tapQueue{Queue: q, b: c.b}, nil
}

type tapQueue struct {
	mq.Queue
	b *tapBackend
}

func (q *tapQueue) Get(ctx context.Context, msg *mq.Message, opts mq.GetOptions) error {
	err := q.Queue.Get(ctx, msg, opts)
	if err == nil && opts.Wait == 0 && opts.Browse == mq.NoBrowse {
		q.b.noWaitGets.Add(1)
	}
	return err
}

func (q *tapQueue) Put(ctx context.Context, msg *mq.Message, opts mq.PutOptions) (mq.PutResult, error) {
	b := q.b
	b.mu.Lock()
	b.puts++
	if hook := b.before[b.puts]; hook != nil {
		hook() // under b.mu, so no other put slips in between
	}
	b.times = append(b.times, time.Now())
	res, err := q.Queue.Put(ctx, msg, opts)
	b.mu.Unlock()
	return res, err
}
