//go:build ibmmq

package e2e_test

import (
	"fmt"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// BenchmarkDepthCommandsServer is BenchmarkDepthCommands on the server
// path: the daemon (in this process) on the IBM MQ client — the project's
// client library — over TCP to one mqserver process its cases share, with
// idempotency on SQLite (synchronous=FULL, the default) and disabled, at
// concurrency 1 and 16. A DEPTH borrows a pooled connection (mq.pool's
// defaults: at most 8 per target, 2 kept idle) and makes ten MQI calls on
// it, each a round trip to the server: MQOPEN, two MQINQ and MQCLOSE of the
// queue, then the command server's INQUIRE_Q_STATUS (MQOPEN of its queue
// and of a model reply queue, MQPUT, MQGET, two MQCLOSE). It also reports
// the connections made per command (connects/cmd): the pool keeps 2 idle,
// so commands released together beyond that reconnect.
func BenchmarkDepthCommandsServer(b *testing.B) {
	srv := daemontest.StartMQServer(b)
	b.Setenv("MQSERVER", mqsimtest.Channel+"/TCP/"+srv.ConnName()) // the command names no host
	for _, st := range []depthStore{sqliteFullStore, noStore} {
		for _, conc := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/c%d", st.name, conc), func(b *testing.B) {
				backend := &mqtest.CountingBackend{Backend: ibmmq.New()}
				h := daemontest.Start(b, func(s *daemontest.Setup) {
					s.Opts.Backend = backend
					st.set(b, &s.Cfg.Idempotency)
					s.Opts.Store = nil
				})
				before := backend.Connects.Load()
				depthClosedLoop(b, h.Base, conc)
				b.ReportMetric(float64(backend.Connects.Load()-before)/float64(b.N), "connects/cmd")
			})
		}
	}
}
