package embedded

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// newLimitedEnv is the default queue manager with MaxBytes set.
func newLimitedEnv(t *testing.T, maxBytes int64) *env {
	t.Helper()
	b, err := New(Config{QueueManagers: []QueueManagerConfig{{Name: DefaultQueueManager, MaxBytes: maxBytes}}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, b: b, ctx: context.Background()}
}

func (e *env) put(q mq.Queue, size int, opts mq.PutOptions) error {
	_, err := q.Put(e.ctx, &mq.Message{Payload: make([]byte, size)}, opts)
	return err
}

func (e *env) mustPut(q mq.Queue, size int, opts mq.PutOptions) {
	e.t.Helper()
	if err := e.put(q, size, opts); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) depth(c mq.Conn, queue string) int {
	e.t.Helper()
	info, err := mq.InquireQueue(e.ctx, c, queue)
	if err != nil {
		e.t.Fatal(err)
	}
	return info.CurrentDepth
}

// heldBodies sums the bodies qm holds as the accounting defines it: on
// its queues, and taken by live connections' uncommitted gets.
func (b *Backend) heldBodies(qm *queueManager) int64 {
	var sum int64
	for _, q := range qm.queues {
		q.mu.Lock()
		for p := range q.levels {
			for _, m := range q.levels[p].live() {
				sum += int64(len(m.payload))
			}
		}
		q.mu.Unlock()
	}
	b.mu.Lock()
	conns := make([]*conn, 0, len(b.conns))
	for c := range b.conns {
		conns = append(conns, c)
	}
	b.mu.Unlock() // c.mu comes before b.mu (see conn.Close)
	for _, c := range conns {
		c.mu.Lock()
		for _, e := range c.uow {
			if e.got && e.q.qm == qm {
				sum += int64(len(e.m.payload))
			}
		}
		c.mu.Unlock()
	}
	return sum
}

// checkStorage fails the test unless every queue manager's counter equals
// the bodies it holds.
func checkStorage(t *testing.T, b *Backend, step string) {
	t.Helper()
	for _, qm := range b.qmgrs {
		if got, want := qm.bodyBytes.Load(), b.heldBodies(qm); got != want {
			t.Fatalf("%s: %s counts %d body bytes, holds %d", step, qm.name, got, want)
		}
	}
}

func TestPutOverMaxBytesFailsAndStoresNothing(t *testing.T) {
	e := newLimitedEnv(t, 100)
	c := e.connect()
	q1 := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	q2 := e.open(c, "DEV.QUEUE.2", mq.OpenOutput)
	e.mustPut(q1, 60, mq.PutOptions{})
	// The limit is the queue manager's: another queue shares it.
	mqtest.WantReason(t, e.put(q2, 41, mq.PutOptions{}), mq.ReasonQSpaceNotAvailable)
	mqtest.WantReason(t, e.put(q1, 41, mq.PutOptions{Syncpoint: true}), mq.ReasonQSpaceNotAvailable)
	if d1, d2 := e.depth(c, "DEV.QUEUE.1"), e.depth(c, "DEV.QUEUE.2"); d1 != 1 || d2 != 0 {
		t.Fatalf("depths %d and %d after refused puts, want 1 and 0", d1, d2)
	}
	checkStorage(t, e.b, "refused puts")
	e.mustPut(q2, 40, mq.PutOptions{}) // exactly up to the limit
	e.mustPut(q1, 0, mq.PutOptions{})  // an empty body still fits
	mqtest.WantReason(t, e.put(q1, 1, mq.PutOptions{}), mq.ReasonQSpaceNotAvailable)
	checkStorage(t, e.b, "full")
}

// TestPutOverMaxBytesAllocatesNothing: the body is refused before it is
// copied, so refused puts of large bodies do not grow the heap by them.
func TestPutOverMaxBytesAllocatesNothing(t *testing.T) {
	const body = 1 << 20
	e := newLimitedEnv(t, body-1)
	c := e.connect()
	q := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	msg := &mq.Message{Payload: make([]byte, body)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		_, err := q.Put(e.ctx, msg, mq.PutOptions{})
		mqtest.WantReason(t, err, mq.ReasonQSpaceNotAvailable)
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown >= body {
		t.Fatalf("10 refused puts of %d bytes allocated %d bytes", body, grown)
	}
}

// TestMessageOverMaxBytes: one body larger than the whole limit is refused
// with 2056, unless MAXMSGL refuses it first, as IBM MQ checks the length
// before it looks for space.
func TestMessageOverMaxBytes(t *testing.T) {
	b, err := New(Config{QueueManagers: []QueueManagerConfig{{Name: DefaultQueueManager, MaxBytes: 100,
		Queues: []QueueConfig{{Name: "ROOMY"}, {Name: "SMALL", MaxMsgLength: 50}}}}})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, b: b, ctx: context.Background()}
	c := e.connect()
	mqtest.WantReason(t, e.put(e.open(c, "ROOMY", mq.OpenOutput), 101, mq.PutOptions{}), mq.ReasonQSpaceNotAvailable)
	mqtest.WantReason(t, e.put(e.open(c, "SMALL", mq.OpenOutput), 101, mq.PutOptions{}), mq.ReasonMsgTooBigForQ)
	checkStorage(t, e.b, "refused")
}

// freeTestLimit is the MaxBytes of TestSpaceIsFreed.
const freeTestLimit = 100

// TestSpaceIsFreed fills the queue manager, frees the space one way, and
// expects a put of the whole limit to fit again.
func TestSpaceIsFreed(t *testing.T) {
	for _, tc := range []struct {
		name string
		fill func(e *env, c mq.Conn) // holds freeTestLimit bytes through c
		free func(e *env, c mq.Conn)
	}{
		{"get", fillCommitted, func(e *env, c mq.Conn) {
			var msg mq.Message
			if err := e.open(c, "DEV.QUEUE.2", mq.OpenInputShared).Get(e.ctx, &msg, mq.GetOptions{}); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"get under syncpoint, backed out, then committed", fillCommitted, func(e *env, c mq.Conn) {
			in := e.open(c, "DEV.QUEUE.2", mq.OpenInputShared)
			out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
			var msg mq.Message
			if err := in.Get(e.ctx, &msg, mq.GetOptions{Syncpoint: true}); err != nil {
				e.t.Fatal(err)
			}
			// Until the get commits, a backout could return the message.
			mqtest.WantReason(e.t, e.put(out, 1, mq.PutOptions{}), mq.ReasonQSpaceNotAvailable)
			if err := c.Backout(e.ctx); err != nil {
				e.t.Fatal(err)
			}
			mqtest.WantReason(e.t, e.put(out, 1, mq.PutOptions{}), mq.ReasonQSpaceNotAvailable)
			if err := in.Get(e.ctx, &msg, mq.GetOptions{Syncpoint: true}); err != nil {
				e.t.Fatal(err)
			}
			if err := c.Commit(e.ctx); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"expiry, on another queue", func(e *env, c mq.Conn) {
			if _, err := e.open(c, "DEV.QUEUE.2", mq.OpenOutput).Put(e.ctx,
				&mq.Message{Payload: make([]byte, freeTestLimit), Expiry: time.Second}, mq.PutOptions{}); err != nil {
				e.t.Fatal(err)
			}
		}, func(*env, mq.Conn) { time.Sleep(time.Second) }},
		{"backout of an uncommitted put", fillUncommitted, func(e *env, c mq.Conn) {
			if err := c.Backout(e.ctx); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"disconnect with an uncommitted put", fillUncommitted, func(e *env, c mq.Conn) {
			if err := c.Close(); err != nil {
				e.t.Fatal(err)
			}
		}},
		{"broken connection with an uncommitted put", fillUncommitted, func(e *env, _ mq.Conn) {
			e.b.Faults().BreakConnections()
		}},
		{"reset clears the queues", fillCommitted, func(e *env, _ mq.Conn) { e.b.Faults().Reset() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newLimitedEnv(t, freeTestLimit)
				filler := e.connect()
				tc.fill(e, filler)
				checkStorage(t, e.b, "filled")
				mqtest.WantReason(t, e.put(e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput), 1, mq.PutOptions{}),
					mq.ReasonQSpaceNotAvailable)
				tc.free(e, filler)
				checkStorage(t, e.b, "freed")
				e.mustPut(e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput), freeTestLimit, mq.PutOptions{})
				checkStorage(t, e.b, "refilled")
			})
		})
	}
}

// fillCommitted puts one committed message of the whole limit.
func fillCommitted(e *env, c mq.Conn) {
	e.mustPut(e.open(c, "DEV.QUEUE.2", mq.OpenOutput), freeTestLimit, mq.PutOptions{})
}

// fillUncommitted holds the whole limit in c's unit of work: uncommitted
// puts count.
func fillUncommitted(e *env, c mq.Conn) {
	e.mustPut(e.open(c, "DEV.QUEUE.2", mq.OpenOutput), freeTestLimit, mq.PutOptions{Syncpoint: true})
}

// TestStorageAccountingInvariant runs a seeded mix of everything that
// stores or removes messages (puts and gets in and out of syncpoint,
// browses, commits, failed commits, backouts, expiry, depth caps, dropped
// and duplicated puts, disconnects, broken connections, resets) and checks
// after every step that the counter equals the bodies held; drained, the
// queue manager holds 0.
func TestStorageAccountingInvariant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newLimitedEnv(t, 2048)
		rng := rand.New(rand.NewPCG(17, 3))
		queues := DefaultQueues[:2]
		type client struct {
			c           mq.Conn
			out, in, br map[string]mq.Queue
		}
		clients := make([]client, 3)
		connect := func(i int) {
			cl := client{c: e.connect(), out: map[string]mq.Queue{}, in: map[string]mq.Queue{}, br: map[string]mq.Queue{}}
			for _, name := range queues {
				cl.out[name] = e.open(cl.c, name, mq.OpenOutput)
				cl.in[name] = e.open(cl.c, name, mq.OpenInputShared)
				cl.br[name] = e.open(cl.c, name, mq.OpenBrowse)
			}
			clients[i] = cl
		}
		reconnectAll := func() {
			for i := range clients {
				connect(i)
			}
		}
		reconnectAll()
		faults := e.b.Faults()
		expected := map[mq.Reason]bool{
			mq.ReasonNoMsgAvailable: true, mq.ReasonQFull: true, mq.ReasonQSpaceNotAvailable: true, mq.ReasonBackedOut: true,
		}
		var msg mq.Message
		for step := range 5000 {
			i := rng.IntN(len(clients))
			cl, q := clients[i], queues[rng.IntN(len(queues))]
			var err error
			op := rng.IntN(16)
			switch op {
			case 0, 1, 2, 3:
				put := &mq.Message{Payload: make([]byte, rng.IntN(300)), Priority: rng.Int32N(10)}
				if rng.IntN(4) == 0 {
					put.Expiry = time.Duration(1+rng.IntN(3)) * time.Second
				}
				_, err = cl.out[q].Put(e.ctx, put, mq.PutOptions{Syncpoint: rng.IntN(2) == 0})
			case 4, 5, 6:
				err = cl.in[q].Get(e.ctx, &msg, mq.GetOptions{Syncpoint: rng.IntN(2) == 0})
			case 7:
				err = cl.br[q].Get(e.ctx, &msg, mq.GetOptions{Browse: mq.BrowseMode(1 + rng.IntN(2))})
			case 8, 9:
				err = cl.c.Commit(e.ctx)
			case 10:
				err = cl.c.Backout(e.ctx)
			case 11:
				time.Sleep(time.Second)
			case 12:
				switch rng.IntN(4) {
				case 0:
					faults.DropNth(1 + rng.IntN(3))
				case 1:
					faults.DuplicateNth(1 + rng.IntN(3))
				case 2:
					faults.CapDepth(rng.IntN(3) * 15) // 0 lifts the cap
				case 3:
					faults.FailNth(mq.VerbCommit, 1, mq.ReasonBackedOut)
				}
			case 13:
				if err := cl.c.Close(); err != nil {
					t.Fatal(err)
				}
				connect(i)
			case 14:
				if rng.IntN(10) == 0 {
					faults.BreakConnections()
					reconnectAll()
				}
			case 15:
				if rng.IntN(50) == 0 {
					faults.Reset()
					reconnectAll()
				}
			}
			if err != nil && !expected[mq.ReasonOf(err)] {
				t.Fatalf("step %d (op %d): %v", step, op, err)
			}
			checkStorage(t, e.b, fmt.Sprintf("step %d (op %d)", step, op))
		}

		faults.CapDepth(0)
		faults.DropNth(0)
		faults.DuplicateNth(0)
		faults.FailNth(mq.VerbCommit, 0, 0)
		for _, cl := range clients {
			if err := cl.c.Commit(e.ctx); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range queues {
			for {
				err := clients[0].in[q].Get(e.ctx, &msg, mq.GetOptions{})
				if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		checkStorage(t, e.b, "drained")
		if n := e.b.defaultQM.bodyBytes.Load(); n != 0 {
			t.Fatalf("drained queue manager counts %d body bytes", n)
		}
	})
}

func TestNegativeMaxBytesRefused(t *testing.T) {
	_, err := New(Config{QueueManagers: []QueueManagerConfig{{Name: DefaultQueueManager, MaxBytes: -1}}})
	if err == nil || !strings.Contains(err.Error(), "embedded.queueManagers[0].maxBytes") {
		t.Fatalf("got %v, want an error naming embedded.queueManagers[0].maxBytes", err)
	}
	b := NewDefault()
	if b.defaultQM.maxBytes != DefaultMaxBytes {
		t.Fatalf("default MaxBytes %d, want %d", b.defaultQM.maxBytes, DefaultMaxBytes)
	}
}

// TestBodyBufferBoundsSlack: a pooled buffer is reused only when it is not
// much larger than the body, so the bodies MaxBytes counts bound the
// memory their buffers hold.
func TestBodyBufferBoundsSlack(t *testing.T) {
	for _, tc := range []struct {
		capacity, body int
		reused         bool
	}{
		{maxPooledPayload, 10, false},
		{maxPooledPayload, maxPooledPayload - 100, true},
		{2048, 1900, true},
		{512, 0, true},
		{1024, 0, false},
		{100, 200, false},
	} {
		buf := make([]byte, 7, tc.capacity)
		got := bodyBuffer(buf, tc.body)
		if reused := got != nil; reused != tc.reused || (reused && len(got) != 0) {
			t.Errorf("cap %d for %d bytes: got len %d cap %d, want reused=%v", tc.capacity, tc.body, len(got), cap(got), tc.reused)
		}
	}
}
