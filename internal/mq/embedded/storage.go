package embedded

import "github.com/mqprobe/mqprobe/internal/mq"

// Storage accounting: a queue manager's bodyBytes counts the bodies of the
// messages it holds, on a queue (committed or not) or taken by a get under
// syncpoint that has not committed yet (a backout puts it back). A put
// reserves its body before the message is built; discard gives it back
// when the message leaves for good.

// reserveBody charges an n-byte body against MaxBytes, or charges nothing
// and reports false when it would not fit.
func (qm *queueManager) reserveBody(n int) bool {
	for {
		held := qm.bodyBytes.Load()
		if held+int64(n) > qm.maxBytes {
			return false
		}
		if qm.bodyBytes.CompareAndSwap(held, held+int64(n)) {
			return true
		}
	}
}

// discard gives m's body back and recycles m: m has left the queue manager
// for good.
func (qm *queueManager) discard(m *message) {
	if m.logID != 0 {
		qm.journal.logDelete(m.logID)
	}
	qm.bodyBytes.Add(-int64(len(m.payload)))
	m.release()
}

// syncJournal forces the journal to disk, if the queue manager keeps one:
// at commit, and after a persistent put or get outside syncpoint. A
// journal that cannot be written fails the call with
// MQRC_RESOURCE_PROBLEM (2102).
func (qm *queueManager) syncJournal(verb mq.Verb, object string) error {
	if qm.journal == nil {
		return nil
	}
	if err := qm.journal.sync(); err != nil {
		e := mq.NewError(verb, object, mq.ReasonResourceProblem)
		e.Err = err
		return e
	}
	return nil
}

// journalFailed is MQRC_RESOURCE_PROBLEM (2102) when the queue manager's
// journal has failed: a persistent put could not be kept.
func (qm *queueManager) journalFailed(verb mq.Verb, object string) error {
	if qm.journal == nil {
		return nil
	}
	if err := qm.journal.failure(); err != nil {
		e := mq.NewError(verb, object, mq.ReasonResourceProblem)
		e.Err = err
		return e
	}
	return nil
}

// purgeExpired discards the expired messages of every queue, so a put
// short of space does not fail for messages nobody can get any more.
// Callers hold no queue's mutex.
func (qm *queueManager) purgeExpired(now int64) {
	qm.eachQueue(func(q *queue) {
		q.mu.Lock()
		q.purgeExpired(now)
		q.mu.Unlock()
	})
}
