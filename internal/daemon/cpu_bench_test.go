package daemon_test

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// cpuCase is one backend of BenchmarkProduceCPU: the daemon process's
// settings and the JSON "target" member of its PRODUCE commands.
type cpuCase struct {
	name string
	// setup starts what the backend needs outside the daemon (a queue
	// manager server) and returns the daemon's settings and target, and
	// more (nil: none), which measures the case's other figures once per
	// repetition, by unit.
	setup func(b *testing.B) (vars map[string]string, target string, more func(b *testing.B) map[string]float64)
	// counted is N for the instruction count (PRODUCEs of N and 2N under
	// callgrind); timed is the PRODUCE whose CPU time is read, 0 for none.
	counted, timed int
}

// cpuCases lists the backends of this build; -tags ibmmq adds the IBM MQ
// client against the project's queue manager server (cpu_ibmmq_bench_test.go).
var cpuCases = []cpuCase{{
	name: "embedded",
	setup: func(*testing.B) (map[string]string, string, func(*testing.B) map[string]float64) {
		return embeddedProcessVars, `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}`, nil
	},
	counted: 20_000, timed: 500_000,
}}

// BenchmarkProduceCPU is the CPU one PRODUCE message costs the daemon
// process (`mqprobe run`, SQLite records), per backend, as two figures that
// do not depend on how busy the machine is:
//
//   - "instructions/msg": instructions the process executes, counted by
//     valgrind's callgrind, for a PRODUCE of 2N messages minus one of N,
//     divided by N (the median of three such pairs in one process), with
//     the garbage collector off. The difference cancels what a command costs whatever
//     its count (HTTP, claim, completion, result event). Only the daemon
//     is counted: a queue manager server runs in a process of its own.
//   - "cpu-ns/msg": user+system CPU time of the process (/proc/<pid>/stat)
//     over one PRODUCE of many messages, divided by their number.
//
// Messages are 2 KiB, non-persistent, committed every 100, and expire after
// 1 ms so the queue (MAXDEPTH 5000) never fills. Each measurement follows a
// warm-up PRODUCE in the same process.
func BenchmarkProduceCPU(b *testing.B) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		b.Fatalf("instructions/msg needs valgrind (callgrind) on PATH: %v", err)
	}
	for _, c := range cpuCases {
		b.Run(c.name, func(b *testing.B) {
			vars, target, more := c.setup(b)
			var instructions, cpuNs float64
			sums := map[string]float64{}
			for i := range b.N {
				instructions += instructionsPerMessage(b, fmt.Sprintf("cpu-%s-%d-callgrind", c.name, i), vars, target, c.counted)
				if c.timed > 0 {
					cpuNs += cpuNanosPerMessage(b, fmt.Sprintf("cpu-%s-%d", c.name, i), vars, target, c.timed)
				}
				if more != nil {
					for unit, v := range more(b) {
						sums[unit] += v
					}
				}
			}
			b.ReportMetric(instructions/float64(b.N), "instructions/msg")
			if c.timed > 0 {
				b.ReportMetric(cpuNs/float64(b.N), "cpu-ns/msg")
			}
			for unit, sum := range sums {
				b.ReportMetric(sum/float64(b.N), unit)
			}
		})
	}
}

// cpuProduceBody is a PRODUCE of count 2 KiB messages to target, committed
// every 100, expiring after 1 ms.
func cpuProduceBody(target string, count int) string {
	return fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048,"transaction":{"enabled":true,"txSize":100}},"mqProps":{"expiryMs":1}}`,
		target, count)
}

// produceAll runs one PRODUCE of count messages on p and fails b unless all
// are enqueued.
func produceAll(b *testing.B, p *daemontest.Process, target string, count int) {
	b.Helper()
	var res struct{ Enqueued int }
	postJSON(b, p, "/messages/produce", cpuProduceBody(target, count), http.StatusCreated, &res)
	if res.Enqueued != count {
		b.Fatalf("%s: enqueued %d, want %d", p.Name, res.Enqueued, count)
	}
}

// instructionsPerMessage runs the daemon under callgrind and returns
// (instructions(PRODUCE of 2n) − instructions(PRODUCE of n)) / n, the
// median over countedPairs pairs.
func instructionsPerMessage(b *testing.B, name string, vars map[string]string, target string, n int) float64 {
	b.Helper()
	p, out := startUnderCallgrind(b, name, vars)
	produceAll(b, p, target, n) // warm-up: code translated, pools and buffers grown
	pid := p.Cmd.Process.Pid
	perMessage := countedPerMessage(b, pid, out, n, countedPairs, func(count int) { produceAll(b, p, target, count) })
	p.Stop(syscall.SIGTERM)
	return perMessage
}

// countedPerMessage returns the median over pairs pairs of
// (instructions(work(2n)) − instructions(work(n))) / n, counted by the
// callgrind of process pid, which dumps to prefix.k; callgrind counts from
// here on.
func countedPerMessage(b *testing.B, pid int, prefix string, n, pairs int, work func(count int)) float64 {
	b.Helper()
	callgrindControl(b, pid, "--instr=on")
	measure := func(count int) float64 {
		callgrindControl(b, pid, "--zero")
		work(count)
		callgrindControl(b, pid, "--dump")
		return dumpInstructions(b, lastDump(b, prefix))
	}
	// The median of three pairs: one pair disturbed by something else in
	// the process does not move the figure.
	var perMessage []float64
	for range pairs {
		single := measure(n)
		double := measure(2 * n)
		perMessage = append(perMessage, (double-single)/float64(n))
	}
	slices.Sort(perMessage)
	return perMessage[len(perMessage)/2]
}

// lastDump is the newest of callgrind's dumps prefix.1, prefix.2, ...
func lastDump(b *testing.B, prefix string) string {
	b.Helper()
	last, path := 0, ""
	matches, _ := filepath.Glob(prefix + ".*")
	for _, m := range matches {
		if k, err := strconv.Atoi(strings.TrimPrefix(m, prefix+".")); err == nil && k > last {
			last, path = k, m
		}
	}
	if path == "" {
		b.Fatalf("no callgrind dump %s.k", prefix)
	}
	return path
}

// countedPairs is how many PRODUCEs of n and 2n instructionsPerMessage
// counts in one process.
const countedPairs = 3

// startUnderCallgrind starts `mqprobe run` under valgrind's callgrind,
// counting nothing until told (--instr-atstart=no), and returns once
// /health/ready answers 200, with the prefix of callgrind's dump files
// (the k-th dump is prefix.k).
//
// Go's asynchronous preemption is off: callgrind does not survive the
// signals it sends (threads.c: Assertion 'sigNum == ...' failed). The
// garbage collector is off too: its cycles fall where the heap and the
// clock (slowed 50-fold by valgrind, and by whatever else runs) put them,
// which moved the count by 30% from one process to the next; without it
// the count is the code path's own, within 1%. What collection costs is
// in cpu-ns/msg. RDTSCP is off: where the CPU has it, Go's runtime reads
// the cycle counter with it, and valgrind 3.19 (Debian 12's) stops the
// program there as an unrecognised instruction.
func startUnderCallgrind(b *testing.B, name string, vars map[string]string) (*daemontest.Process, string) {
	b.Helper()
	wrapper, out := callgrindWrapper(b)
	all := maps.Clone(vars)
	maps.Copy(all, goUnderCallgrind)
	p := daemontest.StartUnder(b, wrapper, name, all, 2*time.Minute)
	return p, out
}

// goUnderCallgrind is the environment a Go program needs under callgrind
// (see startUnderCallgrind).
var goUnderCallgrind = map[string]string{"GODEBUG": "asyncpreemptoff=1,cpu.rdtscp=off", "GOGC": "off"}

// callgrindWrapper is valgrind's callgrind counting nothing until told
// (--instr-atstart=no), and the prefix of its dump files.
func callgrindWrapper(b *testing.B) ([]string, string) {
	out := filepath.Join(b.TempDir(), "callgrind.out")
	return []string{"valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + out}, out
}

// callgrindControl sends one callgrind_control command to the valgrind
// of process pid.
func callgrindControl(b *testing.B, pid int, command string) {
	b.Helper()
	// callgrind_control exits 0 even when it reaches no valgrind.
	out, err := exec.Command("callgrind_control", command, strconv.Itoa(pid)).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("Error")) {
		b.Fatalf("callgrind_control %s: %v\n%s", command, err, out)
	}
}

// dumpInstructions reads the instruction total ("totals:") of the
// callgrind dump at path.
func dumpInstructions(b *testing.B, path string) float64 {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatalf("callgrind dump: %v", err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if v, ok := strings.CutPrefix(sc.Text(), "totals: "); ok {
			total, err := strconv.ParseFloat(strings.Fields(v)[0], 64)
			if err != nil {
				b.Fatalf("%s: totals %q: %v", path, v, err)
			}
			return total
		}
	}
	b.Fatalf("%s: no totals line", path)
	return 0
}

// cpuNanosPerMessage returns the daemon's CPU time over one PRODUCE of n
// messages (after a warm-up one), per message.
func cpuNanosPerMessage(b *testing.B, name string, vars map[string]string, target string, n int) float64 {
	b.Helper()
	p, _ := daemontest.StartProcess(b, name, vars)
	produceAll(b, p, target, n/10)
	before := processCPU(b, p)
	produceAll(b, p, target, n)
	used := processCPU(b, p) - before
	p.Stop(syscall.SIGTERM)
	return float64(used.Nanoseconds()) / float64(n)
}

// clockTicksPerSecond is the unit of /proc/<pid>/stat's CPU times
// (sysconf(_SC_CLK_TCK), 100 on Linux).
const clockTicksPerSecond = 100

// processCPU is the user+system CPU time p's threads have used so far.
func processCPU(b *testing.B, p *daemontest.Process) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name, which is in parentheses: state is
	// the 3rd field of the line, utime the 14th and stime the 15th.
	_, rest, _ := bytes.Cut(stat, []byte(") "))
	fields := strings.Fields(string(rest))
	if len(fields) < 13 {
		b.Fatalf("/proc/%d/stat: %q", p.Cmd.Process.Pid, stat)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		t, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			b.Fatalf("/proc/%d/stat: %q: %v", p.Cmd.Process.Pid, f, err)
		}
		ticks += t
	}
	return time.Duration(ticks) * time.Second / clockTicksPerSecond
}
