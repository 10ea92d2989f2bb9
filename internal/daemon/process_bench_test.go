package daemon_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// The benchmarks here run real `mqprobe run` processes (the binary
// daemontest.Binary builds), each in a fresh directory on a free loopback
// port: peak memory and start-up are properties of a process, and end to
// end means what a user runs.

// embeddedProcessVars is the embedded default: nothing set but quiet logs.
var embeddedProcessVars = map[string]string{"MQPROBE_LOG_LEVEL": "warn"}

// peakRSSMiB is the process's peak resident set size (VmHWM), in MiB.
func peakRSSMiB(b *testing.B, p *daemontest.Process) float64 {
	b.Helper()
	_, peak, err := p.Memory()
	if err != nil {
		b.Fatal(err)
	}
	return peak
}

// postJSON posts body to p and decodes the answer's result into out; any
// status but want fails b.
func postJSON(b *testing.B, p *daemontest.Process, path, body string, want int, out any) {
	b.Helper()
	status, resp, err := daemontest.BenchPost(p.Base, path, body)
	if err != nil || status != want {
		b.Fatalf("%s %s: %d %s %v", p.Name, path, status, resp, err)
	}
	var env struct{ Result json.RawMessage }
	if err := json.Unmarshal(resp, &env); err != nil || json.Unmarshal(env.Result, out) != nil {
		b.Fatalf("%s %s: unexpected answer %.300s (%v)", p.Name, path, resp, err)
	}
}

// BenchmarkPeakRSS runs one workload per process and reports the process's
// peak RSS ("peak-RSS-MiB"; SPEC §7.1: constant memory whatever count is)
// and its peak when it was first ready ("ready-RSS-MiB").
//
//   - produce-1M: one PRODUCE of 1,000,000 × 2 KiB. The in-process queue
//     manager holds MAXDEPTH 5000 messages, so they are put with expiryMs 1
//     and expire as a remote consumer would take them; the queue itself
//     (≤ 5000 × 2 KiB) counts in the figure.
//   - consume-1M: 200 CONSUMEs of 5000 (the queue's depth; one unit of
//     work each), capture capped at the default 128 KiB per command, each
//     after a PRODUCE of 5000 fills the queue.
func BenchmarkPeakRSS(b *testing.B) {
	const queue = `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}`
	workloads := []struct {
		name string
		run  func(b *testing.B, p *daemontest.Process)
	}{
		{"produce-1M", func(b *testing.B, p *daemontest.Process) {
			var res struct{ Enqueued int }
			postJSON(b, p, "/messages/produce", `{`+queue+`,"batch":{"count":1000000,"messageSizeBytes":2048},"mqProps":{"expiryMs":1}}`, http.StatusCreated, &res)
			if res.Enqueued != 1_000_000 {
				b.Fatalf("enqueued %d, want 1000000", res.Enqueued)
			}
		}},
		{"consume-1M", func(b *testing.B, p *daemontest.Process) {
			const rounds, per = 200, 5000
			for i := range rounds {
				var put struct{ Enqueued int }
				postJSON(b, p, "/messages/produce", fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048}}`, queue, per), http.StatusCreated, &put)
				var got struct {
					Received  int
					Truncated bool
				}
				postJSON(b, p, "/messages/consume", fmt.Sprintf(`{%s,"maxMessages":%d,"waitSeconds":0,"transaction":{"txSize":%d}}`, queue, per, per), http.StatusOK, &got)
				if put.Enqueued != per || got.Received != per || !got.Truncated {
					b.Fatalf("round %d: enqueued %d, received %d (truncated %v), want %d each, capture capped", i, put.Enqueued, got.Received, got.Truncated, per)
				}
			}
		}},
	}
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			var peak, ready float64
			for i := range b.N {
				p, _ := daemontest.StartProcess(b, fmt.Sprintf("rss-%s-%d", w.name, i), embeddedProcessVars)
				ready += peakRSSMiB(b, p)
				w.run(b, p)
				peak += peakRSSMiB(b, p)
				p.Stop(syscall.SIGTERM)
			}
			b.ReportMetric(peak/float64(b.N), "peak-RSS-MiB")
			b.ReportMetric(ready/float64(b.N), "ready-RSS-MiB")
		})
	}
}

// BenchmarkStartup: from starting `mqprobe run` on the embedded default
// (fresh directory: the SQLite database is created) to the first 200 from
// /health/ready ("startup-ms", the mean over b.N starts).
func BenchmarkStartup(b *testing.B) {
	var total time.Duration
	for i := range b.N {
		p, took := daemontest.StartProcess(b, fmt.Sprintf("startup-%d", i), embeddedProcessVars)
		total += took
		p.Stop(syscall.SIGTERM)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "startup-ms")
}

// BenchmarkEndToEndEmbedded: DEPTH commands per second over HTTP against
// one embedded-default process (SQLite records), with 1, 8 and 32 commands
// in flight.
func BenchmarkEndToEndEmbedded(b *testing.B) {
	p, _ := daemontest.StartProcess(b, "e2e-embedded", embeddedProcessVars)
	body := `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	var seq atomic.Int64
	for _, conc := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			daemontest.ClosedLoop(b, conc, b.N, func() error {
				status, resp, err := daemontest.BenchPost(p.Base, "/queue/depth", body, "Idempotency-Key", fmt.Sprint("e2e-", seq.Add(1)))
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("depth: %d %s", status, resp)
				}
				return err
			})
		})
	}
}
