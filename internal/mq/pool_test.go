package mq_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

var qm1 = mq.Target{QueueManager: "QM1"}

func newPool(t *testing.T, cfg mq.PoolConfig) (*mq.Pool, *mqtest.CountingBackend, *embedded.Backend) {
	t.Helper()
	eb := embedded.NewDefault()
	cb := &mqtest.CountingBackend{Backend: eb}
	if cfg.Backoff.Initial == 0 {
		cfg.Backoff = mq.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxAttempts: 3}
	}
	p, err := mq.NewPool(cb, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, cb, eb
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
	p, _, _ := newPool(t, mq.PoolConfig{MaxConnsPerTarget: 2, MaxIdlePerTarget: 1})
	ctx := context.Background()
	a, err := p.Acquire(ctx, qm1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Acquire(ctx, qm1)
	if err != nil {
		t.Fatal(err)
	}
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
	a.Close()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	b.Close()
	if st := p.Stats(qm1); st.InUse != 0 || st.Idle != 1 {
		t.Fatalf("stats %+v, want 1 idle (MaxIdlePerTarget)", st)
	}
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

func TestPoolDoRetriesOnlyBrokenConnections(t *testing.T) {
	p, _, eb := newPool(t, mq.PoolConfig{})
	ctx := context.Background()
	calls := 0
	err := p.Do(ctx, qm1, func(context.Context, mq.Conn) error {
		calls++
		return mq.NewError(mq.VerbPut, "Q", mq.ReasonQFull)
	})
	if mq.ReasonOf(err) != mq.ReasonQFull || calls != 1 {
		t.Fatalf("Do: %v after %d calls; want Q_FULL after 1", err, calls)
	}

	calls = 0
	err = p.Do(ctx, qm1, func(ctx context.Context, c mq.Conn) error {
		calls++
		eb.Faults().BreakConnections()
		_, err := c.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
		return err
	})
	if mq.ReasonOf(err) != mq.ReasonConnectionBroken || calls != 3 {
		t.Fatalf("Do: %v after %d calls; want CONNECTION_BROKEN after 3 (MaxAttempts)", err, calls)
	}
}

func TestPoolConnectGivesUpOnPermanentAndContext(t *testing.T) {
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
}

func TestPoolIdleTimeout(t *testing.T) {
	p, cb, _ := newPool(t, mq.PoolConfig{IdleTimeout: time.Nanosecond})
	ctx := context.Background()
	for range 2 {
		pc, err := p.Acquire(ctx, qm1)
		if err != nil {
			t.Fatal(err)
		}
		pc.Close()
		time.Sleep(time.Millisecond) // outlive the idle timeout
	}
	if cb.Connects.Load() != 2 {
		t.Fatalf("stale idle connection reused (%d connects)", cb.Connects.Load())
	}
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
