//go:build ibmmq

package daemon_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// With -tags ibmmq, BenchmarkProduceOverhead also measures the IBM MQ
// client adapter and its client library over TCP to the project's queue
// manager server, whose queues hold 5000 messages (MAXDEPTH): ten commands
// of 5000 per round. ibmmq-stub serves it in the benchmark's own process;
// ibmmq-mqserver runs it as its own process (`mqserver`), the layout IBM MQ
// clients have with a queue manager.
func init() {
	overheadCases = append(overheadCases,
		overheadCase{
			name: "ibmmq-stub", count: 5000, commands: 10,
			backend: func(b *testing.B) (mq.Backend, *daemontest.MQServer) {
				srv := mqsimtest.Start(b)
				b.Setenv("MQSERVER", srv.MQSERVER()) // the benchmark's targets name no host
				return ibmmq.New(), nil
			},
		},
		overheadCase{
			name: "ibmmq-mqserver", count: 5000, commands: 10,
			backend: func(b *testing.B) (mq.Backend, *daemontest.MQServer) {
				srv := daemontest.StartMQServer(b)
				b.Setenv("MQSERVER", mqsimtest.Channel+"/TCP/"+srv.ConnName())
				return ibmmq.New(), srv
			},
		})
}
