package probe

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// BenchmarkProbePacing runs a TEST probe (one putter, one getter, as the
// TEST command does; 256-byte messages) on the embedded queue manager at
// 1,000, 10,000 and 50,000 msg/s and reports, from the time of every put
// seen by the backend (mqtest.Pacing):
//   - "ratio": achieved ÷ requested rate (SPEC goal: within 1%);
//   - "p99gap/interval": the 99th percentile gap between consecutive puts
//     over the nominal interval 1/rate (goal ≤ 2);
//   - "floor-p99gap/interval" at mqtest.FloorRate: the same figure for the
//     C pacer with nothing to do (mqtest.FloorPacing), run for as long
//     before each run: what the machine leaves any spinning program;
//   - "lost" and "duplicated" probes, over all b.N runs.
//
// Each run lasts MQPROBE_BENCH_DURATION (default 10s), e.g.
//
//	MQPROBE_BENCH_DURATION=1s go test -run '^$' -bench ProbePacing ./internal/probe/
func BenchmarkProbePacing(b *testing.B) {
	duration := benchDuration(b)
	for _, rate := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			var ratio, gap, floorGap, lost, duplicated float64
			for range b.N {
				if rate == mqtest.FloorRate {
					_, g := mqtest.Pacing(mqtest.FloorPacing(b, rate, duration), rate)
					floorGap += g
				}
				env := newEmbeddedEnv(nil)
				puts := mqtest.NewPutClock(rate*int(duration.Seconds()+1) + 1024)
				pool, err := mq.NewPool(mqtest.TimedBackend{Backend: env.backend, Clock: puts}, mq.PoolConfig{})
				if err != nil {
					b.Fatalf("new pool: %v", err)
				}
				cfg := Config{Target: env.target, Queue: env.queue, Duration: duration, Rate: rate, MessageSize: 256}
				st, err := Run(context.Background(), pool, cfg, nil)
				pool.Close()
				if err != nil {
					b.Fatalf("run: %v", err)
				}
				times := puts.Sorted()
				if int64(len(times)) != st.Sent || len(times) < 2 {
					b.Fatalf("backend saw %d puts, the run sent %d", len(times), st.Sent)
				}
				r, g := mqtest.Pacing(times, rate)
				ratio += r
				gap += g
				lost += float64(st.Lost)
				duplicated += float64(st.Duplicated)
			}
			b.ReportMetric(ratio/float64(b.N), "ratio")
			b.ReportMetric(gap/float64(b.N), "p99gap/interval")
			if rate == mqtest.FloorRate {
				b.ReportMetric(floorGap/float64(b.N), "floor-p99gap/interval")
			}
			b.ReportMetric(lost, "lost")
			b.ReportMetric(duplicated, "duplicated")
		})
	}
}

// benchDuration is MQPROBE_BENCH_DURATION, default 10s.
func benchDuration(b *testing.B) time.Duration {
	v := os.Getenv("MQPROBE_BENCH_DURATION")
	if v == "" {
		return 10 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("MQPROBE_BENCH_DURATION=%q: want a positive Go duration such as 1s", v)
	}
	return d
}
