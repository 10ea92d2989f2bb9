package idempotency

import "fmt"

// fits refuses u, with a PermanentError naming the store and its limit,
// when the record after it would be larger than the store holds. An update
// that does not grow the record (a heartbeat) always fits: a record stored
// under a larger limit keeps its lease.
func (e *Engine) fits(l *Lease, u Update) error {
	limits := e.store.Limits()
	if limits.MaxRecordBytes <= 0 {
		return nil
	}
	l.mu.Lock()
	size, was := RecordSize(u.Apply(l.written)), RecordSize(l.written)
	l.mu.Unlock()
	if size <= limits.MaxRecordBytes || size <= was {
		return nil
	}
	return &PermanentError{Store: limits.Store, Err: ErrRecordTooLarge,
		Rule: fmt.Sprintf("a record must be at most %d bytes (attribute names and values), and record %s would be %d", limits.MaxRecordBytes, l.pk, size)}
}

// wrote keeps the record as the store now holds it after u, for the next
// fits.
func (l *Lease) wrote(u Update) {
	l.mu.Lock()
	l.written = u.Apply(l.written)
	l.mu.Unlock()
}

// refused ends a final update the store refused permanently: the lease is
// still the caller's, so it can record another outcome (a Fail with the
// reason) instead.
func (e *Engine) refused(l *Lease, op string, err error) error {
	l.mu.Lock()
	l.ended = false
	l.mu.Unlock()
	e.log.Warn("idempotency store refused the write permanently", "pk", l.pk, "op", op, "error", err)
	return storeError(op, fmt.Errorf("%s: %w", l.pk, err))
}

// MaxRecordBytes is the largest record the engine's store holds (0: no
// limit, or idempotency disabled).
func (e *Engine) MaxRecordBytes() int {
	if e.disabled || e.store == nil {
		return 0
	}
	return e.store.Limits().MaxRecordBytes
}
