package embedded

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// hotGetter returns a handle whose last get found its message at once, so
// its next get watches the queue before it parks.
func hotGetter(t *testing.T, e *env, out mq.Queue) *handle {
	t.Helper()
	in := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenInputShared).(*handle)
	if _, err := out.Put(e.ctx, &mq.Message{Payload: []byte("first")}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	var msg mq.Message
	if err := in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if !in.hot {
		t.Fatal("a get that found its message at once left the handle cold")
	}
	return in
}

func TestHotGetWatchesThenParksAndAPutWakesIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		out := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
		in := hotGetter(t, e, out)
		got := make(chan error, 1)
		var msg mq.Message
		go func() { got <- in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Minute}) }()
		// The watch ends on its own: the get parks rather than spin on.
		waitForWaiters(t, e.b, "DEV.QUEUE.1", 1)
		if _, err := out.Put(e.ctx, &mq.Message{Payload: []byte("second")}, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil || string(msg.Payload) != "second" {
			t.Fatalf("get: %q, %v", msg.Payload, err)
		}
	})
}

func TestGetTakesAMessagePutWhileItWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		out := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
		in := hotGetter(t, e, out)
		const n = 100
		got := make(chan error, 1)
		go func() {
			var msg mq.Message
			for range n {
				if err := in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Minute}); err != nil {
					got <- err
					return
				}
			}
			got <- nil
		}()
		for range n {
			if _, err := out.Put(e.ctx, &mq.Message{Payload: []byte("m")}, mq.PutOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	})
}

func TestGetThatTimesOutLeavesTheHandleCold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		out := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
		in := hotGetter(t, e, out)
		var msg mq.Message
		err := in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Millisecond})
		if !mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			t.Fatalf("get from an empty queue: %v, want 2033", err)
		}
		if in.hot {
			t.Fatal("a get that found nothing left the handle hot")
		}
	})
}

func TestGetWaitingLongerThanTheWatchLeavesTheHandleCold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		out := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
		in := hotGetter(t, e, out)
		got := make(chan error, 1)
		var msg mq.Message
		go func() { got <- in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Minute}) }()
		waitForWaiters(t, e.b, "DEV.QUEUE.1", 1)
		// The fake clock moves when every goroutine waits: the put comes
		// well past the watch.
		<-time.After(10 * getSpin)
		if _, err := out.Put(e.ctx, &mq.Message{Payload: []byte("late")}, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if in.hot {
			t.Fatal("a get that waited past the watch left the handle hot: a slow consumer would spin for every message")
		}
	})
}

func TestContextEndsWatchingGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		out := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
		in := hotGetter(t, e, out)
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		var msg mq.Message
		if err := in.Get(ctx, &msg, mq.GetOptions{Wait: time.Minute}); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		q := e.b.defaultQM.queues["DEV.QUEUE.1"]
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.waiters != 0 {
			t.Fatalf("%d waiters left registered", q.waiters)
		}
	})
}

func TestBreakFailsWatchingGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		out := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
		in := hotGetter(t, e, out)
		done := make(chan error, 1)
		go func() {
			var msg mq.Message
			done <- in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Minute})
		}()
		e.b.Faults().BreakConnections()
		if err := <-done; !mq.IsReason(err, mq.ReasonConnectionBroken) {
			t.Fatalf("got %v, want 2009", err)
		}
	})
}
