package embedded

import (
	"sync/atomic"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Faults injects failures, for tests. Its methods match mqtest.Faults, so
// one suite drives both backends: the ibmmq adapter's tests reach them
// through the simulator (internal/mqsim), which serves this backend over
// TCP. Safe for concurrent use.
type Faults struct {
	backend  *Backend
	refuse   atomic.Int32
	depthCap atomic.Int64
	put      failNth
	get      failNth
	commit   failNth
	drop     nthCall // puts reported done but discarded
	dup      nthCall // puts enqueued twice
}

// nthCall picks one call: the n-th counted from when it was armed.
type nthCall struct {
	armed atomic.Pointer[nthState]
}

type nthState struct {
	n      int64
	reason mq.Reason // for failNth
	calls  atomic.Int64
}

// hit counts a call and reports whether it is the picked one, with the
// reason it was armed with.
func (f *nthCall) hit() (mq.Reason, bool) {
	st := f.armed.Load()
	if st == nil || st.calls.Add(1) != st.n {
		return 0, false
	}
	return st.reason, true
}

// arm restarts the count; n <= 0 disarms.
func (f *nthCall) arm(n int, reason mq.Reason) {
	if n <= 0 {
		f.armed.Store(nil)
		return
	}
	f.armed.Store(&nthState{n: int64(n), reason: reason})
}

// failNth fails one call with a reason.
type failNth struct{ nthCall }

// hit counts a call and returns the reason to fail it with, or 0.
func (f *failNth) hit() mq.Reason {
	rc, _ := f.nthCall.hit()
	return rc
}

func (f *failNth) set(n int, reason mq.Reason) {
	if reason == 0 {
		n = 0
	}
	f.arm(n, reason)
}

// putFault is what a put's injected fault does once the message becomes
// visible: at the put, or at commit under syncpoint.
type putFault uint8

const (
	putNormal putFault = iota
	putDrop            // discard the message
	putDup             // enqueue a copy right behind it
)

// takePut counts a put against the drop and duplicate faults; both count
// every put that FailNth counts, whatever its outcome. When both pick the
// same put, the drop wins.
func (f *Faults) takePut() putFault {
	_, drop := f.drop.hit()
	_, dup := f.dup.hit()
	switch {
	case drop:
		return putDrop
	case dup:
		return putDup
	}
	return putNormal
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

// DropNth makes the n-th MQPUT from now succeed (MsgId and all) while the
// message is silently discarded: a message lost in transit. Under
// syncpoint the message is discarded when the unit of work commits, and a
// backout discards it anyway. n <= 0 disarms. A put that fails for another
// reason still counts, and then nothing is dropped.
func (f *Faults) DropNth(n int) { f.drop.arm(n, 0) }

// DuplicateNth makes the n-th MQPUT from now enqueue the message twice,
// identical down to the MsgId: a redelivery. The copy goes right behind
// the original. Under syncpoint the copy is made when the unit of work
// commits, at the back of the queue then, and a backout leaves neither.
// The copy is not held to MAXDEPTH or MaxBytes (its body is counted all
// the same). n <= 0 disarms; counting is as for DropNth.
func (f *Faults) DuplicateNth(n int) { f.dup.arm(n, 0) }

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
	f.drop.arm(0, 0)
	f.dup.arm(0, 0)
	f.backend.breakConnections()
	for _, qm := range f.backend.qmgrs {
		qm.eachQueue((*queue).clear)
	}
}
