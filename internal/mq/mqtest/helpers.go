package mqtest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// caseTimeout bounds every call of one case, so a hung backend fails the
// case instead of the whole run.
const caseTimeout = 20 * time.Second

// fixture is one case's environment plus helpers that fail the test on
// unexpected errors.
type fixture struct {
	t   *testing.T
	env Env
	ctx context.Context
}

func newFixture(t *testing.T, h Harness) *fixture {
	t.Helper()
	env := h.New(t)
	env.setDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	t.Cleanup(cancel)
	return &fixture{t: t, env: env, ctx: ctx}
}

func (f *fixture) connect() mq.Conn {
	f.t.Helper()
	c, err := f.env.Backend.Connect(f.ctx, f.env.Target)
	if err != nil {
		f.t.Fatalf("connect %s: %v", f.env.Target, err)
	}
	f.t.Cleanup(func() { c.Close() })
	return c
}

func (f *fixture) open(c mq.Conn, name string, opts mq.OpenOption) mq.Queue {
	f.t.Helper()
	q, err := c.OpenQueue(f.ctx, name, opts)
	if err != nil {
		f.t.Fatalf("open %s: %v", name, err)
	}
	return q
}

// put sends a message whose payload is text; edit may set MQMD fields.
func (f *fixture) put(q mq.Queue, text string, opts mq.PutOptions, edit func(*mq.Message)) mq.PutResult {
	f.t.Helper()
	msg := &mq.Message{Payload: []byte(text)}
	if edit != nil {
		edit(msg)
	}
	res, err := q.Put(f.ctx, msg, opts)
	if err != nil {
		f.t.Fatalf("put %q on %s: %v", text, q.Name(), err)
	}
	return res
}

func (f *fixture) get(q mq.Queue, opts mq.GetOptions) *mq.Message {
	f.t.Helper()
	var msg mq.Message
	if err := q.Get(f.ctx, &msg, opts); err != nil {
		f.t.Fatalf("get from %s: %v", q.Name(), err)
	}
	return &msg
}

// getText gets a message and checks its payload.
func (f *fixture) getText(q mq.Queue, opts mq.GetOptions, want string) *mq.Message {
	f.t.Helper()
	msg := f.get(q, opts)
	if string(msg.Payload) != want {
		f.t.Fatalf("got payload %q, want %q", msg.Payload, want)
	}
	return msg
}

// noMessage asserts the get finds nothing.
func (f *fixture) noMessage(q mq.Queue, opts mq.GetOptions) {
	f.t.Helper()
	var msg mq.Message
	err := q.Get(f.ctx, &msg, opts)
	WantReason(f.t, err, mq.ReasonNoMsgAvailable)
}

func (f *fixture) inquire(c mq.Conn, name string) mq.QueueInfo {
	f.t.Helper()
	info, err := mq.InquireQueue(f.ctx, c, name)
	if err != nil {
		f.t.Fatalf("inquire %s: %v", name, err)
	}
	return info
}

func (f *fixture) wantDepth(c mq.Conn, name string, want int) {
	f.t.Helper()
	if got := f.inquire(c, name).CurrentDepth; got != want {
		f.t.Fatalf("depth of %s = %d, want %d", name, got, want)
	}
}

func (f *fixture) commit(c mq.Conn) {
	f.t.Helper()
	if err := c.Commit(f.ctx); err != nil {
		f.t.Fatalf("commit: %v", err)
	}
}

func (f *fixture) backout(c mq.Conn) {
	f.t.Helper()
	if err := c.Backout(f.ctx); err != nil {
		f.t.Fatalf("backout: %v", err)
	}
}

// fastPool is a pool whose backoff suits tests.
func (f *fixture) fastPool(b mq.Backend, onRetry func(mq.Target, int, time.Duration, error)) *mq.Pool {
	f.t.Helper()
	p, err := mq.NewPool(b, mq.PoolConfig{
		Backoff: mq.Backoff{Initial: time.Millisecond, Max: 10 * time.Millisecond, MaxAttempts: 3},
		OnRetry: onRetry,
	})
	if err != nil {
		f.t.Fatalf("new pool: %v", err)
	}
	f.t.Cleanup(func() { p.Close() })
	return p
}

// WantReason fails the test unless err is, or wraps, an *mq.Error with the
// reason want, and returns that error for further checks.
func WantReason(t testing.TB, err error, want mq.Reason) *mq.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", want)
	}
	var e *mq.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want *mq.Error with %s", err, err, want)
	}
	if e.Reason != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	return e
}

// CountingBackend counts connection attempts: to prove the pool reuses
// connections, or that a refused command never connects.
type CountingBackend struct {
	mq.Backend
	Connects atomic.Int64
}

// Connect counts the attempt and passes it on.
func (b *CountingBackend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	b.Connects.Add(1)
	return b.Backend.Connect(ctx, t)
}

func id(s string) mq.ID {
	var v mq.ID
	copy(v[:], s)
	return v
}
