// Package mqtest is the one test suite every mq.Backend must pass: the embedded queue manager runs it in-process, the IBM MQ adapter
// runs it over the project's MQ client library connected to the project's
// queue manager server and, when configured, a real queue manager. It also holds the put/get benchmarks both backends share.
package mqtest

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Op names the call FailNth counts.
type Op = mq.Verb

// Operations FailNth accepts.
const (
	OpPut    Op = mq.VerbPut
	OpGet    Op = mq.VerbGet
	OpCommit Op = mq.VerbCommit
)

// Faults injects failures into a backend, as a queue manager or a network
// would produce them. The embedded queue manager implements it (its
// Faults), and so do the IBM MQ adapter's tests, through the queue manager
// behind the project's server (mqserver) and the server's connections.
type Faults interface {
	// RefuseConnect makes every connect fail with reason; 0 accepts again.
	RefuseConnect(reason mq.Reason)
	// FailNth makes the n-th call of op, counted from this call, fail once
	// with reason. The failed call has no effect, except that a failed
	// commit backs the unit of work out. n <= 0 disarms. Gets count every
	// MQGET, browses included.
	FailNth(op Op, n int, reason mq.Reason)
	// DropNth makes the n-th put, counted from this call as FailNth counts
	// puts, succeed while its message is silently discarded (loss in
	// transit). Under syncpoint the message vanishes when the unit of work
	// commits (it counts in CURDEPTH until then, as any uncommitted put).
	// n <= 0 disarms. If that put fails anyway, nothing is dropped.
	DropNth(n int)
	// DuplicateNth makes the n-th put, counted the same way, enqueue its
	// message twice, identical down to the MsgId (a redelivery); the copy
	// goes right behind the original. Under syncpoint the copy is made when
	// the unit of work commits (at the back of the queue then), and a
	// backout leaves neither. n <= 0 disarms. When DropNth picks the same
	// put, the drop wins.
	DuplicateNth(n int)
	// BreakConnections breaks every current connection: the queue manager
	// backs out their units of work and their later calls fail with
	// MQRC_CONNECTION_BROKEN (2009). New connections work.
	BreakConnections()
	// CapDepth makes every queue full at n messages (MQRC_Q_FULL, 2053);
	// 0 restores the configured MAXDEPTH.
	CapDepth(n int)
	// Reset clears every fault and empties every queue. Connections made
	// before it must not be used afterwards.
	Reset()
}

// Env is one test case's backend, target and queues.
type Env struct {
	Backend mq.Backend
	Target  mq.Target
	Faults  Faults

	Queue        string // an empty local queue; default DEV.QUEUE.1
	OtherQueue   string // a second empty local queue; default DEV.QUEUE.2
	MissingQueue string // a queue that does not exist; default MQPROBE.NO.SUCH.QUEUE
	// MaxMsgLength is Queue's MAXMSGL (default 4 MiB).
	MaxMsgLength int
	// OversizeReason is what a put of MaxMsgLength+1 bytes fails with:
	// MQRC_MSG_TOO_BIG_FOR_Q (2030) by default. Over a client channel whose
	// MAXMSGL is no larger than the queue's (IBM's developer defaults: both
	// 4 MiB) the channel refuses it first, with MQRC_DATA_LENGTH_ERROR (2010).
	OversizeReason mq.Reason
	// MaxDepth is Queue's MAXDEPTH (default 5000); benchmarks drain before
	// reaching it.
	MaxDepth int
	// AliasQueue is an alias queue whose target is Queue, and RemoteQueue a
	// remote queue definition whose transmission queue is OtherQueue; both
	// are required of a harness whose DefinesAliasAndRemote reports true.
	AliasQueue, RemoteQueue string
}

func (e *Env) setDefaults() {
	if e.Queue == "" {
		e.Queue = "DEV.QUEUE.1"
	}
	if e.OtherQueue == "" {
		e.OtherQueue = "DEV.QUEUE.2"
	}
	if e.MissingQueue == "" {
		e.MissingQueue = "MQPROBE.NO.SUCH.QUEUE"
	}
	if e.MaxMsgLength == 0 {
		e.MaxMsgLength = 4 * 1024 * 1024
	}
	if e.OversizeReason == 0 {
		e.OversizeReason = mq.ReasonMsgTooBigForQ
	}
	if e.MaxDepth == 0 {
		e.MaxDepth = 5000
	}
}

// Harness provides a fresh environment per test case.
type Harness interface {
	// New returns an environment with empty queues and no faults active
	// (backends sharing state between cases call Faults.Reset). It registers
	// its own cleanup on tb.
	New(tb testing.TB) Env
}

// FaultSupport is implemented by a Harness whose backend may be unable to
// inject faults, such as a real queue manager. When SupportsFaults reports
// false, Env.Faults may be nil and RunBackendSuite leaves out the cases that
// need it. A Harness without the method supports faults.
type FaultSupport interface {
	SupportsFaults() bool
}

func supportsFaults(h Harness) bool {
	fs, ok := h.(FaultSupport)
	return !ok || fs.SupportsFaults()
}

// QueueTypeSupport is implemented by a Harness whose queue manager defines
// Env.AliasQueue and Env.RemoteQueue. When DefinesAliasAndRemote reports
// true, RunBackendSuite adds the cases about them; a Harness without the
// method (a real queue manager may define neither) does not get them.
type QueueTypeSupport interface {
	DefinesAliasAndRemote() bool
}

func definesAliasAndRemote(h Harness) bool {
	qt, ok := h.(QueueTypeSupport)
	return ok && qt.DefinesAliasAndRemote()
}

// HarnessFunc adapts a function to Harness.
type HarnessFunc func(tb testing.TB) Env

// New calls f.
func (f HarnessFunc) New(tb testing.TB) Env { return f(tb) }
