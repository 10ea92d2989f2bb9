//go:build ibmmq

package daemon_test

import (
	"fmt"
	"maps"
	"slices"
	"syscall"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// With -tags ibmmq, BenchmarkProduceCPU also measures the daemon on the IBM
// MQ client (the project's client library), over TCP to the project's queue
// manager server in a process of its own — the layout of a real client —
// so only the client's instructions are counted. Beside it, per repetition:
//
//   - "c-loop-instructions/msg": the C put loop (bench/putloop: IBM's blast
//     programs' way of putting) under callgrind, a process putting 2N
//     messages minus one putting N, ÷ N;
//   - "server-instructions/msg" and "c-loop-server-instructions/msg": the
//     server's instructions (an mqserver under callgrind) for a PRODUCE of
//     2N minus one of N, ÷ N, from a daemon not under callgrind, and the
//     same for the C put loop.
func init() {
	cpuCases = append(cpuCases, cpuCase{
		name: "ibmmq-server",
		setup: func(b *testing.B) (map[string]string, string, func(*testing.B) map[string]float64) {
			srv := daemontest.StartMQServer(b)
			more := func(b *testing.B) map[string]float64 {
				figures := serverInstructions(b, ibmmqCounted)
				figures["c-loop-instructions/msg"] = putLoopInstructions(b, srv, ibmmqCounted, putLoopArgsExpiring)
				return figures
			}
			return ibmmqProcessVars(srv), srv.Target("DEV.QUEUE.1"), more
		},
		counted: ibmmqCounted, timed: 200_000,
	}, cpuCase{
		// The default: asynchronous puts (MQPMO_ASYNC_RESPONSE, MQSTAT
		// before each commit); the daemon's instructions only, as its
		// puts outside callgrind outrun the messages' expiry and fill
		// the queue.
		name: "ibmmq-server-async",
		setup: func(b *testing.B) (map[string]string, string, func(*testing.B) map[string]float64) {
			srv := daemontest.StartMQServer(b)
			vars := ibmmqProcessVars(srv)
			vars["MQPROBE_TARGETS_SYNCPUT"] = "false"
			return vars, srv.Target("DEV.QUEUE.1"), nil
		},
		counted: ibmmqCounted,
	})
}

// serverCountedPairs is how many pairs the server's and the C loop's
// counts take: one, as they moved by at most 2% (the server, run with the
// garbage collector off) and 0.3% (the C loop) from one process to the
// next, and `make bench` has 45 minutes for everything.
const serverCountedPairs = 1

// ibmmqCounted is N for the IBM MQ client's instruction counts: a queue
// (MAXDEPTH 5000) takes 2N of them as they expire.
const ibmmqCounted = 5_000

// ibmmqProcessVars are the settings of a daemon on the IBM MQ client that
// may reach srv, putting synchronously as the C put loop does.
func ibmmqProcessVars(srv *daemontest.MQServer) map[string]string {
	vars := maps.Clone(embeddedProcessVars)
	maps.Copy(vars, map[string]string{"MQPROBE_MQ_BACKEND": "ibmmq", "MQPROBE_TARGETS_INLINE_HOSTS": "127.0.0.1:" + srv.Port,
		"MQPROBE_TARGETS_SYNCPUT": "true"})
	return vars
}

// putLoopArgsExpiring are the C put loop's arguments for n messages as
// BenchmarkProduceCPU's PRODUCEs put them: expiring after 0.1 s (MQ's
// unit; PRODUCE's 1 ms rounds up to it), so the queue never fills.
func putLoopArgsExpiring(n int) []string {
	return append(daemontest.PutLoopArgs("DEV.QUEUE.1", n), "-e", "1")
}

// putLoopInstructions is (instructions of a C put loop process putting 2n
// − one putting n) ÷ n, the median of serverCountedPairs pairs, counted by
// callgrind over the whole process; args are the loop's arguments for a
// count.
func putLoopInstructions(b *testing.B, srv *daemontest.MQServer, n int, args func(count int) []string) float64 {
	b.Helper()
	run := func(count, pair int) float64 {
		out := fmt.Sprintf("%s/putloop-%d-%d.callgrind", b.TempDir(), count, pair)
		daemontest.RunPutLoop(b, srv, []string{"valgrind", "--tool=callgrind", "--callgrind-out-file=" + out}, args(count)...)
		return dumpInstructions(b, out)
	}
	var perMessage []float64
	for pair := range serverCountedPairs {
		perMessage = append(perMessage, (run(2*n, pair)-run(n, pair))/float64(n))
	}
	slices.Sort(perMessage)
	return perMessage[len(perMessage)/2]
}

// serverInstructions counts an mqserver's instructions under callgrind for
// PRODUCEs of a daemon (not under callgrind) and for C put loops, each as
// (2n − n) ÷ n.
func serverInstructions(b *testing.B, n int) map[string]float64 {
	b.Helper()
	wrapper, out := callgrindWrapper(b)
	srv := daemontest.StartMQServerUnder(b, wrapper, goUnderCallgrind)
	defer srv.Down(b)
	p, _ := daemontest.StartProcess(b, "cpu-server-count", ibmmqProcessVars(srv))
	defer p.Stop(syscall.SIGTERM)
	target := srv.Target("DEV.QUEUE.1")
	produceAll(b, p, target, n) // warm-up, as for the daemon's count
	produce := countedPerMessage(b, srv.Pid(), out, n, serverCountedPairs, func(count int) { produceAll(b, p, target, count) })
	daemontest.RunPutLoop(b, srv, nil, putLoopArgsExpiring(n)...)
	cLoop := countedPerMessage(b, srv.Pid(), out, n, serverCountedPairs, func(count int) {
		daemontest.RunPutLoop(b, srv, nil, putLoopArgsExpiring(count)...)
	})
	return map[string]float64{"server-instructions/msg": produce, "c-loop-server-instructions/msg": cLoop}
}
