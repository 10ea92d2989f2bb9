package embedded

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
	qm.bodyBytes.Add(-int64(len(m.payload)))
	m.release()
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
