package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// BenchmarkProducePacing: one HTTP PRODUCE of 2 KiB messages with
// rateLimitPerSec 1,000, 10,000 and 50,000, 10 s' worth of messages,
// through the daemon on its embedded default store (SQLite, a checkpoint
// every 100), while the queue is drained. From the time of every put seen
// by the backend (mqtest.Pacing) it reports "ratio", achieved ÷ requested
// rate (SPEC goal: within 1%), and "p99gap/interval", the 99th percentile
// gap between consecutive puts over 1/rate (goal ≤ 2). A PRODUCE still
// running at twice its nominal duration is cancelled (the client gives
// up) and measured on the puts it made: "completed" is the share of runs
// that finished; at mqtest.FloorRate "floor-p99gap/interval" is the gap
// figure of the C pacer with nothing to do, run for as long before each
// run (mqtest.FloorPacing). MQPROBE_BENCH_DURATION shortens the runs, e.g.
// 1s.
func BenchmarkProducePacing(b *testing.B) {
	seconds := 10
	if v := os.Getenv("MQPROBE_BENCH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			b.Fatalf("MQPROBE_BENCH_DURATION=%q: want a Go duration of at least 1s", v)
		}
		seconds = int(d / time.Second)
	}
	for _, rate := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			count := rate * seconds
			body := fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048,"rateLimitPerSec":%d}}`, daemontest.Target, count, rate)
			var ratio, gap, floorGap, completed float64
			for i := range b.N {
				if rate == mqtest.FloorRate {
					_, g := mqtest.Pacing(mqtest.FloorPacing(b, rate, time.Duration(seconds)*time.Second), rate)
					floorGap += g
				}
				backend := embedded.NewDefault()
				puts := mqtest.NewPutClock(count)
				h := daemontest.Start(b, func(s *daemontest.Setup) {
					s.Opts.Backend = mqtest.TimedBackend{Backend: backend, Clock: puts}
					s.Cfg.Idempotency.Store = config.StoreSQLite
					s.Cfg.Idempotency.SQLite.Path = b.TempDir() + "/bench.db"
					s.Opts.Store = nil
				})
				stopDrain := drainConcurrently(b, backend, "DEV.QUEUE.1")
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Duration(seconds)*time.Second)
				status, resp, err := daemontest.BenchPostContext(ctx, h.Base, "/messages/produce", body, "Idempotency-Key", fmt.Sprint("pacing-", i))
				timedOut := ctx.Err() != nil
				cancel()
				h.Shutdown()
				drained, drainErr := stopDrain()
				times := puts.Sorted()
				switch {
				case drainErr != nil:
					b.Fatal(drainErr)
				case timedOut:
					b.Logf("rate %d: PRODUCE of %d cancelled after %ds with %d put", rate, count, 2*seconds, len(times))
				case err != nil || status != http.StatusCreated:
					b.Fatalf("produce: %d %.300s %v", status, resp, err)
				case drained != count || len(times) != count:
					b.Fatalf("%d puts seen, %d drained, want %d", len(times), drained, count)
				default:
					completed++
				}
				if len(times) < 2 {
					b.Fatalf("rate %d: %d puts, too few to measure", rate, len(times))
				}
				r, g := mqtest.Pacing(times, rate)
				ratio += r
				gap += g
			}
			b.ReportMetric(ratio/float64(b.N), "ratio")
			b.ReportMetric(gap/float64(b.N), "p99gap/interval")
			if rate == mqtest.FloorRate {
				b.ReportMetric(floorGap/float64(b.N), "floor-p99gap/interval")
			}
			b.ReportMetric(completed/float64(b.N), "completed")
		})
	}
}

// drainPoll is how often drainConcurrently takes what has arrived.
const drainPoll = 10 * time.Millisecond

// drainConcurrently gets messages from queue until the returned stop is
// called and the queue is empty; stop returns how many it got. It models a
// consumer elsewhere taking the messages in batches, as a bridge or a
// CONSUME of maxMessages does: every drainPoll it gets what is there with
// no-wait gets. It is never woken by a put or a commit: a getter blocked in
// the in-process queue manager is woken by the putting goroutine, which on
// this 2-core machine costs the put 10–70 µs (most such puts), a cost a
// consumer in another process does not put on the producer. The queue
// holds at most a poll's worth of messages (500 at 50,000 msg/s).
func drainConcurrently(b *testing.B, backend mq.Backend, queue string) (stop func() (int, error)) {
	conn, q := open(b, backend, queue, mq.OpenInputShared)
	var stopping atomic.Bool
	type outcome struct {
		n   int
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer conn.Close()
		defer q.Close()
		poll := time.NewTicker(drainPoll)
		defer poll.Stop()
		var msg mq.Message
		n := 0
		for {
			err := q.Get(context.Background(), &msg, mq.GetOptions{})
			switch {
			case err == nil:
				n++
				continue
			case !mq.IsReason(err, mq.ReasonNoMsgAvailable):
				done <- outcome{n, fmt.Errorf("drain %s: %w", queue, err)}
				return
			case stopping.Load():
				done <- outcome{n, nil}
				return
			}
			<-poll.C
		}
	}()
	return func() (int, error) {
		stopping.Store(true)
		select {
		case o := <-done:
			return o.n, o.err
		case <-time.After(time.Minute):
			return 0, errors.New("drain did not end within a minute")
		}
	}
}
