package executor_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	kind "github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/targets"
)

const (
	key        = "cmd-1"
	queue      = "DEV.QUEUE.1"
	lease      = 30 * time.Second // idempotency.lease
	retryDelay = 7 * time.Second  // bus.nackDelay: the longest a nack asks to wait
	rawBodyCap = 512              // results.maxRawBodyBytes
)

var quiet = slog.New(slog.DiscardHandler)

// fixture is one daemon's executor built as daemon.New builds it, over a
// memory store, the embedded queue manager and a recording publisher, plus
// a peer engine on the same store: another process, whose claims the tests
// start and never finish (a live or a crashed holder).
type fixture struct {
	t       *testing.T
	exec    *executor.Executor
	decoder *command.Decoder
	store   *memory.Store
	peer    *idempotency.Engine
	qm      *embedded.Backend
	mq      *countingBackend

	storeDown     atomic.Bool  // Begin fails as an unreachable store does
	failPublishes atomic.Int32 // the next n publishes fail

	mu        sync.Mutex
	published []result.Event      // events that reached the results destination
	claims    []idempotency.Claim // every claim the engine wrote

	// crashed is the lease of a holder that stopped heartbeating.
	crashed *idempotency.Lease
}

func newDecoder(t *testing.T) *command.Decoder {
	t.Helper()
	d, err := command.NewDecoder(command.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newFixture must run inside the test's synctest bubble: the engine, the
// lease heartbeats and the executor then share its fake clock.
func newFixture(t *testing.T, decoder *command.Decoder, replay executor.ReplayMode) *fixture {
	t.Helper()
	f := &fixture{t: t, decoder: decoder, store: memory.New(), qm: embedded.NewDefault()}
	f.mq = &countingBackend{Backend: f.qm}
	store := &storetest.Counting{Store: f.store, BeforeBegin: func(c idempotency.Claim) error {
		f.mu.Lock()
		f.claims = append(f.claims, c)
		f.mu.Unlock()
		if f.storeDown.Load() {
			return errors.New("dial tcp 10.0.0.7:5432: connect: connection refused")
		}
		return nil
	}}
	engine, err := idempotency.New(store, idempotency.Config{Lease: lease}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if f.peer, err = idempotency.New(f.store, idempotency.Config{Lease: lease}, quiet); err != nil {
		t.Fatal(err)
	}
	pool, err := mq.NewPool(f.mq, mq.PoolConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	ops, err := handlers.New(handlers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f.exec, err = executor.New(executor.Config{Source: "mqprobe/test", ReplayConfig: executor.ReplayConfig{Replay: replay},
		RejectedConfig: executor.RejectedConfig{MaxRawBodyBytes: rawBodyCap}, RetryConfig: executor.RetryConfig{RetryDelay: retryDelay}},
		executor.Deps{Decoder: decoder, Engine: engine, Handlers: ops.Handlers, Admit: ops.Admit,
			Targets: targets.NewResolver(targets.Config{AllowInline: true}), Conns: pool,
			Publisher: result.PublisherFunc(f.publish), Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) publish(_ context.Context, e result.Event) error {
	if f.failPublishes.Load() > 0 {
		f.failPublishes.Add(-1)
		return errors.New("sns: Publish: 503 Service Unavailable")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.published = append(f.published, e)
	return nil
}

func (f *fixture) events() []result.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.published)
}

// stored reads the record of a PRODUCE, expired or not.
func (f *fixture) stored(key string) (idempotency.Record, bool) {
	rec, ok, err := f.store.Get(context.Background(), idempotency.PK(string(command.Produce), "", key))
	if err != nil {
		f.t.Fatal(err)
	}
	return rec, ok
}

// depth is how many messages DEV.QUEUE.1 holds, read past the daemon.
func (f *fixture) depth() int {
	conn, err := f.qm.Connect(context.Background(), mq.Target{QueueManager: "QM1"})
	if err != nil {
		f.t.Fatal(err)
	}
	defer conn.Close()
	info, err := mq.InquireQueue(context.Background(), conn, queue)
	if err != nil {
		f.t.Fatal(err)
	}
	return info.CurrentDepth
}

// advance moves the bubble's fake clock: time.Sleep in a synctest bubble
// returns as soon as every goroutine in it is idle, nothing is waited for.
func (f *fixture) advance(d time.Duration) { time.Sleep(d) }

// completed runs msg to a completed result, as an earlier copy did.
func (f *fixture) completed(msg command.Input) {
	f.t.Helper()
	if out := f.exec.Execute(context.Background(), msg); out.Kind != kind.Completed || out.Unpublished {
		f.t.Fatalf("given: %s did not complete: %+v", msg.Body, out)
	}
}

// failedWith runs msg into a permanent MQ failure on its first put.
func (f *fixture) failedWith(msg command.Input, reason mq.Reason) {
	f.t.Helper()
	f.qm.Faults().FailNth(mq.VerbPut, 1, reason)
	if out := f.exec.Execute(context.Background(), msg); out.Kind != kind.Failed || out.Unpublished {
		f.t.Fatalf("given: %s did not fail permanently with %d: %+v", msg.Body, reason, out)
	}
}

// heldElsewhere makes another process claim msg and keep its lease
// without heartbeats: alive for a lease and its takeover grace, then crashed.
func (f *fixture) heldElsewhere(msg command.Input) {
	f.t.Helper()
	dec, err := f.decoder.Decode(msg)
	if err != nil {
		f.t.Fatal(err)
	}
	claim, err := f.peer.Begin(context.Background(), idempotency.Request{OperationType: string(dec.Command.OperationType),
		IdempotencyKey: dec.IdempotencyKey, RequestHash: dec.RequestHash, Target: "QM1:" + queue})
	if err != nil || claim.Outcome != idempotency.Acquired {
		f.t.Fatalf("given: another process could not claim %s: %v %v", msg.Body, claim.Outcome, err)
	}
	f.crashed = claim.Lease
}

// forget drops what the given steps published, so each delivery is judged
// on its own.
func (f *fixture) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.published = nil
}

// countingBackend counts the MQ calls that matter to "did it run": every
// command opens its queue, and PRODUCE puts.
type countingBackend struct {
	mq.Backend
	connects, opens, puts atomic.Int64
}

type mqCalls struct{ connects, opens, puts int64 }

func (b *countingBackend) calls() mqCalls {
	return mqCalls{b.connects.Load(), b.opens.Load(), b.puts.Load()}
}

func (b *countingBackend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	b.connects.Add(1)
	c, err := b.Backend.Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	return countingConn{c, b}, nil
}

type countingConn struct {
	mq.Conn
	b *countingBackend
}

func (c countingConn) OpenQueue(ctx context.Context, name string, opts mq.OpenOption) (mq.Queue, error) {
	c.b.opens.Add(1)
	q, err := c.Conn.OpenQueue(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return countingQueue{q, c.b}, nil
}

type countingQueue struct {
	mq.Queue
	b *countingBackend
}

func (q countingQueue) Put(ctx context.Context, msg *mq.Message, opts mq.PutOptions) (mq.PutResult, error) {
	q.b.puts.Add(1)
	return q.Queue.Put(ctx, msg, opts)
}

// produce is an SQS message carrying a PRODUCE of count messages to
// DEV.QUEUE.1 in one transaction, keyed by its Idempotency-Key attribute.
func produce(count int) command.Input { return produceTo(queue, count) }

func produceTo(q string, count int) command.Input {
	return busMessage(fmt.Sprintf(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":%q},`+
		`"batch":{"count":%d,"messageSizeBytes":16,"transaction":{"enabled":true,"txSize":%d}}}`, q, count, count))
}

func busMessage(body string) command.Input {
	return command.Input{Body: []byte(body), Transport: command.TransportBus, IdempotencyKey: key, MessageID: "sqs-msg-1"}
}

// withTTL is msg with an Idempotency-Expiry-Seconds attribute: its record
// expires that long after it completes.
func withTTL(msg command.Input, ttl time.Duration) command.Input {
	msg.ExpirySeconds = fmt.Sprint(int(ttl / time.Second))
	return msg
}
