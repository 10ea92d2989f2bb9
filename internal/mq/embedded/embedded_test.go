package embedded

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// harness gives each case its own queue manager, so nothing is shared: the
// default one plus an alias of DEV.QUEUE.1 and a remote definition whose
// transmission queue is DEV.QUEUE.2.
var harness harnessWithQueueTypes

type harnessWithQueueTypes struct{}

func (harnessWithQueueTypes) New(tb testing.TB) mqtest.Env {
	var queues []QueueConfig
	for _, name := range DefaultQueues {
		queues = append(queues, QueueConfig{Name: name})
	}
	b, err := New(Config{QueueManagers: []QueueManagerConfig{{Name: DefaultQueueManager, Queues: queues,
		Aliases: []AliasQueueConfig{{Name: "DEV.ALIAS.1", Target: "DEV.QUEUE.1"}},
		Remotes: []RemoteQueueConfig{{Name: "DEV.REMOTE.1", RemoteQueue: "APP.IN", RemoteQueueManager: "QM2", TransmissionQueue: "DEV.QUEUE.2"}},
	}}})
	if err != nil {
		tb.Fatal(err)
	}
	return mqtest.Env{Backend: b, Target: mq.Target{QueueManager: DefaultQueueManager}, Faults: b.Faults(),
		AliasQueue: "DEV.ALIAS.1", RemoteQueue: "DEV.REMOTE.1"}
}

func (harnessWithQueueTypes) DefinesAliasAndRemote() bool { return true }

var _ mqtest.Faults = (*Faults)(nil)

func TestBackendSuite(t *testing.T) { mqtest.RunBackendSuite(t, harness) }

func BenchmarkBackend(b *testing.B) { mqtest.RunBackendBenchmarks(b, harness) }

// env is a connected queue manager for the embedded-only tests.
type env struct {
	t   *testing.T
	b   *Backend
	ctx context.Context
}

func newEnv(t *testing.T) *env {
	return &env{t: t, b: NewDefault(), ctx: context.Background()}
}

func (e *env) connect() mq.Conn {
	e.t.Helper()
	c, err := e.b.Connect(e.ctx, mq.Target{QueueManager: DefaultQueueManager})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

func (e *env) open(c mq.Conn, name string, opts mq.OpenOption) mq.Queue {
	e.t.Helper()
	q, err := c.OpenQueue(e.ctx, name, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return q
}

func TestDefaultQueueManager(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	for _, name := range DefaultQueues {
		info, err := mq.InquireQueue(e.ctx, c, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.MaxDepth != DefaultMaxDepth || info.MaxMsgLength != DefaultMaxMsgLength {
			t.Errorf("%s: %+v", name, info)
		}
	}
	// The empty queue-manager name is the default queue manager.
	c2, err := e.b.Connect(e.ctx, mq.Target{})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	info, err := c2.InquireQueueManager(e.ctx)
	if err != nil || info.Name != DefaultQueueManager || info.CommandLevel != DefaultCommandLevel || info.Platform != mq.PlatformUnix {
		t.Fatalf("got %+v, %v", info, err)
	}
}

func TestConfiguredQueueManagers(t *testing.T) {
	b, err := New(Config{QueueManagers: []QueueManagerConfig{
		{Name: "QMA", Queues: []QueueConfig{{Name: "SMALL", MaxDepth: 1, MaxMsgLength: 10}}},
		{Name: "QMB", MaxMsgLength: 5, Queues: []QueueConfig{{Name: "DEV.QUEUE.1", MaxMsgLength: DefaultMaxMsgLength}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := b.Connect(ctx, mq.Target{QueueManager: "QMA"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	q, err := a.OpenQueue(ctx, "SMALL", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Put(ctx, &mq.Message{Payload: make([]byte, 11)}, mq.PutOptions{})
	mqtest.WantReason(t, err, mq.ReasonMsgTooBigForQ)
	if _, err := q.Put(ctx, &mq.Message{Payload: make([]byte, 10)}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = q.Put(ctx, &mq.Message{}, mq.PutOptions{})
	mqtest.WantReason(t, err, mq.ReasonQFull)
	_, err = a.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
	mqtest.WantReason(t, err, mq.ReasonUnknownObjectName)

	// QMB's own MAXMSGL is below its queue's.
	bc, err := b.Connect(ctx, mq.Target{QueueManager: "QMB"})
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	bq, err := bc.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bq.Put(ctx, &mq.Message{Payload: make([]byte, 6)}, mq.PutOptions{})
	mqtest.WantReason(t, err, mq.ReasonMsgTooBigForQMgr)
}

func TestConfigValidation(t *testing.T) {
	for _, cfg := range []Config{
		{QueueManagers: []QueueManagerConfig{{Name: ""}}},
		{QueueManagers: []QueueManagerConfig{{Name: "bad name"}}},
		{QueueManagers: []QueueManagerConfig{{Name: "QM1"}, {Name: "QM1"}}},
		{QueueManagers: []QueueManagerConfig{{Name: "QM1", Queues: []QueueConfig{{Name: "A"}, {Name: "A"}}}}},
		{QueueManagers: []QueueManagerConfig{{Name: "QM1", Queues: []QueueConfig{{Name: "A", MaxDepth: -1}}}}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted an invalid config", cfg)
		}
	}
}

func TestExclusiveInput(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	ex := e.open(c, "DEV.QUEUE.1", mq.OpenInputExclusive)
	_, err := c.OpenQueue(e.ctx, "DEV.QUEUE.1", mq.OpenInputShared)
	mqtest.WantReason(t, err, mq.ReasonObjectInUse)
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	e.open(c, "DEV.QUEUE.1", mq.OpenInputShared)
	_, err = c.OpenQueue(e.ctx, "DEV.QUEUE.1", mq.OpenInputExclusive)
	mqtest.WantReason(t, err, mq.ReasonObjectInUse)
	_, err = c.OpenQueue(e.ctx, "DEV.QUEUE.1", mq.OpenInputShared|mq.OpenInputExclusive)
	mqtest.WantReason(t, err, mq.ReasonOptionsError)
}

func TestInvalidCalls(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	in := e.open(c, "DEV.QUEUE.1", mq.OpenInputShared|mq.OpenBrowse)
	var msg mq.Message
	cases := []struct {
		name string
		err  error
		want mq.Reason
	}{
		{"get on output handle", out.Get(e.ctx, &msg, mq.GetOptions{}), mq.ReasonNotOpenForInput},
		{"browse under syncpoint", in.Get(e.ctx, &msg, mq.GetOptions{Browse: mq.BrowseFirst, Syncpoint: true}), mq.ReasonOptionsError},
		{"negative wait", in.Get(e.ctx, &msg, mq.GetOptions{Wait: -1}), mq.ReasonWaitIntervalError},
		{"inquire without inquire", func() error { _, err := in.Inquire(e.ctx); return err }(), mq.ReasonNotOpenForInquire},
		{"put on input handle", func() error { _, err := in.Put(e.ctx, &msg, mq.PutOptions{}); return err }(), mq.ReasonNotOpenForOutput},
		{"priority 10", func() error { _, err := out.Put(e.ctx, &mq.Message{Priority: 10}, mq.PutOptions{}); return err }(), mq.ReasonPriorityError},
		{"negative expiry", func() error { _, err := out.Put(e.ctx, &mq.Message{Expiry: -1}, mq.PutOptions{}); return err }(), mq.ReasonExpiryError},
		{"long format", func() error { _, err := out.Put(e.ctx, &mq.Message{Format: "TOOLONGFMT"}, mq.PutOptions{}); return err }(), mq.ReasonFormatError},
		{"bad property type", func() error {
			_, err := out.Put(e.ctx, &mq.Message{Properties: mq.Properties{"n": 1}}, mq.PutOptions{})
			return err
		}(), mq.ReasonPropertyTypeError},
	}
	for _, tc := range cases {
		if got := mq.ReasonOf(tc.err); got != tc.want {
			t.Errorf("%s: got %v, want %s", tc.name, tc.err, tc.want)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := out.Put(e.ctx, &mq.Message{}, mq.PutOptions{})
	mqtest.WantReason(t, err, mq.ReasonHconnError)
	_, err = c.OpenQueue(e.ctx, "DEV.QUEUE.1", mq.OpenOutput)
	mqtest.WantReason(t, err, mq.ReasonHconnError)
}

func TestSyncpointLimit(t *testing.T) {
	b, err := New(Config{QueueManagers: []QueueManagerConfig{{Name: "QM1", MaxUncommittedMsgs: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, b: b, ctx: context.Background()}
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	for range 2 {
		if _, err := out.Put(e.ctx, &mq.Message{}, mq.PutOptions{Syncpoint: true}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = out.Put(e.ctx, &mq.Message{}, mq.PutOptions{Syncpoint: true})
	mqtest.WantReason(t, err, mq.ReasonSyncpointLimitReached)
	if err := c.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Put(e.ctx, &mq.Message{}, mq.PutOptions{Syncpoint: true}); err != nil {
		t.Fatal(err)
	}
}

// waitForWaiters waits until every other goroutine of the test's synctest
// bubble is blocked, then checks that n gets wait on the queue: the test
// then knows the next put happens during the wait, with no sleep.
func waitForWaiters(t *testing.T, b *Backend, queue string, n int) {
	t.Helper()
	synctest.Wait()
	q := b.defaultQM.queues[queue]
	q.mu.Lock()
	w := q.waiters
	q.mu.Unlock()
	if w < n {
		t.Fatalf("%d waiters, want %d", w, n)
	}
}

func TestPutWakesWaitingGets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		const getters = 3
		results := make(chan string, getters)
		for i := range getters {
			in := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenInputShared)
			go func() {
				var msg mq.Message
				if err := in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Minute}); err != nil {
					results <- fmt.Sprintf("getter %d: %v", i, err)
					return
				}
				results <- string(msg.Payload)
			}()
		}
		waitForWaiters(t, e.b, "DEV.QUEUE.1", getters)
		c := e.connect()
		out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
		// Uncommitted puts wake nobody; the commit does.
		for i := range getters {
			if _, err := out.Put(e.ctx, &mq.Message{Payload: fmt.Appendf(nil, "m%d", i)}, mq.PutOptions{Syncpoint: true}); err != nil {
				t.Fatal(err)
			}
		}
		if len(results) != 0 {
			t.Fatal("a get returned an uncommitted message")
		}
		if err := c.Commit(e.ctx); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for range getters {
			got[<-results] = true
		}
		if len(got) != getters || !got["m0"] || !got["m1"] || !got["m2"] {
			t.Fatalf("getters received %v", got)
		}
	})
}

func TestBreakFailsWaitingGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		in := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenInputShared)
		done := make(chan error, 1)
		go func() {
			var msg mq.Message
			done <- in.Get(e.ctx, &msg, mq.GetOptions{Wait: time.Minute})
		}()
		waitForWaiters(t, e.b, "DEV.QUEUE.1", 1)
		e.b.Faults().BreakConnections()
		mqtest.WantReason(t, <-done, mq.ReasonConnectionBroken)
	})
}

func TestContextEndsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		in := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenInputShared)
		ctx, cancel := context.WithCancel(e.ctx)
		done := make(chan error, 1)
		go func() {
			var msg mq.Message
			done <- in.Get(ctx, &msg, mq.GetOptions{Wait: time.Minute})
		}()
		waitForWaiters(t, e.b, "DEV.QUEUE.1", 1)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
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

func TestBrowseSeesHigherPriorityOnlyAfterFirst(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	br := e.open(c, "DEV.QUEUE.1", mq.OpenBrowse)
	put := func(text string, prio int32) {
		if _, err := out.Put(e.ctx, &mq.Message{Payload: []byte(text), Priority: prio}, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	browse := func(mode mq.BrowseMode) string {
		var msg mq.Message
		if err := br.Get(e.ctx, &msg, mq.GetOptions{Browse: mode}); err != nil {
			return mq.ReasonOf(err).Code()
		}
		return string(msg.Payload)
	}
	put("low-1", 1)
	put("low-2", 1)
	if got := browse(mq.BrowseFirst); got != "low-1" {
		t.Fatalf("first = %s", got)
	}
	put("high", 8)
	if got := browse(mq.BrowseNext); got != "low-2" {
		t.Fatalf("next = %s, want low-2 (the cursor is past priority 8)", got)
	}
	if got := browse(mq.BrowseFirst); got != "high" {
		t.Fatalf("first = %s, want high", got)
	}
}

func TestBackoutRestoresOrderAcrossPriorities(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	in := e.open(c, "DEV.QUEUE.1", mq.OpenInputShared)
	for i, p := range []int32{3, 3, 7, 3, 7} {
		if _, err := out.Put(e.ctx, &mq.Message{Payload: fmt.Appendf(nil, "%d-%d", p, i), Priority: p}, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var msg mq.Message
	// Take 7-4, 3-0 and 3-3 out of the middle and back them out.
	for _, sel := range []string{"7-4", "3-0", "3-3"} {
		var id mq.ID
		if err := e.b.findID("DEV.QUEUE.1", sel, &id); err != nil {
			t.Fatal(err)
		}
		if err := in.Get(e.ctx, &msg, mq.GetOptions{MsgID: id, Syncpoint: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Backout(e.ctx); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"7-2", "7-4", "3-0", "3-1", "3-3"} {
		if err := in.Get(e.ctx, &msg, mq.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		if string(msg.Payload) != want {
			t.Fatalf("got %s, want %s", msg.Payload, want)
		}
	}
}

// findID looks a message up by payload, for tests.
func (b *Backend) findID(queue, payload string, id *mq.ID) error {
	q := b.defaultQM.queues[queue]
	q.mu.Lock()
	defer q.mu.Unlock()
	for p := range q.levels {
		for _, m := range q.levels[p].live() {
			if string(m.payload) == payload {
				*id = m.msgID
				return nil
			}
		}
	}
	return fmt.Errorf("no message %q", payload)
}

func TestResetEmptiesQueuesAndClearsFaults(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	if _, err := out.Put(e.ctx, &mq.Message{}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	f := e.b.Faults()
	f.CapDepth(1)
	f.FailNth(mq.VerbPut, 1, mq.ReasonResourceProblem)
	f.Reset()
	_, err := out.Put(e.ctx, &mq.Message{}, mq.PutOptions{})
	mqtest.WantReason(t, err, mq.ReasonConnectionBroken)
	c2 := e.connect()
	out2 := e.open(c2, "DEV.QUEUE.1", mq.OpenOutput|mq.OpenInquire)
	for range 2 {
		if _, err := out2.Put(e.ctx, &mq.Message{}, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	info, err := out2.Inquire(e.ctx)
	if err != nil || info.CurrentDepth != 2 || info.OpenOutputCount != 1 || info.MaxDepth != DefaultMaxDepth {
		t.Fatalf("after reset: %+v, %v", info, err)
	}
}

// TestConcurrentProducersConsumers checks that nothing is lost or duplicated
// under contention, with units of work; run with -race.
func TestConcurrentProducersConsumers(t *testing.T) {
	e := newEnv(t)
	const producers, perProducer, consumers = 4, 500, 4
	var wg sync.WaitGroup
	for p := range producers {
		out := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
		wg.Go(func() {
			for i := range perProducer {
				msg := &mq.Message{Payload: fmt.Appendf(nil, "%d-%d", p, i), Priority: int32(i % 10)}
				if _, err := out.Put(e.ctx, msg, mq.PutOptions{Syncpoint: i%7 != 0}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	// Producers commit when done; the connections are per producer, so
	// commit them all after the puts.
	wg.Wait()
	e.b.mu.Lock()
	var conns []*conn
	for c := range e.b.conns {
		conns = append(conns, c)
	}
	e.b.mu.Unlock()
	for _, c := range conns {
		if err := c.Commit(e.ctx); err != nil {
			t.Fatal(err)
		}
	}

	var mu sync.Mutex
	seen := map[string]int{}
	for range consumers {
		c := e.connect()
		in := e.open(c, "DEV.QUEUE.1", mq.OpenInputShared)
		wg.Go(func() {
			var msg mq.Message
			for n := 1; ; n++ {
				err := in.Get(e.ctx, &msg, mq.GetOptions{Syncpoint: true})
				if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				if n%5 == 0 { // back some out: they must come back exactly once
					if err := c.Backout(e.ctx); err != nil {
						t.Error(err)
					}
					continue
				}
				if err := c.Commit(e.ctx); err != nil {
					t.Error(err)
				}
				mu.Lock()
				seen[string(msg.Payload)]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != producers*perProducer {
		t.Fatalf("consumed %d distinct messages, want %d", len(seen), producers*perProducer)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s consumed %d times", k, n)
		}
	}
	if n := e.b.defaultQM.bodyBytes.Load(); n != 0 {
		t.Fatalf("drained queue manager counts %d body bytes", n)
	}
}

// TestPutGetDoesNotAllocate guards the hot path: with a warm message pool a
// put/get pair of a reused Message allocates nothing.
func TestPutGetDoesNotAllocate(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	in := e.open(c, "DEV.QUEUE.1", mq.OpenInputShared)
	put := &mq.Message{Payload: make([]byte, 2048)}
	got := &mq.Message{Payload: make([]byte, 0, 2048)}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := out.Put(e.ctx, put, mq.PutOptions{Syncpoint: true}); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(e.ctx); err != nil {
			t.Fatal(err)
		}
		if err := in.Get(e.ctx, got, mq.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.1 {
		t.Fatalf("put+commit+get allocates %.2f times", allocs)
	}
}

// TestPutWithPropertiesDoesNotAllocate: a put loop whose properties stay the
// same (a PRODUCE's traceparent) allocates nothing per message: the stored
// messages share one frozen copy.
func TestPutWithPropertiesDoesNotAllocate(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	in := e.open(c, "DEV.QUEUE.1", mq.OpenInputShared)
	put := &mq.Message{Payload: make([]byte, 2048), Properties: mq.Properties{
		"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tenant": "payments"}}
	got := &mq.Message{Payload: make([]byte, 0, 2048), Properties: mq.Properties{}}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := out.Put(e.ctx, put, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := in.Get(e.ctx, got, mq.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.1 {
		t.Fatalf("put+get with unchanged properties allocates %.2f times", allocs)
	}
}

// TestSharedPropertiesStayPerMessage: messages put with the same, then
// changed, properties (the caller's map reused and written in place, as
// PRODUCE does) come back each with its own; a getter writing into what it
// got changes no other message, and neither does the putter.
func TestSharedPropertiesStayPerMessage(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	out := e.open(c, "DEV.QUEUE.1", mq.OpenOutput)
	in := e.open(c, "DEV.QUEUE.1", mq.OpenInputShared)
	props := mq.Properties{"tp": "a", "id": []byte{1}}
	msg := &mq.Message{Properties: props}
	put := func() {
		t.Helper()
		if _, err := out.Put(e.ctx, msg, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put()
	put()
	props["tp"] = "b"
	put()
	props["id"].([]byte)[0] = 2 // written in place: a change too
	put()
	delete(props, "tp")
	put()
	props["tp"], props["id"] = "c", []byte{3} // nothing of the earlier puts may change
	want := []mq.Properties{
		{"tp": "a", "id": []byte{1}}, {"tp": "a", "id": []byte{1}}, {"tp": "b", "id": []byte{1}},
		{"tp": "b", "id": []byte{2}}, {"id": []byte{2}},
	}
	for i, w := range want {
		got := &mq.Message{}
		if err := in.Get(e.ctx, got, mq.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Properties) != fmt.Sprint(w) {
			t.Fatalf("message %d has properties %v, want %v", i+1, got.Properties, w)
		}
		got.Properties["tp"] = "changed by a getter"
		if b, ok := got.Properties["id"].([]byte); ok {
			b[0] = 99
		}
	}
}

// TestQueuesTakeTheirQueueManagersLimits: a queue that sets no MAXDEPTH or
// MAXMSGL has its queue manager's.
func TestQueuesTakeTheirQueueManagersLimits(t *testing.T) {
	b, err := New(Config{QueueManagers: []QueueManagerConfig{{Name: "QM1", MaxDepth: 1, MaxMsgLength: 10,
		Queues: []QueueConfig{{Name: "INHERITS"}, {Name: "OWN", MaxDepth: 2, MaxMsgLength: 20}}}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := b.Connect(ctx, mq.Target{QueueManager: "QM1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, want := range []struct {
		queue               string
		maxDepth, maxMsgLen int
	}{{"INHERITS", 1, 10}, {"OWN", 2, 20}} {
		q, err := c.OpenQueue(ctx, want.queue, mq.OpenInquire)
		if err != nil {
			t.Fatal(err)
		}
		info, err := q.Inquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.MaxDepth != want.maxDepth || info.MaxMsgLength != want.maxMsgLen {
			t.Errorf("%s: MAXDEPTH %d MAXMSGL %d, want %d and %d", want.queue, info.MaxDepth, info.MaxMsgLength, want.maxDepth, want.maxMsgLen)
		}
	}
}

// TestUnknownQueueNamesTheKnownOnes: 2085 names the queues the queue
// manager has (local, alias, remote), as 2058 names the queue managers.
func TestUnknownQueueNamesTheKnownOnes(t *testing.T) {
	env := harness.New(t)
	conn, err := env.Backend.Connect(context.Background(), env.Target)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.OpenQueue(context.Background(), "DEV.QUEUE.9", mq.OpenOutput)
	want := `mq: MQOPEN DEV.QUEUE.9: MQRC_UNKNOWN_OBJECT_NAME (2085): queue manager QM1 has no queue "DEV.QUEUE.9"; ` +
		"it has DEV.ALIAS.1, DEV.DEAD.LETTER.QUEUE, DEV.QUEUE.1, DEV.QUEUE.2, DEV.QUEUE.3, DEV.REMOTE.1"
	if !mq.IsReason(err, mq.ReasonUnknownObjectName) || err.Error() != want {
		t.Errorf("open DEV.QUEUE.9: %v\nwant %s", err, want)
	}
}
