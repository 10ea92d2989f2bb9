//go:build ibmmq

package e2e_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// depthServerLeg is how many DEPTH commands one daemon runs before the
// other takes its turn: about a second at this machine's rates.
const depthServerLeg = 250

// BenchmarkDepthCommandsServer is BenchmarkDepthCommands on the server
// path: DEPTH over HTTP through daemons (in this process) on the IBM MQ
// client — the project's client library — over TCP to one mqserver
// process, at concurrency 1 and 16. Two daemons, one with idempotency on
// SQLite (synchronous=FULL, the default) and one with it disabled, take
// turns of depthServerLeg commands against the same server, the first
// turn alternating from round to round, so that a machine whose load
// changes during the run weighs on both alike; each b.N is one round of
// two turns. It reports either daemon's cmds/s over its turns, ratio
// (with ÷ without), and the connections each made per command. A DEPTH
// borrows a pooled connection (mq.pool's defaults: at most 8 per target, 2
// kept idle, so commands released together beyond 2 reconnect) and makes
// ten MQI calls on it, each a round trip to the server: MQOPEN, two MQINQ
// and MQCLOSE of the queue, then the command server's INQUIRE_Q_STATUS
// (MQOPEN of its queue and of a model reply queue, MQPUT, MQGET, two
// MQCLOSE).
func BenchmarkDepthCommandsServer(b *testing.B) {
	srv := daemontest.StartMQServer(b)
	b.Setenv("MQSERVER", mqsimtest.Channel+"/TCP/"+srv.ConnName()) // the command names no host
	for _, conc := range []int{1, 16} {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			with, without := startDepthDaemon(b, sqliteFullStore), startDepthDaemon(b, noStore)
			for _, d := range []*depthDaemon{with, without} { // warm the pools
				d.leg(b, conc)
				d.took, d.commands, d.connects = 0, 0, 0
			}
			b.ResetTimer()
			for round := range b.N {
				first, second := with, without
				if round%2 == 1 {
					first, second = without, with
				}
				first.leg(b, conc)
				second.leg(b, conc)
			}
			b.StopTimer()
			for _, d := range []*depthDaemon{with, without} {
				b.ReportMetric(d.rate(), d.store+"-cmds/s")
				b.ReportMetric(float64(d.connects)/float64(d.commands), d.store+"-connects/cmd")
			}
			b.ReportMetric(with.rate()/without.rate(), "ratio")
		})
	}
}

// depthDaemon is one of BenchmarkDepthCommandsServer's daemons and what
// its turns have measured.
type depthDaemon struct {
	store    string
	base     string
	backend  *mqtest.CountingBackend
	took     time.Duration
	commands int
	connects int64
}

func startDepthDaemon(b *testing.B, st depthStore) *depthDaemon {
	b.Helper()
	d := &depthDaemon{store: st.name, backend: &mqtest.CountingBackend{Backend: ibmmq.New()}}
	d.base = daemontest.Start(b, func(s *daemontest.Setup) {
		s.Opts.Backend = d.backend
		st.set(b, &s.Cfg.Idempotency)
		s.Opts.Store = nil
	}).Base
	return d
}

// leg runs one turn of depthServerLeg commands, conc in flight.
func (d *depthDaemon) leg(b *testing.B, conc int) {
	b.Helper()
	before := d.backend.Connects.Load()
	took, err := daemontest.TimeClosedLoop(conc, depthServerLeg, postDepth(d.base))
	if err != nil {
		b.Fatalf("%s: %v", d.store, err)
	}
	d.took += took
	d.commands += depthServerLeg
	d.connects += d.backend.Connects.Load() - before
}

func (d *depthDaemon) rate() float64 { return float64(d.commands) / d.took.Seconds() }
