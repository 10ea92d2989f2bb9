package idempotency

import (
	"cmp"
	"time"

	"github.com/mqprobe/mqprobe/internal/configcheck"
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

// Config tunes the engine. The zero value, after setDefaults, is the
// documented default: enabled, 24 h records clamped to 30 d, 30 s leases,
// no local cache. Its tagged settings are keys of the daemon's idempotency
// section (yaml and desc tags: see internal/config).
type Config struct {
	// Enabled false turns deduplication off: every Begin is Acquired and
	// nothing is stored (Powertools' POWERTOOLS_IDEMPOTENCY_DISABLED). Nil
	// is enabled, so a zero Config deduplicates.
	Enabled *bool `yaml:"enabled" desc:"Deduplicate commands; false runs every delivery (logged loudly)"`
	// RecordTTL is how long a record lives when the request names no TTL.
	RecordTTL time.Duration `yaml:"recordTTL" desc:"How long a record lives when the command names no expiry"`
	// MaxRecordTTL caps any TTL, requested or default.
	MaxRecordTTL time.Duration `yaml:"maxRecordTTL" desc:"Upper bound for any record TTL, requested or default"`
	// Lease is how long a claim survives without a heartbeat; heartbeats run
	// every Lease/3. The holder stops working when a Lease passes without a
	// renewal, but the record keeps the claim for one more Lease (the
	// takeover grace), so a dead worker's claim is free within two Leases
	// and a holder whose store came back lands its outcome first.
	Lease time.Duration `yaml:"lease" desc:"How long a claim survives without heartbeat (heartbeats every lease/3); another instance takes an unrenewed claim over one lease later still (the takeover grace)"`
	// CheckpointWait bounds how long Checkpoint retries a failing store:
	// the command does not commit its next unit of work meanwhile, and
	// stops (resumable) when the bound passes.
	CheckpointWait time.Duration `yaml:"checkpointWait" desc:"How long a PRODUCE or CONSUME whose checkpoint the store fails to take waits for it, committing nothing more, before it stops failed and resumable"`
	// LocalCacheSize > 0 keeps that many COMPLETED records in a process-local
	// LRU so duplicates replay with no store round trip.
	LocalCacheSize int `yaml:"localCacheSize" desc:"COMPLETED records kept in a process-local LRU for replays without a store round trip (0 = off)"`
	// Clock defaults to SystemClock.
	Clock Clock `yaml:"-"`
}

// Deduplicates reports whether the engine deduplicates (Enabled is nil or
// true).
func (c Config) Deduplicates() bool { return c.Enabled == nil || *c.Enabled }

// DefaultConfig is the settings a zero Config gets (Clock is left for New
// to fill).
func DefaultConfig() Config {
	enabled := true
	return Config{Enabled: &enabled, RecordTTL: DefaultRecordTTL, MaxRecordTTL: DefaultMaxRecordTTL, Lease: DefaultLease,
		CheckpointWait: DefaultCheckpointWait}
}

func (c *Config) setDefaults() {
	c.RecordTTL = cmp.Or(c.RecordTTL, DefaultRecordTTL)
	c.MaxRecordTTL = cmp.Or(c.MaxRecordTTL, DefaultMaxRecordTTL)
	c.Lease = cmp.Or(c.Lease, DefaultLease)
	c.CheckpointWait = cmp.Or(c.CheckpointWait, DefaultCheckpointWait)
	if c.Clock == nil {
		c.Clock = SystemClock
	}
}

// Validate reports every setting out of range, each a
// *configcheck.FieldError naming its idempotency key.
func (c Config) Validate() error {
	var v configcheck.Errors
	v.PositiveDuration("idempotency.recordTTL", c.RecordTTL)
	v.PositiveDuration("idempotency.maxRecordTTL", c.MaxRecordTTL)
	if c.MaxRecordTTL > 0 && c.RecordTTL > c.MaxRecordTTL {
		v.Fail("idempotency.recordTTL", "must not exceed idempotency.maxRecordTTL (%s) (got %s)",
			configcheck.FormatDuration(c.MaxRecordTTL), configcheck.FormatDuration(c.RecordTTL))
	}
	if c.Lease < MinLease {
		v.Fail("idempotency.lease", "must be at least %s (got %s)", MinLease, configcheck.FormatDuration(c.Lease))
	}
	v.PositiveDuration("idempotency.checkpointWait", c.CheckpointWait)
	v.NonNegative("idempotency.localCacheSize", c.LocalCacheSize)
	return v.Err()
}
