//go:build ibmmq

package ibmmq

import (
	"cmp"
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// The suite runs against a real queue manager when MQPROBE_TEST_IBMMQ_QMGR
// is set (see docs/development.md), and otherwise against the project's
// queue manager server (mqserver) started in this process, which the MQ
// client library reaches over TCP.
func TestBackendSuite(t *testing.T) { mqtest.RunBackendSuite(t, selectHarness()) }

func BenchmarkBackend(b *testing.B) { mqtest.RunBackendBenchmarks(b, selectHarness()) }

func selectHarness() mqtest.Harness {
	if qmgr := os.Getenv("MQPROBE_TEST_IBMMQ_QMGR"); qmgr != "" {
		return newRealHarness(qmgr)
	}
	return serverHarness{}
}

// serverHarness gives every case a fresh mqserver on a free port, with
// faults injected through its queue manager and its connections.
type serverHarness struct{}

func (serverHarness) New(tb testing.TB) mqtest.Env {
	srv := mqsimtest.Start(tb)
	return mqtest.Env{Backend: New(), Target: srv.Target(), Faults: srv.Faults()}
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
		Backend:        backend,
		Target:         h.target,
		Queue:          h.queue,
		OtherQueue:     h.otherQueue,
		MaxMsgLength:   info.MaxMsgLength,
		OversizeReason: h.oversizeReason(tb, info.MaxMsgLength),
		MaxDepth:       info.MaxDepth,
	}
}

// oversizeReason is what a put one byte over the queue's MAXMSGL meets
// first: the channel's limit (2010) unless the queue's is below it (2030).
// The channel's MAXMSGL is MQPROBE_TEST_IBMMQ_CHANNEL_MAXMSGL, by default
// IBM's 4 MiB for SVRCONN channels; a client cannot inquire it.
func (realHarness) oversizeReason(tb testing.TB, queueMax int) mq.Reason {
	channelMax := 4 * 1024 * 1024
	if v := os.Getenv("MQPROBE_TEST_IBMMQ_CHANNEL_MAXMSGL"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			tb.Fatalf("MQPROBE_TEST_IBMMQ_CHANNEL_MAXMSGL %q: want a positive number of bytes", v)
		}
		channelMax = n
	}
	if queueMax < channelMax {
		return mq.ReasonMsgTooBigForQ
	}
	return mq.ReasonDataLengthError
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
