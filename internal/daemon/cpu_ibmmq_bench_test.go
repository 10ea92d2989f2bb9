//go:build ibmmq

package daemon_test

import (
	"maps"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// With -tags ibmmq, BenchmarkProduceCPU also measures the daemon on the IBM
// MQ client (the project's client library), over TCP to the project's queue
// manager server in a process of its own — the layout of a real client —
// so only the client's instructions are counted.
func init() {
	cpuCases = append(cpuCases, cpuCase{
		name: "ibmmq-server",
		setup: func(b *testing.B) (map[string]string, string) {
			srv := daemontest.StartMQServer(b)
			vars := maps.Clone(embeddedProcessVars)
			maps.Copy(vars, map[string]string{"MQPROBE_MQ_BACKEND": "ibmmq", "MQPROBE_TARGETS_INLINE_HOSTS": "127.0.0.1:" + srv.Port})
			return vars, srv.Target("DEV.QUEUE.1")
		},
		counted: 5_000, timed: 200_000,
	})
}
