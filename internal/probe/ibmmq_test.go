//go:build ibmmq

package probe

import (
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
)

// The same cases over the IBM MQ adapter and the project's client stub
// (internal/mq/ibmmq/testdata/mqstub): build it and export its cgo flags
// first, see scripts/build-mqstub.sh.
func TestRunIBMMQStub(t *testing.T) { runBackendCases(t, newStubEnv) }

// newStubEnv resets the stub (its queues live in this process) and
// clears the fault switches, before and after the case.
func newStubEnv(t *testing.T) testEnv {
	resetStub(t)
	t.Cleanup(func() { resetStub(t) })
	return testEnv{
		backend: ibmmq.New(),
		target: mq.Target{
			QueueManager: "QM1",
			Channel:      "DEV.APP.SVRCONN",
			ConnName:     "localhost(1414)",
			User:         "app",
			Password:     "stub-accepts-any-password",
		},
		faults:     stubPutFaults{t: t},
		queue:      "DEV.QUEUE.1",
		replyQueue: "DEV.QUEUE.2",
	}
}

var resetSeq atomic.Int64

// resetStub clears the put faults and asks the stub to drop every message
// at the next connect (MQSTUB_RESET acts when its value changes).
func resetStub(t *testing.T) {
	for _, v := range []string{"MQSTUB_DROP_PUT", "MQSTUB_DUP_PUT"} {
		if err := os.Unsetenv(v); err != nil {
			t.Fatalf("unset %s: %v", v, err)
		}
	}
	token := strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.FormatInt(resetSeq.Add(1), 10)
	if err := os.Setenv("MQSTUB_RESET", token); err != nil {
		t.Fatalf("set MQSTUB_RESET: %v", err)
	}
}

// stubPutFaults drives MQSTUB_DROP_PUT and MQSTUB_DUP_PUT, which the stub
// reads on every put.
type stubPutFaults struct{ t *testing.T }

func (f stubPutFaults) DropNth(n int) { f.set("MQSTUB_DROP_PUT", n) }

func (f stubPutFaults) DuplicateNth(n int) { f.set("MQSTUB_DUP_PUT", n) }

func (f stubPutFaults) set(name string, n int) {
	if err := os.Setenv(name, strconv.Itoa(n)); err != nil {
		f.t.Errorf("set %s: %v", name, err) // called from a putter's goroutine: no Fatal
	}
}
