//go:build ibmmq

package ibmmq

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// The suite runs against a real queue manager when MQPROBE_TEST_IBMMQ_QMGR
// is set (see docs/development.md), and against the client stub otherwise.
func TestBackendSuite(t *testing.T) { mqtest.RunBackendSuite(t, selectHarness()) }

func BenchmarkBackend(b *testing.B) { mqtest.RunBackendBenchmarks(b, selectHarness()) }

func selectHarness() mqtest.Harness {
	if qmgr := os.Getenv("MQPROBE_TEST_IBMMQ_QMGR"); qmgr != "" {
		return newRealHarness(qmgr)
	}
	return stubHarness{}
}

// stubHarness runs the suite on the client stub (testdata/mqstub), which
// holds its queues in this process; every case starts from a reset.
type stubHarness struct{}

var stubTarget = mq.Target{
	QueueManager: "QM1",
	Channel:      "DEV.APP.SVRCONN",
	ConnName:     "localhost(1414)",
	User:         "app",
	Password:     "stub-accepts-any-password",
}

func (stubHarness) New(tb testing.TB) mqtest.Env {
	faults := stubFaults{}
	faults.Reset()
	tb.Cleanup(faults.Reset)
	return mqtest.Env{Backend: New(), Target: stubTarget, Faults: faults}
}

// stubFaults drives the stub's fault switches, environment variables it
// reads on every call (testdata/mqstub/README.md).
type stubFaults struct{}

var _ mqtest.Faults = stubFaults{}

// tokenSeq makes MQSTUB_BREAK and MQSTUB_RESET values unique: the stub acts
// when a value changes.
var tokenSeq atomic.Int64

func newToken() string {
	return strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.FormatInt(tokenSeq.Add(1), 10)
}

func setStubEnv(name, value string) {
	if err := os.Setenv(name, value); err != nil {
		panic(fmt.Sprintf("set %s: %v", name, err))
	}
}

func (stubFaults) RefuseConnect(reason mq.Reason) {
	setStubEnv("MQSTUB_CONNX_REASON", strconv.Itoa(int(reason)))
}

func (stubFaults) FailNth(op mqtest.Op, n int, reason mq.Reason) {
	variable := map[mqtest.Op]string{
		mqtest.OpPut:    "MQSTUB_FAIL_PUT",
		mqtest.OpGet:    "MQSTUB_FAIL_GET",
		mqtest.OpCommit: "MQSTUB_FAIL_CMIT",
	}[op]
	if variable == "" {
		panic(fmt.Sprintf("FailNth: the stub cannot fail %s", op))
	}
	setStubEnv(variable, fmt.Sprintf("%d:%d", max(n, 0), reason))
}

func (stubFaults) DropNth(n int) { setStubEnv("MQSTUB_DROP_PUT", strconv.Itoa(max(n, 0))) }

func (stubFaults) DuplicateNth(n int) { setStubEnv("MQSTUB_DUP_PUT", strconv.Itoa(max(n, 0))) }

func (stubFaults) BreakConnections() { setStubEnv("MQSTUB_BREAK", newToken()) }

func (stubFaults) CapDepth(n int) { setStubEnv("MQSTUB_MAX_DEPTH", strconv.Itoa(n)) }

func (stubFaults) Reset() {
	for _, v := range []string{"MQSTUB_CONNX_REASON", "MQSTUB_FAIL_PUT", "MQSTUB_FAIL_GET", "MQSTUB_FAIL_CMIT",
		"MQSTUB_DROP_PUT", "MQSTUB_DUP_PUT", "MQSTUB_MAX_DEPTH"} {
		if err := os.Unsetenv(v); err != nil {
			panic(fmt.Sprintf("unset %s: %v", v, err))
		}
	}
	setStubEnv("MQSTUB_RESET", newToken())
}

// realHarness runs the suite against a queue manager named by the
// MQPROBE_TEST_IBMMQ_* variables. It cannot inject faults, so those cases
// are left out; it empties the two queues before and after every case and
// takes the limits the suite checks from the queue itself.
type realHarness struct {
	target            mq.Target
	queue, otherQueue string
}

var _ mqtest.FaultSupport = realHarness{}

func newRealHarness(qmgr string) realHarness {
	return realHarness{
		target: mq.Target{
			QueueManager: qmgr,
			Channel:      os.Getenv("MQPROBE_TEST_IBMMQ_CHANNEL"),
			ConnName:     os.Getenv("MQPROBE_TEST_IBMMQ_CONNNAME"),
			User:         os.Getenv("MQPROBE_TEST_IBMMQ_USER"),
			Password:     os.Getenv("MQPROBE_TEST_IBMMQ_PASSWORD"),
		},
		queue:      cmp.Or(os.Getenv("MQPROBE_TEST_IBMMQ_QUEUE"), "DEV.QUEUE.1"),
		otherQueue: cmp.Or(os.Getenv("MQPROBE_TEST_IBMMQ_QUEUE2"), "DEV.QUEUE.2"),
	}
}

func (realHarness) SupportsFaults() bool { return false }

func (h realHarness) New(tb testing.TB) mqtest.Env {
	tb.Helper()
	backend := New()
	info := h.prepare(tb, backend)
	tb.Cleanup(func() { h.prepare(tb, backend) })
	return mqtest.Env{
		Backend:      backend,
		Target:       h.target,
		Queue:        h.queue,
		OtherQueue:   h.otherQueue,
		MaxMsgLength: info.MaxMsgLength,
		MaxDepth:     info.MaxDepth,
	}
}

// prepare drains both queues and returns the first one's attributes.
func (h realHarness) prepare(tb testing.TB, backend *Backend) mq.QueueInfo {
	tb.Helper()
	ctx := context.Background()
	c, err := backend.Connect(ctx, h.target)
	if err != nil {
		tb.Fatalf("connect to %s: %v", h.target, err)
	}
	defer c.Close()
	for _, name := range []string{h.queue, h.otherQueue} {
		if err := drain(ctx, c, name); err != nil {
			tb.Fatalf("drain %s: %v", name, err)
		}
	}
	info, err := mq.InquireQueue(ctx, c, h.queue)
	if err != nil {
		tb.Fatalf("inquire %s: %v", h.queue, err)
	}
	return info
}

func drain(ctx context.Context, c mq.Conn, name string) error {
	q, err := c.OpenQueue(ctx, name, mq.OpenInputShared)
	if err != nil {
		return err
	}
	defer q.Close()
	var msg mq.Message
	for {
		err := q.Get(ctx, &msg, mq.GetOptions{})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
