//go:build ibmmq

package daemon_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq/ibmmqtest"
)

// With -tags ibmmq, BenchmarkProduceOverhead also measures the IBM MQ
// client adapter and its client library, over TCP to a queue manager
// server in this process whose queues hold 5000 messages (MAXDEPTH): ten
// commands of 5000 per round.
func init() {
	overheadCases = append(overheadCases, overheadCase{
		name: "ibmmq-stub", count: 5000, commands: 10,
		backend: func(b *testing.B) mq.Backend {
			srv := ibmmqtest.Start(b)
			b.Setenv("MQSERVER", srv.MQSERVER()) // the benchmark's targets name no host
			return ibmmq.New()
		},
	})
}
