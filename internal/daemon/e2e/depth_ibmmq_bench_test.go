//go:build ibmmq

package e2e_test

import (
	"fmt"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// BenchmarkDepthCommandsServer is BenchmarkDepthCommands on the server
// path: DEPTH over HTTP through daemons (in this process) on the IBM MQ
// client — the project's client library — over TCP to one mqserver
// process, at concurrency 1 and 16, the daemon with idempotency on SQLite
// (synchronous=FULL, the default) taking turns with one without against
// the same server (alternateDepth). A DEPTH borrows a pooled connection
// (mq.pool's defaults: at most 8 per target, 2 kept idle, so commands
// released together beyond 2 reconnect) and makes six MQI calls on it,
// each a round trip to the server: MQOPEN, two MQINQ and MQCLOSE of the
// queue, then the command server's INQUIRE_Q_STATUS (MQPUT, MQGET; the
// command and reply queues stay open on the connection from its first
// inquiry).
func BenchmarkDepthCommandsServer(b *testing.B) {
	srv := daemontest.StartMQServer(b)
	b.Setenv("MQSERVER", mqsimtest.Channel+"/TCP/"+srv.ConnName()) // the command names no host
	for _, conc := range []int{1, 16} {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			client := func() mq.Backend { return ibmmq.New() }
			alternateDepth(b, conc, startDepthDaemon(b, sqliteFullStore, client), startDepthDaemon(b, noStore, client))
		})
	}
}
