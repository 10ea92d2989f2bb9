package daemon_test

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// baselineCommit is the tree the end-to-end goal is measured against: the
// last commit before durable group commit, per-backend checkpoints and
// non-recording spans, whose embedded default ran one SQLite statement per
// transaction with synchronous=NORMAL.
const baselineCommit = "55fc48119974ec61966b573a1800a842b08cf7c3"

// baselineLegCommands is how many DEPTH commands one leg sends: about a
// second at the baseline's rate, so the two processes alternate often.
const baselineLegCommands = 3000

// baselineAttempts bounds the sends of one command answered 503.
const baselineAttempts = 3

// BenchmarkEndToEndBaseline: DEPTH commands per second over HTTP with 32 in
// flight against two embedded-default processes, this tree's binary and
// the baseline commit's, in legs that alternate (one process loaded at a
// time) so both see the same machine. It reports this tree's rate
// ("cmds/s"), the baseline's ("baseline-cmds/s") and their ratio
// ("ratio", goal ≥ 2).
func BenchmarkEndToEndBaseline(b *testing.B) {
	baseline := daemontest.BuildAt(b, baselineCommit)
	current, _ := daemontest.StartProcess(b, "e2e-current", embeddedProcessVars)
	previous, _ := daemontest.StartBinary(b, baseline, "e2e-baseline", embeddedProcessVars)
	body := `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	var seq atomic.Int64
	leg := func(p *daemontest.Process, conc int) time.Duration {
		elapsed, err := daemontest.TimeClosedLoop(conc, baselineLegCommands, func() error {
			key := fmt.Sprint("e2e-baseline-", seq.Add(1))
			// A 503 asks the client to send the command again, as a
			// client does: the baseline commit's daemon answers one now
			// and then under this load (its lease lost at completion).
			for attempt := 1; ; attempt++ {
				status, resp, err := daemontest.BenchPost(p.Base, "/queue/depth", body, "Idempotency-Key", key)
				if err == nil && status == http.StatusServiceUnavailable && attempt < baselineAttempts {
					continue
				}
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("%s depth: %d %s", p.Name, status, resp)
				}
				return err
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		return elapsed
	}
	for _, conc := range []int{32} {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			leg(previous, conc) // warm both: connections, statements, the heap
			leg(current, conc)
			var previousTotal, currentTotal time.Duration
			b.ResetTimer()
			for i := range b.N {
				// Alternate which goes first: neither always follows the
				// other's checkpoint of the WAL.
				if i%2 == 0 {
					previousTotal += leg(previous, conc)
					currentTotal += leg(current, conc)
				} else {
					currentTotal += leg(current, conc)
					previousTotal += leg(previous, conc)
				}
			}
			b.StopTimer()
			n := float64(baselineLegCommands * b.N)
			b.ReportMetric(n/currentTotal.Seconds(), "cmds/s")
			b.ReportMetric(n/previousTotal.Seconds(), "baseline-cmds/s")
			b.ReportMetric(previousTotal.Seconds()/currentTotal.Seconds(), "ratio")
		})
	}
}
