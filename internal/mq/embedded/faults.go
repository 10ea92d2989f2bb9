package embedded

import (
	"sync/atomic"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Faults injects failures, for tests. Its methods match mqtest.Faults and
// the MQSTUB_* switches of the IBM MQ client stub, so one suite drives both
// backends. Safe for concurrent use.
type Faults struct {
	backend  *Backend
	refuse   atomic.Int32
	depthCap atomic.Int64
	put      failNth
	get      failNth
	commit   failNth
}

// failNth fails one call: the n-th counted from when it was armed.
type failNth struct {
	armed atomic.Pointer[nthFault]
}

type nthFault struct {
	n      int64
	reason mq.Reason
	calls  atomic.Int64
}

// hit counts a call and returns the reason to fail it with, or 0.
func (f *failNth) hit() mq.Reason {
	nf := f.armed.Load()
	if nf == nil {
		return 0
	}
	if nf.calls.Add(1) == nf.n {
		return nf.reason
	}
	return 0
}

func (f *failNth) set(n int, reason mq.Reason) {
	if n <= 0 || reason == 0 {
		f.armed.Store(nil)
		return
	}
	f.armed.Store(&nthFault{n: int64(n), reason: reason})
}

// RefuseConnect makes every connect fail with reason; 0 accepts again.
func (f *Faults) RefuseConnect(reason mq.Reason) { f.refuse.Store(int32(reason)) }

// FailNth makes the n-th MQPUT, MQGET (browses included) or MQCMIT from now
// fail with reason, once. The failed call has no effect, except that a
// failed commit backs the unit of work out. n <= 0 disarms.
func (f *Faults) FailNth(verb mq.Verb, n int, reason mq.Reason) {
	switch verb {
	case mq.VerbPut:
		f.put.set(n, reason)
	case mq.VerbGet:
		f.get.set(n, reason)
	case mq.VerbCommit:
		f.commit.set(n, reason)
	default:
		panic("embedded: FailNth supports MQPUT, MQGET and MQCMIT, not " + string(verb))
	}
}

// BreakConnections breaks every current connection: their units of work are
// backed out and their later calls fail with MQRC_CONNECTION_BROKEN (2009).
// New connections work.
func (f *Faults) BreakConnections() { f.backend.breakConnections() }

// CapDepth lowers every queue's MAXDEPTH to n; 0 restores the configured
// depths.
func (f *Faults) CapDepth(n int) { f.depthCap.Store(int64(max(n, 0))) }

// Reset clears every fault, breaks current connections (discarding their
// units of work) and empties every queue.
func (f *Faults) Reset() {
	f.refuse.Store(0)
	f.depthCap.Store(0)
	f.put.set(0, 0)
	f.get.set(0, 0)
	f.commit.set(0, 0)
	f.backend.breakConnections()
	for _, qm := range f.backend.qmgrs {
		for _, q := range qm.queues {
			q.clear()
		}
	}
}
