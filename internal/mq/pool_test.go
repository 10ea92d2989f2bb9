package mq_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

var qm1 = mq.Target{QueueManager: "QM1"}

func newPool(t *testing.T, cfg mq.PoolConfig) (*mq.Pool, *mqtest.CountingBackend, *embedded.Backend) {
	t.Helper()
	eb := embedded.NewDefault()
	cb := &mqtest.CountingBackend{Backend: eb}
	return startPool(t, cb, cfg), cb, eb
}

// startPool returns a pool over b with a fast backoff, closed at cleanup.
func startPool(t *testing.T, b mq.Backend, cfg mq.PoolConfig) *mq.Pool {
	t.Helper()
	if cfg.Backoff.Initial == 0 {
		cfg.Backoff = mq.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxAttempts: 3}
	}
	p, err := mq.NewPool(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// closeCounter counts the closes of the connections it makes, each of which
// takes delay: to see what the pool closes and when.
type closeCounter struct {
	mq.Backend
	delay  time.Duration
	closes atomic.Int64
}

func (b *closeCounter) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	c, err := b.Backend.Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: c, b: b}, nil
}

type countedConn struct {
	mq.Conn
	b *closeCounter
}

func (c *countedConn) Close() error {
	time.Sleep(c.b.delay)
	c.b.closes.Add(1)
	return c.Conn.Close()
}

// newReapPool is a pool whose connections count their closes.
func newReapPool(t *testing.T, cfg mq.PoolConfig, closeDelay time.Duration) (*mq.Pool, *mqtest.CountingBackend, *closeCounter) {
	t.Helper()
	cc := &closeCounter{Backend: embedded.NewDefault(), delay: closeDelay}
	cb := &mqtest.CountingBackend{Backend: cc}
	return startPool(t, cb, cfg), cb, cc
}

func acquire(t *testing.T, p *mq.Pool, target mq.Target) *mq.PooledConn {
	t.Helper()
	pc, err := p.Acquire(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

func depth(t *testing.T, b mq.Backend, queue string) int {
	t.Helper()
	ctx := context.Background()
	c, err := b.Connect(ctx, qm1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := mq.InquireQueue(ctx, c, queue)
	if err != nil {
		t.Fatal(err)
	}
	return info.CurrentDepth
}

func TestPoolReusesPerTarget(t *testing.T) {
	p, cb, _ := newPool(t, mq.PoolConfig{})
	ctx := context.Background()
	for range 5 {
		pc, err := p.Acquire(ctx, qm1)
		if err != nil {
			t.Fatal(err)
		}
		pc.Close()
		pc.Close() // idempotent
	}
	if cb.Connects.Load() != 1 {
		t.Fatalf("%d connects for 5 sequential acquires", cb.Connects.Load())
	}
	// A different user is a different target; whitespace is not.
	other := mq.Target{QueueManager: "QM1", User: "other"}
	pc, err := p.Acquire(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	pc.Close()
	pc, err = p.Acquire(ctx, mq.Target{QueueManager: " QM1 "})
	if err != nil {
		t.Fatal(err)
	}
	pc.Close()
	if cb.Connects.Load() != 2 {
		t.Fatalf("%d connects, want 2", cb.Connects.Load())
	}
	if st := p.Stats(qm1); st != (mq.PoolStats{Idle: 1}) {
		t.Fatalf("stats %+v", st)
	}
}

func TestPoolCapsConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _, _ := newPool(t, mq.PoolConfig{MaxConnsPerTarget: 2, MaxIdlePerTarget: 1})
		ctx := context.Background()
		a := acquire(t, p, qm1)
		b := acquire(t, p, qm1)
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if _, err := p.Acquire(short, qm1); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("third acquire: %v, want deadline exceeded", err)
		}
		got := make(chan error, 1)
		go func() {
			c, err := p.Acquire(ctx, qm1)
			if err == nil {
				c.Close()
			}
			got <- err
		}()
		synctest.Wait()
		select {
		case err := <-got:
			t.Fatalf("third acquire did not wait: %v", err)
		default:
		}
		a.Close()
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		b.Close()
		if st := p.Stats(qm1); st.InUse != 0 || st.Idle != 1 {
			t.Fatalf("stats %+v, want 1 idle (MaxIdlePerTarget)", st)
		}
	})
}

func TestPooledConnCleansUpOnRelease(t *testing.T) {
	p, _, eb := newPool(t, mq.PoolConfig{})
	ctx := context.Background()
	pc, err := p.Acquire(ctx, qm1)
	if err != nil {
		t.Fatal(err)
	}
	q, err := pc.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Put(ctx, &mq.Message{}, mq.PutOptions{Syncpoint: true}); err != nil {
		t.Fatal(err)
	}
	pc.Close() // uncommitted: must be backed out, not left for the next borrower

	if d := depth(t, eb, "DEV.QUEUE.1"); d != 0 {
		t.Fatalf("depth %d after release of an uncommitted put", d)
	}
	pc2, err := p.Acquire(ctx, qm1)
	if err != nil {
		t.Fatal(err)
	}
	defer pc2.Close()
	info, err := mq.InquireQueue(ctx, pc2, "DEV.QUEUE.1")
	if err != nil {
		t.Fatal(err)
	}
	if info.OpenOutputCount != 0 {
		t.Fatalf("released connection left %d output handles open", info.OpenOutputCount)
	}
	if _, err := q.Put(ctx, &mq.Message{}, mq.PutOptions{}); err == nil {
		t.Fatal("a queue of a released connection still works")
	}
	if _, err := pc.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput); mq.ReasonOf(err) != mq.ReasonHconnError {
		t.Fatalf("released connection: %v", err)
	}
}

func TestPoolDiscardsOnlyBrokenConnections(t *testing.T) {
	p, cb, eb := newPool(t, mq.PoolConfig{})
	ctx := context.Background()
	pc := acquire(t, p, qm1)
	if _, err := pc.OpenQueue(ctx, "NO.SUCH.QUEUE", mq.OpenOutput); err == nil || pc.Broken() {
		t.Fatalf("unknown queue: %v, broken %v; want an error that keeps the connection", err, pc.Broken())
	}
	other := acquire(t, p, qm1)
	pc.Close()
	other.Close()
	if st := p.Stats(qm1); st != (mq.PoolStats{Idle: 2}) {
		t.Fatalf("stats %+v, want both connections kept", st)
	}

	eb.Faults().BreakConnections()
	pc = acquire(t, p, qm1)
	_, err := pc.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
	if mq.ReasonOf(err) != mq.ReasonConnectionBroken || !pc.Broken() {
		t.Fatalf("after break: %v, broken %v", err, pc.Broken())
	}
	pc.Close()
	if st := p.Stats(qm1); st != (mq.PoolStats{}) {
		t.Fatalf("stats %+v, want the broken connection discarded with the idle one", st)
	}
	pc = acquire(t, p, qm1)
	defer pc.Close()
	if _, err := pc.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput); err != nil {
		t.Fatalf("reconnected: %v", err)
	}
	if n := cb.Connects.Load(); n != 3 {
		t.Fatalf("%d connects, want 3", n)
	}
}

func TestPoolConnectGivesUpOnPermanentAndContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, cb, eb := newPool(t, mq.PoolConfig{})
		eb.Faults().RefuseConnect(mq.ReasonNotAuthorized)
		_, err := p.Acquire(context.Background(), qm1)
		if mq.ReasonOf(err) != mq.ReasonNotAuthorized || cb.Connects.Load() != 1 {
			t.Fatalf("permanent refusal: %v after %d connects; want no retry", err, cb.Connects.Load())
		}

		slow, _, slowBackend := newPool(t, mq.PoolConfig{Backoff: mq.Backoff{Initial: time.Hour, Max: time.Hour, MaxAttempts: -1}})
		slowBackend.Faults().RefuseConnect(mq.ReasonHostNotAvailable)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err = slow.Acquire(ctx, qm1)
		if !errors.Is(err, context.DeadlineExceeded) || mq.ReasonOf(err) != mq.ReasonHostNotAvailable {
			t.Fatalf("got %v; want the deadline and the last reason", err)
		}
		if st := slow.Stats(qm1); st.InUse != 0 {
			t.Fatalf("failed acquire kept a slot: %+v", st)
		}
		// Reaper passes (every IdleTimeout/2) forget them.
		if !testenv.UntilEvery(10*time.Minute, time.Second, func() bool { return p.Targets()+slow.Targets() == 0 }) {
			t.Fatalf("failed acquires left %d targets behind", p.Targets()+slow.Targets())
		}
	})
}

// TestPoolGivesUpOnQueueManagerNotAvailable: 2059 is retried within the
// Acquire, as a queue manager restarting behind its listener gives it; one
// that outlasts the retries fails permanently, naming the likely causes,
// since a wrong queue manager name gives 2059 as well and redelivering the
// command would not change it. 2538 (nothing listening) stays transient.
func TestPoolGivesUpOnQueueManagerNotAvailable(t *testing.T) {
	target := mq.Target{QueueManager: "QM1", Channel: "DEV.APP.SVRCONN", ConnName: "mq1(1414)"}
	p, cb, eb := newPool(t, mq.PoolConfig{})
	eb.Faults().RefuseConnect(mq.ReasonQMgrNotAvailable)
	_, err := p.Acquire(context.Background(), target)
	e, ok := mq.AsError(err)
	if !ok || e.Reason != mq.ReasonQMgrNotAvailable || cb.Connects.Load() != 3 {
		t.Fatalf("got %v after %d connects; want 2059 after 3", err, cb.Connects.Load())
	}
	if e.Transient() || mq.IsTransient(err) || !mq.IsConnectionBroken(err) {
		t.Errorf("2059 after the retries: transient %v, broken %v; want permanent, broken", e.Transient(), mq.IsConnectionBroken(err))
	}
	for _, cause := range []string{`queue manager "QM1"`, "channel DEV.APP.SVRCONN at mq1(1414)", "3 attempts",
		"is the name (case included)", "listener", "MQRC_Q_MGR_NOT_AVAILABLE (2059)"} {
		if !strings.Contains(err.Error(), cause) {
			t.Errorf("error %q does not say %q", err, cause)
		}
	}

	eb.Faults().RefuseConnect(mq.ReasonHostNotAvailable)
	_, err = p.Acquire(context.Background(), target)
	if !mq.IsReason(err, mq.ReasonHostNotAvailable) || !mq.IsTransient(err) {
		t.Errorf("nothing listening: %v, want transient 2538", err)
	}

	// A queue manager that comes back within the retries is reached.
	var retries int
	back := startPool(t, eb, mq.PoolConfig{OnRetry: func(mq.Target, int, time.Duration, error) {
		if retries++; retries == 2 {
			eb.Faults().RefuseConnect(0)
		}
	}})
	eb.Faults().RefuseConnect(mq.ReasonQMgrNotAvailable)
	pc, err := back.Acquire(context.Background(), target)
	if err != nil {
		t.Fatalf("queue manager back on the third attempt: %v", err)
	}
	pc.Close()
}

func TestPoolIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The reaper passes at 5s, 10s, 15s...; the acquires fall between.
		p, cb, _ := newPool(t, mq.PoolConfig{IdleTimeout: 10 * time.Second})
		acquire(t, p, qm1).Close()
		time.Sleep(9 * time.Second)
		acquire(t, p, qm1).Close()
		if n := cb.Connects.Load(); n != 1 {
			t.Fatalf("%d connects, want the idle connection reused", n)
		}
		// Idle 10.5s, not yet reaped: Acquire must not reuse it either.
		time.Sleep(10*time.Second + 500*time.Millisecond)
		acquire(t, p, qm1).Close()
		if n := cb.Connects.Load(); n != 2 {
			t.Fatalf("stale idle connection reused (%d connects)", n)
		}
	})
}

func TestPoolReaperClosesIdleAndForgetsTargets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _, cc := newReapPool(t, mq.PoolConfig{IdleTimeout: 10 * time.Second}, 0)
		other := mq.Target{QueueManager: "QM1", User: "other"}
		start := time.Now()
		acquire(t, p, qm1).Close()
		acquire(t, p, other).Close()

		// Nothing changes at the passes at 5s and 10s (nothing has idled
		// past 10s yet); the pass at 15s closes both, with no Acquire, and
		// forgets both targets.
		testenv.UntilEvery(time.Minute, 100*time.Millisecond, func() bool {
			return cc.closes.Load() != 0 || p.Targets() != 2 || p.Stats(qm1).Idle != 1
		})
		synctest.Wait() // the pass that changed something ends
		if n, at := cc.closes.Load(), time.Since(start); n != 2 || at < 15*time.Second || at > 15*time.Second+100*time.Millisecond {
			t.Fatalf("first change at %s: %d idle connections closed; want both, by the pass at 15s", at, n)
		}
		if n := p.Targets(); n != 0 || p.Stats(qm1) != (mq.PoolStats{}) {
			t.Fatalf("%d targets kept, stats %+v; want none", n, p.Stats(qm1))
		}
	})
}

func TestPoolReaperKeepsTargetsInUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, cb, cc := newReapPool(t, mq.PoolConfig{MaxConnsPerTarget: 1, IdleTimeout: 2 * time.Second, MaxWait: time.Hour}, 0)
		held := acquire(t, p, qm1)
		waited := make(chan error, 1)
		go func() {
			pc, err := p.Acquire(context.Background(), qm1)
			if err == nil {
				pc.Close()
			}
			waited <- err
		}()
		// A target whose only user is connecting, through a long backoff.
		slow := mq.Target{QueueManager: "QM1", User: "slow"}
		slowEB := embedded.NewDefault()
		ccSlow := &closeCounter{Backend: slowEB}
		slowPool := startPool(t, ccSlow, mq.PoolConfig{IdleTimeout: 2 * time.Second,
			Backoff: mq.Backoff{Initial: 10 * time.Minute, Max: 10 * time.Minute, MaxAttempts: 2}})
		slowEB.Faults().RefuseConnect(mq.ReasonQMgrNotAvailable)
		connected := make(chan error, 1)
		go func() {
			pc, err := slowPool.Acquire(context.Background(), slow)
			if err == nil {
				pc.Close()
			}
			connected <- err
		}()

		time.Sleep(50 * time.Second) // dozens of reaper passes
		if n := p.Targets(); n != 1 || p.Stats(qm1).InUse != 1 {
			t.Fatalf("%d targets, stats %+v; want the borrowed target kept", n, p.Stats(qm1))
		}
		if n := slowPool.Targets(); n != 1 {
			t.Fatalf("target being connected to evicted (%d targets)", n)
		}
		// Had the target been evicted, a new one would hand out a second
		// connection.
		short, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := p.Acquire(short, qm1); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("acquire beyond MaxConnsPerTarget: %v, want deadline exceeded", err)
		}

		held.Close()
		if err := <-waited; err != nil {
			t.Fatal(err)
		}
		if n := cb.Connects.Load(); n != 1 || cc.closes.Load() != 0 {
			t.Fatalf("%d connects, %d closes; want the one connection handed to the waiter", n, cc.closes.Load())
		}
		slowEB.Faults().RefuseConnect(0)
		if err := <-connected; err != nil {
			t.Fatal(err)
		}
		// Users counted on every path (borrow, wait, give up, connect) are
		// all gone: both targets go once their idle connection does.
		testenv.UntilEvery(4*time.Second, 100*time.Millisecond, func() bool {
			return p.Targets()+slowPool.Targets() == 0 && cc.closes.Load() == 1 && ccSlow.closes.Load() == 1
		})
		synctest.Wait()
		if n := p.Targets() + slowPool.Targets(); n != 0 || cc.closes.Load() != 1 || ccSlow.closes.Load() != 1 {
			t.Fatalf("%d targets, %d+%d closes; want none left and both connections closed",
				n, cc.closes.Load(), ccSlow.closes.Load())
		}
	})
}

func TestPoolCloseStopsReaper(t *testing.T) {
	// Besides the checks below, synctest.Test fails if the reaper is still
	// in the bubble when the test returns.
	synctest.Test(t, func(t *testing.T) {
		const closeDelay = time.Second
		p, _, cc := newReapPool(t, mq.PoolConfig{IdleTimeout: 10 * time.Second}, closeDelay)
		start := time.Now()
		acquire(t, p, qm1).Close()
		borrowed := acquire(t, p, mq.Target{QueueManager: "QM1", User: "other"})

		// The pass at 15s is closing the idle connection until 16s.
		time.Sleep(15*time.Second + closeDelay/2)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if waited, n := time.Since(start), cc.closes.Load(); waited != 15*time.Second+closeDelay || n != 1 {
			t.Fatalf("Close returned at %s with %d closes; want it to wait for the reaper's close at 16s", waited, n)
		}
		if err := p.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if _, err := p.Acquire(context.Background(), qm1); !errors.Is(err, mq.ErrPoolClosed) {
			t.Fatalf("got %v, want ErrPoolClosed", err)
		}
		time.Sleep(time.Minute)
		if n := cc.closes.Load(); n != 1 {
			t.Fatalf("%d closes after Close with nothing released", n)
		}
		borrowed.Close()
		if n := cc.closes.Load(); n != 2 {
			t.Fatalf("connection released after Close not closed (%d closes)", n)
		}
	})
}

func TestPoolClosed(t *testing.T) {
	p, _, _ := newPool(t, mq.PoolConfig{})
	pc, err := p.Acquire(context.Background(), qm1)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	pc.Close()
	if st := p.Stats(qm1); st.Idle != 0 {
		t.Fatalf("closed pool kept %d idle", st.Idle)
	}
	if _, err := p.Acquire(context.Background(), qm1); !errors.Is(err, mq.ErrPoolClosed) {
		t.Fatalf("got %v, want ErrPoolClosed", err)
	}
}

func TestPoolRejectsInvalidConfigAndTargets(t *testing.T) {
	if _, err := mq.NewPool(embedded.NewDefault(), mq.PoolConfig{Backoff: mq.Backoff{Jitter: 2}}); err == nil {
		t.Error("jitter 2 accepted")
	}
	p, _, _ := newPool(t, mq.PoolConfig{})
	if _, err := p.Acquire(context.Background(), mq.Target{QueueManager: "bad name"}); err == nil {
		t.Error("invalid target accepted")
	}
}

func TestBackoffDelay(t *testing.T) {
	b := mq.Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Multiplier: 2, Jitter: 0.5}
	for attempt, hi := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 10: time.Second} {
		for range 50 {
			d := b.Delay(attempt)
			if d < hi/2 || d > hi {
				t.Fatalf("attempt %d: delay %s outside [%s, %s]", attempt, d, hi/2, hi)
			}
		}
	}
}

// TestPoolWaitIsBounded: with every connection to a target in use, Acquire
// gives up after MaxWait with ErrPoolBusy naming the target and the limit;
// Waiting counts it meanwhile, and a slot freed in time is taken.
func TestPoolWaitIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := startPool(t, embedded.NewDefault(), mq.PoolConfig{MaxConnsPerTarget: 1, MaxWait: 3 * time.Second})
		held := acquire(t, p, qm1)
		start := time.Now()
		go func() {
			synctest.Wait()
			if n := p.Waiting(); n != 1 {
				t.Errorf("Waiting() = %d while one Acquire waits", n)
			}
		}()
		_, err := p.Acquire(context.Background(), qm1)
		if !errors.Is(err, mq.ErrPoolBusy) || !strings.Contains(err.Error(), "QM1") || !strings.Contains(err.Error(), "all 1 connections") {
			t.Fatalf("Acquire with the pool full: %v; want ErrPoolBusy naming QM1 and the limit", err)
		}
		if waited := time.Since(start); waited != 3*time.Second {
			t.Errorf("gave up after %s, want MaxWait (3s)", waited)
		}
		if n := p.Waiting(); n != 0 {
			t.Errorf("Waiting() = %d after the wait ended", n)
		}
		go func() {
			synctest.Wait() // the Acquire below waits
			held.Close()
		}()
		pc, err := p.Acquire(context.Background(), qm1)
		if err != nil {
			t.Fatalf("Acquire with a slot freed within MaxWait: %v", err)
		}
		pc.Close()
	})
}
