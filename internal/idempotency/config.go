package idempotency

import (
	"errors"
	"fmt"
	"time"
)

// Defaults of Config, and the shortest lease: heartbeats every third of it
// must stay meaningful against store latency.
const (
	DefaultRecordTTL    = 24 * time.Hour
	DefaultMaxRecordTTL = 30 * 24 * time.Hour
	DefaultLease        = 30 * time.Second
	// DefaultCheckpointWait bounds how long a checkpoint waits for a
	// failing store before its command stops, resumable.
	DefaultCheckpointWait = 60 * time.Second
	MinLease              = 30 * time.Millisecond
)

// Config tunes the engine. The zero value, after setDefaults, is the documented
// default: enabled, 24 h records clamped to 30 d, 30 s leases, no local cache.
type Config struct {
	// Disabled turns deduplication off: every Begin is Acquired and nothing
	// is stored (Powertools' POWERTOOLS_IDEMPOTENCY_DISABLED).
	Disabled bool
	// RecordTTL is how long a record lives when the request names no TTL.
	RecordTTL time.Duration
	// MaxRecordTTL caps any TTL, requested or default.
	MaxRecordTTL time.Duration
	// Lease is how long a claim survives without a heartbeat; heartbeats run
	// every Lease/3. The holder stops working when a Lease passes without a
	// renewal, but the record keeps the claim for one more Lease (the
	// takeover grace), so a dead worker's claim is free within two Leases
	// and a holder whose store came back lands its outcome first.
	Lease time.Duration
	// CheckpointWait bounds how long Checkpoint retries a failing store:
	// the command does not commit its next unit of work meanwhile, and
	// stops (resumable) when the bound passes.
	CheckpointWait time.Duration
	// LocalCacheSize > 0 keeps that many COMPLETED records in a process-local
	// LRU so duplicates replay with no store round trip.
	LocalCacheSize int
	// Clock defaults to SystemClock.
	Clock Clock
	// ReadCheckpoint reads a record's checkpoint (Record.Progress) for
	// Evict: how many messages it says are committed and whether the next
	// attempt of the command resumes from it. Checkpoints are the
	// handlers', opaque to the engine. Nil reads every checkpoint as
	// resumable, its count unknown (-1).
	ReadCheckpoint func(operationType, progress string) (committed int, resumable bool)
	// Holder names this process in the records it claims
	// (Record.LeaseHolder), so an operator can tell which instance runs a
	// command; empty leaves them unnamed.
	Holder string
}

func (c *Config) setDefaults() {
	if c.RecordTTL == 0 {
		c.RecordTTL = DefaultRecordTTL
	}
	if c.MaxRecordTTL == 0 {
		c.MaxRecordTTL = DefaultMaxRecordTTL
	}
	if c.Lease == 0 {
		c.Lease = DefaultLease
	}
	if c.CheckpointWait == 0 {
		c.CheckpointWait = DefaultCheckpointWait
	}
	if c.Clock == nil {
		c.Clock = SystemClock
	}
	if c.ReadCheckpoint == nil {
		c.ReadCheckpoint = func(string, string) (int, bool) { return -1, true }
	}
}

// Validate reports the first setting that is out of range, naming it.
func (c Config) Validate() error {
	var errs []error
	if c.RecordTTL < 0 {
		errs = append(errs, fmt.Errorf("idempotency.recordTTL must be positive (got %s)", c.RecordTTL))
	}
	if c.MaxRecordTTL < 0 {
		errs = append(errs, fmt.Errorf("idempotency.maxRecordTTL must be positive (got %s)", c.MaxRecordTTL))
	}
	if c.MaxRecordTTL > 0 && c.RecordTTL > c.MaxRecordTTL {
		errs = append(errs, fmt.Errorf("idempotency.recordTTL (%s) must not exceed idempotency.maxRecordTTL (%s)", c.RecordTTL, c.MaxRecordTTL))
	}
	if c.Lease != 0 && c.Lease < MinLease {
		errs = append(errs, fmt.Errorf("idempotency.lease must be at least %s (got %s)", MinLease, c.Lease))
	}
	if c.CheckpointWait < 0 {
		errs = append(errs, fmt.Errorf("idempotency.checkpointWait must not be negative (got %s)", c.CheckpointWait))
	}
	if c.LocalCacheSize < 0 {
		errs = append(errs, fmt.Errorf("idempotency.localCacheSize must not be negative (got %d)", c.LocalCacheSize))
	}
	return errors.Join(errs...)
}
