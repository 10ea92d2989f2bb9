package idempotency

import (
	"errors"
	"fmt"
)

var (
	// ErrLeaseLost means the caller no longer holds the record: another
	// worker took it over, or it finished, expired or vanished. The caller
	// must stop, back out its open unit of work and publish nothing.
	ErrLeaseLost = errors.New("idempotency: lease lost")
	// ErrLeaseExpired means the holder could not renew its lease before it
	// ran out (the store did not answer): it must stop working, but nobody
	// has taken the record over yet, so its fenced Complete or Fail may
	// still land (see Config.Lease on the takeover grace).
	ErrLeaseExpired = errors.New("idempotency: lease not renewed before it ran out")
	// ErrStoreUnavailable means the store could not be reached or failed; no
	// decision was made and nothing may run.
	ErrStoreUnavailable = errors.New("idempotency: store unavailable")
	// ErrInvalidArgument is matched by every ArgumentError.
	ErrInvalidArgument = errors.New("idempotency: invalid argument")
	// ErrInvalidKey is matched by an ArgumentError about the idempotency key.
	ErrInvalidKey = errors.New("idempotency: invalid key")
	// ErrInconsistentState means the record kept changing under Begin; retrying
	// later is safe.
	ErrInconsistentState = errors.New("idempotency: record changed during begin")
)

// ArgumentError reports a bad argument to the engine; nothing was written.
type ArgumentError struct {
	Arg  string // the argument, e.g. "idempotencyKey"
	Rule string // the rule it broke, e.g. "must be at most 255 characters"
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("idempotency: %s %s", e.Arg, e.Rule)
}

// Is matches ErrInvalidArgument, and ErrInvalidKey for the key argument.
func (e *ArgumentError) Is(target error) bool {
	return target == ErrInvalidArgument || (target == ErrInvalidKey && e.Arg == ArgIdempotencyKey)
}

// StoreError wraps a failure of the store during one engine operation.
type StoreError struct {
	Op  string // engine operation: begin, heartbeat, complete, fail, release, get, cleanup
	Err error
}

func (e *StoreError) Error() string { return fmt.Sprintf("idempotency %s: store: %v", e.Op, e.Err) }

// Unwrap returns the store's own error.
func (e *StoreError) Unwrap() error { return e.Err }

// Is matches ErrStoreUnavailable.
func (e *StoreError) Is(target error) bool { return target == ErrStoreUnavailable }

func storeError(op string, err error) error {
	if err == nil || errors.Is(err, ErrLeaseLost) {
		return err
	}
	return &StoreError{Op: op, Err: err}
}

// ErrStorePermanent is matched by every PermanentError: the store refused
// the write for a reason no retry changes (a validation error, an item over
// the size limit, access denied, a missing table). The engine never retries
// it; the command ends FAILED with the reason.
var ErrStorePermanent = errors.New("idempotency: store refused the write permanently")

// ErrRecordTooLarge is matched by a PermanentError about a record over its
// store's limit (Limits.MaxRecordBytes).
var ErrRecordTooLarge = errors.New("idempotency: record too large for its store")

// PermanentError is a store failure that retrying cannot cure. Store
// adapters return it for the errors of their backend they know to be
// permanent; the engine for a record it will not write.
type PermanentError struct {
	Store string // the store, e.g. "DynamoDB table mq-probe-idempotency"
	Rule  string // the rule the write broke, e.g. "an item must be at most 400000 bytes"
	Err   error  // the backend's error, or ErrRecordTooLarge
}

func (e *PermanentError) Error() string {
	if e.Err == nil || e.Err == ErrRecordTooLarge {
		return fmt.Sprintf("%s: %s", e.Store, e.Rule)
	}
	return fmt.Sprintf("%s: %s: %v", e.Store, e.Rule, e.Err)
}

// Unwrap returns the backend's error.
func (e *PermanentError) Unwrap() error { return e.Err }

// Is matches ErrStorePermanent.
func (e *PermanentError) Is(target error) bool { return target == ErrStorePermanent }

// IsPermanent reports whether err is a permanent store failure, which must
// not be retried.
func IsPermanent(err error) bool { return errors.Is(err, ErrStorePermanent) }
