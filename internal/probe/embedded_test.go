package probe

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

func newEmbeddedEnv(*testing.T) testEnv {
	b := embedded.NewDefault()
	return testEnv{
		backend:    b,
		target:     mq.Target{QueueManager: embedded.DefaultQueueManager},
		faults:     b.Faults(),
		queue:      "DEV.QUEUE.1",
		replyQueue: "DEV.QUEUE.2",
	}
}

func TestRunEmbedded(t *testing.T) { runBackendCases(t, newEmbeddedEnv) }

// BenchmarkProbeRate reports achieved/requested rate ("ratio": received
// per second of the run over Config.Rate) on the embedded queue manager.
// Each run lasts MQPROBE_BENCH_DURATION (default 10s), e.g.
//
//	MQPROBE_BENCH_DURATION=1s go test -run '^$' -bench ProbeRate ./internal/probe/
func BenchmarkProbeRate(b *testing.B) {
	duration := 10 * time.Second
	if v := os.Getenv("MQPROBE_BENCH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			b.Fatalf("MQPROBE_BENCH_DURATION=%q: want a positive Go duration such as 1s", v)
		}
		duration = d
	}
	for _, rate := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			env := newEmbeddedEnv(nil)
			pool, err := mq.NewPool(env.backend, mq.PoolConfig{})
			if err != nil {
				b.Fatalf("new pool: %v", err)
			}
			defer pool.Close()
			cfg := Config{Target: env.target, Queue: env.queue, Duration: duration, Rate: rate,
				Putters: 2, Getters: 2, MessageSize: 256}
			var st Stats
			for b.Loop() {
				if st, err = Run(context.Background(), pool, cfg, nil); err != nil {
					b.Fatalf("run: %v", err)
				}
			}
			if st.Lost != 0 || st.Duplicated != 0 || st.Received != st.Sent {
				b.Errorf("unclean run: %+v", st)
			}
			b.ReportMetric(float64(st.Received)/st.Elapsed.Seconds()/float64(rate), "ratio")
			b.ReportMetric(st.LatencyMs.P99, "p99-ms")
		})
	}
}
