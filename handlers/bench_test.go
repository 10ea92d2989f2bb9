package handlers

import (
	"context"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// Benchmark shape (as the backend benchmarks): 2 KiB non-persistent
// messages committed every 100, in rounds of 1000 so the queue never fills;
// draining between rounds is not timed.
const (
	benchSize   = 2048
	benchTxSize = 100
	benchRound  = 1000
)

// BenchmarkProduce compares the PRODUCE handler (pacing check, payload
// stamping, latency histogram, checkpoints, one acquire and open per
// command) with a bare put loop on one open queue.
func BenchmarkProduce(b *testing.B) {
	b.Run("handler", func(b *testing.B) {
		f := newFixture(b)
		cmd := produceCmd(benchRound, benchSize, true, benchTxSize)
		run := f.run(cmd)
		run.Checkpoint = func(context.Context, string) error { return nil }
		run.Live = new(inflight.Counters) // as the executor runs it
		benchRounds(b, f, func(n int) {
			cmd.Batch.Count = n
			if _, err := produce(f.ctx, run); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("bare", func(b *testing.B) { benchBare(b, false) })
	// bare+latency also times each put into a histogram, the one cost the
	// handler cannot shed: a clock read is ~30 ns here, an embedded put ~180.
	b.Run("bare+latency", func(b *testing.B) { benchBare(b, true) })
}

// benchBare puts and commits on one open queue of a pooled connection (as
// the handler's), nothing else.
func benchBare(b *testing.B, timed bool) {
	f := newFixture(b)
	conn, err := f.pool.Acquire(f.ctx, f.target)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	q, err := conn.OpenQueue(f.ctx, testQueue, mq.OpenOutput)
	if err != nil {
		b.Fatal(err)
	}
	msg := &mq.Message{Payload: make([]byte, benchSize)}
	lat := newLatency()
	base := time.Now()
	mark := time.Since(base) // one monotonic clock read per put: the end of one is the start of the next
	benchRounds(b, f, func(n int) {
		for i := 1; i <= n; i++ {
			if _, err := q.Put(f.ctx, msg, mq.PutOptions{Syncpoint: true}); err != nil {
				b.Fatal(err)
			}
			if timed {
				now := time.Since(base)
				lat.record(now - mark)
				mark = now
			}
			if i%benchTxSize == 0 || i == n {
				if err := conn.Commit(f.ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// benchRounds calls put with counts adding up to b.N, emptying the queue
// between calls off the clock, and reports msgs/s.
func benchRounds(b *testing.B, f *fixture, put func(n int)) {
	drain := f.conn()
	in, err := drain.OpenQueue(f.ctx, testQueue, mq.OpenInputShared)
	if err != nil {
		b.Fatal(err)
	}
	var msg mq.Message
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(benchRound, b.N-done)
		put(n)
		done += n
		b.StopTimer()
		for in.Get(f.ctx, &msg, mq.GetOptions{}) == nil {
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
