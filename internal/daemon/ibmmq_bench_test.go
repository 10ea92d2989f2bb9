//go:build ibmmq

package daemon_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
)

// With -tags ibmmq, BenchmarkProduceOverhead also measures the IBM MQ
// client adapter on the project's client stub, whose queues hold 5000
// messages (MAXDEPTH): ten commands of 5000 per round.
func init() {
	overheadCases = append(overheadCases, overheadCase{
		name: "ibmmq-stub", count: 5000, commands: 10,
		backend: func(*testing.B) mq.Backend { return ibmmq.New() },
	})
}
