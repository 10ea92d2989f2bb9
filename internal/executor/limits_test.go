package executor_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// newLimitedFixture is newFixture over a memory store holding records of
// at most maxRecordBytes, with handlers that do not know the limit (as a
// store whose limit was misjudged): the store is the last word.
func newLimitedFixture(t *testing.T, maxRecordBytes int) *fixture {
	t.Helper()
	f := &fixture{t: t, decoder: newDecoder(t), store: memory.NewWithLimit(maxRecordBytes), qm: embedded.NewDefault()}
	f.mq = &countingBackend{Backend: f.qm}
	engine, err := idempotency.New(f.store, idempotency.Config{Lease: lease}, quiet)
	if err != nil {
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
	f.exec, err = executor.New(executor.Config{Source: "mqprobe/test",
		RejectedConfig: executor.RejectedConfig{MaxRawBodyBytes: rawBodyCap}, RetryConfig: executor.RetryConfig{RetryDelay: retryDelay}},
		executor.Deps{Decoder: f.decoder, Engine: engine, Handlers: ops.Handlers, Admit: ops.Admit,
			Targets: targets.NewResolver(targets.Config{AllowInline: true}), Conns: pool,
			Publisher: result.PublisherFunc(f.publish), Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestResultTooLargeForTheStoreFails: a result the store refuses for good
// (over its record limit) ends the command FAILED, published and acked,
// with an error naming the store and the rule; never a 503 left for a
// redelivery that would meet the same refusal.
func TestResultTooLargeForTheStoreFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newLimitedFixture(t, 16*1024)
		conn, err := f.qm.Connect(context.Background(), mq.Target{QueueManager: "QM1"})
		if err != nil {
			t.Fatal(err)
		}
		q, err := conn.OpenQueue(context.Background(), queue, mq.OpenOutput)
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			if _, err := q.Put(context.Background(), &mq.Message{Payload: []byte("x")}, mq.PutOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		q.Close()
		conn.Close()
		// ack rollback: no checkpoint, so the first write over the limit is the completion.
		body := f.failedBody(busMessage(fmt.Sprintf(`{"operationType":"CONSUME","target":{"queueManager":"QM1","queue":%q},`+
			`"maxMessages":200,"waitSeconds":0,"ack":"rollback"}`, queue)))
		if body.Error == nil || !strings.Contains(body.Error.Message, "memory idempotency store") || !strings.Contains(body.Error.Message, "at most 16384 bytes") {
			t.Fatalf("error %+v, want one naming the store and its limit", body.Error)
		}
		rec, ok, err := f.store.Get(context.Background(), idempotency.PK(string(command.Consume), "", body.IdempotencyKey))
		if err != nil || !ok || rec.Status != idempotency.StatusFailed {
			t.Fatalf("record %v %v %s, want FAILED", ok, err, rec.Status)
		}
		if f.depth() != 200 {
			t.Errorf("queue holds %d, want the 200 backed out", f.depth())
		}
	})
}
