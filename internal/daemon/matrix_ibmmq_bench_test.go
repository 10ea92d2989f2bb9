//go:build ibmmq

package daemon_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os/exec"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// matrixCell is one cell of the server-path matrix, laid out as IBM's MQ
// performance reports lay theirs out: persistence × messages per unit of
// work × message size.
type matrixCell struct {
	persistent   bool
	txSize, size int
}

// matrixCells are non-persistent and persistent × txSize 1 and 100 × 256 B,
// 2 KiB and 20 KiB.
var matrixCells = func() []matrixCell {
	var cells []matrixCell
	for _, persistent := range []bool{false, true} {
		for _, txSize := range []int{1, 100} {
			for _, size := range []int{256, 2048, 20480} {
				cells = append(cells, matrixCell{persistent, txSize, size})
			}
		}
	}
	return cells
}()

// String is the cell's sub-benchmark name: np-tx1-256B, p-tx100-20480B, ...
func (c matrixCell) String() string {
	persistence := "np"
	if c.persistent {
		persistence = "p"
	}
	return fmt.Sprintf("%s-tx%d-%dB", persistence, c.txSize, c.size)
}

// matrixQueue is where the matrix puts: its messages expire after 0.1 s
// (MQ's unit), so the queue (MAXDEPTH 50,000 here) never fills; a put that
// finds it full discards the expired ones, for the C loop and PRODUCE
// alike.
const matrixQueue = "DEV.QUEUE.1"

// putLoopArgs are the C put loop's arguments for n of the cell's messages.
func (c matrixCell) putLoopArgs(n int) []string {
	args := []string{"-q", matrixQueue, "-n", strconv.Itoa(n), "-t", strconv.Itoa(c.txSize), "-s", strconv.Itoa(c.size), "-e", "1"}
	if c.persistent {
		args = append(args, "-p")
	}
	return args
}

// produceBody is a PRODUCE of n of the cell's messages to target, as the
// C loop puts them.
func (c matrixCell) produceBody(target string, n int) string {
	persistence := "nonpersistent"
	if c.persistent {
		persistence = "persistent"
	}
	return fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":%d,"transaction":{"enabled":true,"txSize":%d}},"mqProps":{"persistence":%q,"expiryMs":100}}`,
		target, n, c.size, c.txSize, persistence)
}

// produceTimed runs one PRODUCE (body, of n messages) on p, fails b unless
// all n are enqueued, and returns how long the HTTP request took.
func produceTimed(b *testing.B, p *daemontest.Process, body string, n int) time.Duration {
	b.Helper()
	var res struct{ Enqueued int }
	start := time.Now()
	postJSON(b, p, "/messages/produce", body, http.StatusCreated, &res)
	took := time.Since(start)
	if res.Enqueued != n {
		b.Fatalf("%s: enqueued %d, want %d", p.Name, res.Enqueued, n)
	}
	return took
}

// matrixServerConfig is an mqserver configuration with a data directory,
// so persistent messages are journalled and fsynced at MQCMIT as IBM MQ's
// log makes them, and room on matrixQueue for 0.1 s of asynchronous puts
// (about 40,000 msg/s at 2 KiB here; MAXDEPTH 5,000 filled before its
// messages expired).
func matrixServerConfig(b *testing.B) string {
	return fmt.Sprintf(`dataDir: %q
queueManagers:
  - name: QM1
    maxBytes: 268435456
    queues:
      - name: %s
        maxDepth: 50000
      - name: DEV.QUEUE.2
      - name: DEV.QUEUE.3
      - name: DEV.DEAD.LETTER.QUEUE
`, b.TempDir(), matrixQueue)
}

// matrixLeg is about how long each leg of a cell (C loop, PRODUCE,
// PRODUCE async) runs per repetition: `make bench` has 45 minutes for
// everything, and the matrix has 12 cells × 3 legs × 3 repetitions (at
// 2 s a leg one repetition took 110 s on a loaded machine, 7 s a cell
// with the short runs that count the legs).
const matrixLeg = 1500 * time.Millisecond

// matrixProbe is the count of a leg's short first run, from which its
// count for about matrixLeg is taken (legCount): the legs' rates differ
// by two orders of magnitude (persistent txSize 1 makes an fsync per
// message, PRODUCE's checkpoint another).
func matrixProbe(c matrixCell) int { return max(200, 10*c.txSize) }

// legCount is the count, in whole units of work of txSize, that takes
// about matrixLeg at the rate of a run of probe messages that took took.
func legCount(probe int, took time.Duration, txSize int) int {
	perSecond := float64(probe) / max(took.Seconds(), 1e-3)
	units := int(perSecond*matrixLeg.Seconds()) / txSize
	return min(max(units, 2), 200_000/txSize) * txSize
}

// matrixTestRates are the rates (msg/s) TEST's round trips are measured at,
// each for matrixTestSeconds.
var matrixTestRates = []int{100, 1_000}

// matrixTests numbers the matrix's TEST commands across the process: with
// -count the benchmark runs again against daemons whose store keeps the
// earlier runs' records, which a reused key would replay.
var matrixTests atomic.Int64

const matrixTestSeconds = 3

// BenchmarkServerMatrix is the server path's throughput as IBM's MQ
// performance reports tabulate it: per cell (persistence × txSize × message
// size, see matrixCells), against one mqserver process with a data
// directory, three legs in turn: the C put loop (bench/putloop), a PRODUCE
// from a daemon putting synchronously (`targets.syncPut`, as the C loop
// does) and one from a daemon putting asynchronously (the default), each
// of about matrixLeg's worth of messages, counted from a short run of the
// same leg first (matrixProbe), each run from an empty queue. c-loop-msgs/s is the C loop's messages ÷ its own time from
// first MQPUT to last MQCMIT; produce-msgs/s and produce-async-msgs/s are
// PRODUCE's messages ÷ its HTTP request's time. Then TEST's round trips
// (put to get, 2 KiB non-persistent, through the synchronous daemon, on a
// queue of their own) at each of matrixTestRates for matrixTestSeconds:
// the result's p50-ms and p99-ms, and lost.
func BenchmarkServerMatrix(b *testing.B) {
	srv := daemontest.StartMQServerConfig(b, matrixServerConfig(b))
	// The benchmark empties the queue before each leg, over the client
	// library, so no leg pays for discarding another's expired messages.
	b.Setenv("MQSERVER", mqsimtest.Channel+"/TCP/"+srv.ConnName())
	client := ibmmq.New()
	syncVars := ibmmqProcessVars(srv)
	asyncVars := maps.Clone(syncVars)
	delete(asyncVars, "MQPROBE_TARGETS_SYNCPUT")
	syncDaemon, _ := daemontest.StartProcess(b, "matrix-sync", syncVars)
	defer syncDaemon.Stop(syscall.SIGTERM)
	asyncDaemon, _ := daemontest.StartProcess(b, "matrix-async", asyncVars)
	defer asyncDaemon.Stop(syscall.SIGTERM)
	target := srv.Target(matrixQueue)

	// Warm-up: the server's, the daemons' and the C loop's first
	// connections and buffers.
	warm := matrixCell{txSize: 100, size: 2048}
	daemontest.RunPutLoop(b, srv, nil, warm.putLoopArgs(1000)...)
	produceTimed(b, syncDaemon, warm.produceBody(target, 1000), 1000)
	produceTimed(b, asyncDaemon, warm.produceBody(target, 1000), 1000)

	for _, c := range matrixCells {
		b.Run(c.String(), func(b *testing.B) {
			putLoop := func(n int) time.Duration { return daemontest.RunPutLoop(b, srv, nil, c.putLoopArgs(n)...).Elapsed }
			produce := func(p *daemontest.Process) func(int) time.Duration {
				return func(n int) time.Duration { return produceTimed(b, p, c.produceBody(target, n), n) }
			}
			legs := []struct {
				unit string
				run  func(n int) time.Duration
			}{{"c-loop-msgs/s", putLoop}, {"produce-msgs/s", produce(syncDaemon)}, {"produce-async-msgs/s", produce(asyncDaemon)}}
			counts := make([]int, len(legs))
			for i, leg := range legs {
				probe := matrixProbe(c)
				drain(b, client, matrixQueue)
				counts[i] = legCount(probe, leg.run(probe), c.txSize)
			}
			took := make([]time.Duration, len(legs))
			for range b.N {
				for i, leg := range legs {
					drain(b, client, matrixQueue)
					took[i] += leg.run(counts[i])
				}
			}
			for i, leg := range legs {
				b.ReportMetric(float64(counts[i]*b.N)/took[i].Seconds(), leg.unit)
			}
		})
	}

	for _, rate := range matrixTestRates {
		b.Run(fmt.Sprintf("test-%d-per-sec", rate), func(b *testing.B) {
			var p50, p99, lost float64
			for range b.N {
				r := matrixTest(b, syncDaemon, srv.Target("DEV.QUEUE.3"), rate, fmt.Sprintf("matrix-test-%d-%d", rate, matrixTests.Add(1)))
				p50 += r.LatencyMs.P50
				p99 += r.LatencyMs.P99
				lost += float64(r.Lost)
			}
			b.ReportMetric(p50/float64(b.N), "p50-ms")
			b.ReportMetric(p99/float64(b.N), "p99-ms")
			b.ReportMetric(lost/float64(b.N), "lost")
		})
	}
}

// testRun is the part of a TEST's result the matrix reports.
type testRun struct {
	Sent, Lost int64
	LatencyMs  struct{ P50, P99 float64 }
}

// matrixTest runs one TEST of 2 KiB messages at rate for
// matrixTestSeconds on p and returns its result once it has completed.
func matrixTest(b *testing.B, p *daemontest.Process, target string, rate int, key string) testRun {
	b.Helper()
	body := fmt.Sprintf(`{%s,"durationSeconds":%d,"batch":{"messageSizeBytes":2048,"rateLimitPerSec":%d}}`, target, matrixTestSeconds, rate)
	if status, resp, err := daemontest.BenchPost(p.Base, "/tests", body, "Idempotency-Key", key); err != nil || status != http.StatusAccepted {
		b.Fatalf("%s POST /tests: %d %s %v", p.Name, status, resp, err)
	}
	var record struct {
		Status string
		Result testRun
	}
	var last []byte
	// The run ends after matrixTestSeconds, and its last probes are lost
	// only after 5 s more: a minute is ample even on a loaded machine.
	testenv.UntilEvery(time.Minute, 100*time.Millisecond, func() bool {
		status, resp, err := p.Get("/tests/" + key)
		if err != nil || status != http.StatusOK {
			return false
		}
		last = resp
		return json.Unmarshal(resp, &record) == nil && record.Status != "IN_PROGRESS"
	})
	if record.Status != "COMPLETED" || record.Result.Sent == 0 {
		b.Fatalf("%s TEST %s did not complete with probes sent: %.500s", p.Name, key, last)
	}
	return record.Result
}

// matrixCounted is N for a cell's instruction counts (2N − N, ÷ N, one
// pair): 500 at txSize 100, 5 units of work, so a commit's cost (the
// server's journal, the daemon's checkpoint) is in the figure at its
// share; 100 at txSize 1, where every message is a unit of work and the
// daemon's checkpoint (a SQLite write, about 270,000 instructions) makes
// each message 30 times dearer to count. The counts moved by at most 2%
// from process to process at N = 5,000 (see serverCountedPairs); these N
// keep the 12 cells' callgrind runs to about 3 minutes.
func matrixCounted(c matrixCell) int {
	if c.txSize == 1 {
		return 100
	}
	return 500
}

// BenchmarkServerMatrixInstructions counts, per cell of BenchmarkServerMatrix,
// with valgrind's callgrind, (instructions for 2N messages − for N) ÷ N,
// N = matrixCounted, one pair:
//
//   - "daemon-instructions/msg": the daemon process (synchronous puts, SQLite
//     records), over PRODUCEs, against an mqserver not under callgrind;
//   - "c-loop-instructions/msg": a C put loop process of 2N minus one of N;
//   - "server-instructions/msg" and "c-loop-server-instructions/msg": an
//     mqserver under callgrind, over PRODUCEs from a daemon not under
//     callgrind and over C loops.
//
// Each count follows a warm-up of the cell's messages in the same process.
func BenchmarkServerMatrixInstructions(b *testing.B) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		b.Fatalf("instructions/msg needs valgrind (callgrind) on PATH: %v", err)
	}
	srv := daemontest.StartMQServerConfig(b, matrixServerConfig(b))
	countedDaemon, daemonOut := startUnderCallgrind(b, "matrix-callgrind", ibmmqProcessVars(srv))
	defer countedDaemon.Stop(syscall.SIGTERM)

	wrapper, serverOut := callgrindWrapper(b)
	countedServer := daemontest.StartMQServerConfigUnder(b, matrixServerConfig(b), wrapper, goUnderCallgrind)
	defer countedServer.Down(b)
	daemon, _ := daemontest.StartProcess(b, "matrix-count-server", ibmmqProcessVars(countedServer))
	defer daemon.Stop(syscall.SIGTERM)

	for _, c := range matrixCells {
		b.Run(c.String(), func(b *testing.B) {
			warm := max(50, 2*c.txSize)
			produce := func(p *daemontest.Process, s *daemontest.MQServer) func(int) {
				return func(n int) { produceTimed(b, p, c.produceBody(s.Target(matrixQueue), n), n) }
			}
			putLoop := func(n int) { daemontest.RunPutLoop(b, countedServer, nil, c.putLoopArgs(n)...) }
			n := matrixCounted(c)
			figures := map[string]float64{}
			for range b.N {
				produce(countedDaemon, srv)(warm)
				figures["daemon-instructions/msg"] += countedPerMessage(b, countedDaemon.Cmd.Process.Pid, daemonOut, n, 1, produce(countedDaemon, srv))
				figures["c-loop-instructions/msg"] += putLoopInstructions(b, srv, n, c.putLoopArgs)
				produce(daemon, countedServer)(warm)
				figures["server-instructions/msg"] += countedPerMessage(b, countedServer.Pid(), serverOut, n, 1, produce(daemon, countedServer))
				putLoop(warm)
				figures["c-loop-server-instructions/msg"] += countedPerMessage(b, countedServer.Pid(), serverOut, n, 1, putLoop)
			}
			for unit, sum := range figures {
				b.ReportMetric(sum/float64(b.N), unit)
			}
		})
	}
}
