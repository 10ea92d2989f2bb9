//go:build ibmmq

package ibmmq

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// TestAsyncPutFailures: asynchronous puts (MQPMO_ASYNC_RESPONSE) return at
// once, and a put the queue manager refused surfaces where the caller can
// still act on it — never silently.
func TestAsyncPutFailures(t *testing.T) {
	putAsync := func(e *serverEnv, q mq.Queue, n int, syncpoint bool) {
		t.Helper()
		for i := range n {
			res, err := q.Put(e.ctx, &mq.Message{Payload: []byte("async")}, mq.PutOptions{Syncpoint: syncpoint, Async: true})
			if err != nil {
				t.Fatalf("asynchronous put %d: %v", i+1, err)
			}
			if res.MsgID.IsZero() {
				t.Fatalf("asynchronous put %d: no MsgId, want the one the client made", i+1)
			}
		}
	}
	depth := func(e *serverEnv, c mq.Conn) int {
		t.Helper()
		st, err := c.InquireQueueStatus(e.ctx, "DEV.QUEUE.1")
		if err != nil {
			t.Fatal(err)
		}
		return st.CurrentDepth
	}
	wantFailure := func(err error, what string) {
		t.Helper()
		e, ok := mq.AsError(err)
		if !ok || e.Reason != mq.ReasonQFull || !strings.Contains(err.Error(), "1 of 10 asynchronous puts failed") {
			t.Fatalf("%s: %v, want MQRC_Q_FULL (2053) for 1 of 10 asynchronous puts", what, err)
		}
	}

	t.Run("commit backs the unit of work out", func(t *testing.T) {
		e, c, q := openOnServer(t, "DEV.QUEUE.1")
		e.server.Faults().FailNth(mq.VerbPut, 4, mq.ReasonQFull)
		putAsync(e, q, 10, true)
		err := c.Commit(e.ctx)
		wantFailure(err, "commit")
		if !strings.Contains(err.Error(), "backed out") {
			t.Errorf("commit: %v, want it to say the unit of work was backed out", err)
		}
		if d := depth(e, c); d != 0 {
			t.Errorf("DEV.QUEUE.1 holds %d messages, want none: the other 9 puts were backed out with the failed one", d)
		}
		putAsync(e, q, 3, true)
		if err := c.Commit(e.ctx); err != nil {
			t.Errorf("commit after the failure was reported: %v, want the next unit of work to commit", err)
		}
		if d := depth(e, c); d != 3 {
			t.Errorf("DEV.QUEUE.1 holds %d messages, want the next unit of work's 3", d)
		}
	})

	t.Run("outside syncpoint CheckAsyncPuts reports it", func(t *testing.T) {
		e, c, q := openOnServer(t, "DEV.QUEUE.1")
		e.server.Faults().FailNth(mq.VerbPut, 7, mq.ReasonQFull)
		putAsync(e, q, 10, false)
		wantFailure(mq.CheckAsyncPuts(e.ctx, c), "CheckAsyncPuts")
		if err := mq.CheckAsyncPuts(e.ctx, c); err != nil {
			t.Errorf("second CheckAsyncPuts: %v, want nil: MQSTAT reset the counts", err)
		}
		if d := depth(e, c); d != 9 {
			t.Errorf("DEV.QUEUE.1 holds %d messages, want the 9 that succeeded", d)
		}
	})

	t.Run("a batch's failed put fails the commit", func(t *testing.T) {
		e, c, q := openOnServer(t, "DEV.QUEUE.1")
		e.server.Faults().FailNth(mq.VerbPut, 4, mq.ReasonQFull)
		b := &mq.Batch{Message: &mq.Message{}, Bodies: []byte("0123456789")}
		for i := range 10 {
			b.Ends = append(b.Ends, int32(i+1))
		}
		res, err := mq.PutBatch(e.ctx, q, b, mq.PutOptions{Syncpoint: true, Async: true})
		if err != nil || res.Put != 10 {
			t.Fatalf("asynchronous batch: %+v, %v; want 10 put, the failure left to the commit", res, err)
		}
		wantFailure(c.Commit(e.ctx), "commit")
		if d := depth(e, c); d != 0 {
			t.Errorf("DEV.QUEUE.1 holds %d messages, want none: the batch was backed out", d)
		}
	})

	t.Run("a connection lost before the commit fails it", func(t *testing.T) {
		e, c, q := openOnServer(t, "DEV.QUEUE.1")
		putAsync(e, q, 10, true) // held back by the client library until the commit
		e.server.Faults().BreakConnections()
		if err := c.Commit(e.ctx); !mq.IsConnectionBroken(err) {
			t.Fatalf("commit on a lost connection: %v, want MQRC_CONNECTION_BROKEN (2009)", err)
		}
		other, err := New().Connect(e.ctx, e.target)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if d := depth(e, other); d != 0 {
			t.Errorf("DEV.QUEUE.1 holds %d messages, want none: the unit of work went with the connection", d)
		}
	})

	t.Run("backout discards what it backed out", func(t *testing.T) {
		e, c, q := openOnServer(t, "DEV.QUEUE.1")
		e.server.Faults().FailNth(mq.VerbPut, 2, mq.ReasonQFull)
		putAsync(e, q, 5, true)
		if err := c.Backout(e.ctx); err != nil {
			t.Fatal(err)
		}
		putAsync(e, q, 5, true)
		if err := c.Commit(e.ctx); err != nil {
			t.Errorf("commit after a backout: %v, want the backed-out failure forgotten", err)
		}
	})
}
