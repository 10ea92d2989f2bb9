package handlers

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

const testQueue = "DEV.QUEUE.1"

// fixture is a fresh embedded queue manager, a pool on it, and a recorder
// of the checkpoints handlers store.
type fixture struct {
	t       testing.TB
	ctx     context.Context
	backend *embedded.Backend
	pool    *mq.Pool
	target  mq.Target

	mu          sync.Mutex
	calls       []string // every checkpoint the handler asked for
	checkpoints []string // those that were stored
	// failCheckpoint, if set, is consulted with the 1-based call number
	// before a checkpoint is stored; a non-nil error fails that call.
	failCheckpoint func(call int) error
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureOn(t, embedded.NewDefault())
}

// newFixtureOn is newFixture on the embedded backend b.
func newFixtureOn(t testing.TB, b *embedded.Backend) *fixture {
	t.Helper()
	return newFixtureWith(t, b, b)
}

// newDurableFixture is newFixture on a queue manager whose messages
// outlive this process, as IBM MQ's do: PRODUCE checkpoints every commit.
func newDurableFixture(t testing.TB) *fixture {
	t.Helper()
	b := embedded.NewDefault()
	return newFixtureWith(t, outlivingBackend{b}, b)
}

// outlivingBackend is an embedded queue manager that says its messages
// outlive this process.
type outlivingBackend struct{ *embedded.Backend }

func (outlivingBackend) MessagesOutliveProcess() bool { return true }

// newFixtureWith is a fixture whose pool connects through backend, which
// reaches the queue manager of b.
func newFixtureWith(t testing.TB, backend mq.Backend, b *embedded.Backend) *fixture {
	t.Helper()
	pool, err := mq.NewPool(backend, mq.PoolConfig{Backoff: mq.Backoff{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return &fixture{t: t, ctx: ctx, backend: b, pool: pool, target: mq.Target{QueueManager: embedded.DefaultQueueManager}}
}

func (f *fixture) run(cmd command.Command) Run {
	return Run{
		Command:    cmd,
		Target:     f.target,
		Queue:      testQueue,
		Conns:      f.pool,
		Checkpoint: f.checkpoint,
	}
}

func (f *fixture) checkpoint(_ context.Context, progress string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, progress)
	if f.failCheckpoint != nil {
		if err := f.failCheckpoint(len(f.calls)); err != nil {
			return err
		}
	}
	f.checkpoints = append(f.checkpoints, progress)
	return nil
}

// progress returns the stored checkpoints.
func (f *fixture) progress() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.checkpoints...)
}

// checkpointCalls returns every checkpoint asked for, stored or not.
func (f *fixture) checkpointCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// lastProgress is the newest checkpoint, as the record would hold it.
func (f *fixture) lastProgress() string {
	p := f.progress()
	if len(p) == 0 {
		f.t.Fatal("no checkpoint was stored")
	}
	return p[len(p)-1]
}

// conn is a direct connection to the queue manager, outside the pool.
func (f *fixture) conn() mq.Conn {
	f.t.Helper()
	c, err := f.backend.Connect(f.ctx, f.target)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close() })
	return c
}

func (f *fixture) depth() int {
	f.t.Helper()
	info, err := mq.InquireQueue(f.ctx, f.conn(), testQueue)
	if err != nil {
		f.t.Fatal(err)
	}
	return info.CurrentDepth
}

func (f *fixture) wantDepth(want int) {
	f.t.Helper()
	if got := f.depth(); got != want {
		f.t.Fatalf("depth = %d, want %d", got, want)
	}
}

// put puts committed messages and returns their MsgIds.
func (f *fixture) put(msgs ...*mq.Message) []mq.ID {
	f.t.Helper()
	c := f.conn()
	q, err := c.OpenQueue(f.ctx, testQueue, mq.OpenOutput)
	if err != nil {
		f.t.Fatal(err)
	}
	defer q.Close()
	ids := make([]mq.ID, len(msgs))
	for i, m := range msgs {
		res, err := q.Put(f.ctx, m, mq.PutOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		ids[i] = res.MsgID
	}
	return ids
}

// putN puts n text messages "m1".."mn" and returns their MsgIds.
func (f *fixture) putN(n int) []mq.ID {
	msgs := make([]*mq.Message, n)
	for i := range msgs {
		msgs[i] = &mq.Message{Payload: []byte("m" + strconv.Itoa(i+1)), Format: mq.FormatString}
	}
	return f.put(msgs...)
}

// drain gets every message off the test queue, in queue order.
func (f *fixture) drain() []mq.Message {
	f.t.Helper()
	return f.drainQueue(testQueue)
}

// drainQueue gets every message off queue, in queue order.
func (f *fixture) drainQueue(queue string) []mq.Message {
	f.t.Helper()
	q, err := f.conn().OpenQueue(f.ctx, queue, mq.OpenInputShared)
	if err != nil {
		f.t.Fatal(err)
	}
	defer q.Close()
	var got []mq.Message
	for {
		var m mq.Message
		err := q.Get(f.ctx, &m, mq.GetOptions{})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return got
		}
		if err != nil {
			f.t.Fatal(err)
		}
		got = append(got, m)
	}
}

// jsonKeys marshals v and returns its top-level keys.
func jsonKeys(t *testing.T, v any) map[string]json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func ptr[T any](v T) *T { return &v }

// failOnCall fails the n-th checkpoint call with err.
func failOnCall(n int, err error) func(int) error {
	return func(call int) error {
		if call == n {
			return err
		}
		return nil
	}
}
