package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// open connects to QM1 directly, bypassing the daemon, and opens queue.
func open(b testing.TB, backend mq.Backend, queue string, opts mq.OpenOption) (mq.Conn, mq.Queue) {
	ctx := context.Background()
	conn, err := backend.Connect(ctx, mq.Target{QueueManager: "QM1"})
	if err != nil {
		b.Fatal(err)
	}
	q, err := conn.OpenQueue(ctx, queue, opts)
	if err != nil {
		conn.Close()
		b.Fatal(err)
	}
	return conn, q
}

// bareProduce puts n 2 KiB non-persistent messages committing every 100:
// the loop PRODUCE is measured against.
func bareProduce(b *testing.B, backend mq.Backend, queue string, n int) time.Duration {
	ctx := context.Background()
	conn, q := open(b, backend, queue, mq.OpenOutput)
	defer conn.Close()
	defer q.Close()
	msg := &mq.Message{Payload: make([]byte, 2048)}
	start := time.Now()
	for i := 1; i <= n; i++ {
		msg.MsgID = mq.ID{}
		if _, err := q.Put(ctx, msg, mq.PutOptions{Syncpoint: true}); err != nil {
			b.Fatal(err)
		}
		if i%100 == 0 {
			if err := conn.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := conn.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// drain empties queue between iterations.
func drain(b *testing.B, backend mq.Backend, queue string) {
	ctx := context.Background()
	conn, q := open(b, backend, queue, mq.OpenInputShared)
	defer conn.Close()
	defer q.Close()
	msg := &mq.Message{}
	for {
		err := q.Get(ctx, msg, mq.GetOptions{})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProduceOverhead: one HTTP PRODUCE of 100,000 × 2 KiB through the
// whole daemon against the bare put loop on the same embedded backend, in
// the same run. ratio = PRODUCE msgs/s ÷ bare msgs/s (goal ≥ 0.90).
func BenchmarkProduceOverhead(b *testing.B) {
	const n = 100_000
	backend, err := embedded.New(embedded.Config{QueueManagers: []embedded.QueueManagerConfig{{
		Name: "QM1", Queues: []embedded.QueueConfig{{Name: "DEV.QUEUE.1", MaxDepth: n}, {Name: "DEV.QUEUE.2", MaxDepth: n}}}}})
	if err != nil {
		b.Fatal(err)
	}
	h := start(b, func(s *setup) { s.opts.Backend = backend })
	body := fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048,"transaction":{"enabled":true,"txSize":100}}}`, target, n)
	round := func(i int) (bare, produce time.Duration) {
		// Each leg starts from empty queues, so neither pays for the
		// other's messages on the heap.
		drain(b, backend, "DEV.QUEUE.1")
		bare = bareProduce(b, backend, "DEV.QUEUE.2", n)
		drain(b, backend, "DEV.QUEUE.2")
		startAt := time.Now()
		r := h.post("/messages/produce", body, "Idempotency-Key", fmt.Sprint("bench-", i))
		produce = time.Since(startAt)
		if r.status != http.StatusCreated {
			b.Fatalf("produce: %d %s", r.status, r.body)
		}
		return bare, produce
	}
	round(-1) // warm the heap and the queue manager's buffers
	var bareTotal, produceTotal time.Duration
	ratios := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		bare, produce := round(i)
		bareTotal += bare
		produceTotal += produce
		ratios = append(ratios, bare.Seconds()/produce.Seconds())
	}
	b.StopTimer()
	sort.Float64s(ratios)
	b.ReportMetric(float64(n*b.N)/bareTotal.Seconds(), "bare-msgs/s")
	b.ReportMetric(float64(n*b.N)/produceTotal.Seconds(), "produce-msgs/s")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}

// BenchmarkDepthCommands: DEPTH commands per second over HTTP at
// concurrency 1 and 16, with idempotency (SQLite, the embedded default)
// and without.
func BenchmarkDepthCommands(b *testing.B) {
	for _, conc := range []int{1, 16} {
		for _, dedupe := range []bool{true, false} {
			name := fmt.Sprintf("c%d/idempotency=%v", conc, dedupe)
			b.Run(name, func(b *testing.B) {
				h := start(b, func(s *setup) {
					s.cfg.Idempotency.Enabled = dedupe
					s.cfg.Idempotency.Store = config.StoreSQLite
					s.cfg.Idempotency.SQLite.Path = b.TempDir() + "/bench.db"
					s.opts.Store = nil
				})
				body := `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				startAt := time.Now()
				for range conc {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for next.Add(1) <= int64(b.N) {
							if r := h.post("/queue/depth", body); r.status != http.StatusOK {
								b.Errorf("depth: %d %s", r.status, r.body)
								return
							}
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(float64(b.N)/time.Since(startAt).Seconds(), "commands/s")
			})
		}
	}
}
