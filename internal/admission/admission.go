// Package admission bounds the work a daemon takes on at once: how many
// commands execute and how many payload bytes they hold. A command that
// finds no room waits a moment; if room does not come it is refused, and
// its caller is told to come back later, so load beyond the bounds queues
// in the caller (an HTTP client, the SQS queue) and not in this process.
package admission

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// Defaults of Config. With them, commands hold at most 128 MiB of payload
// whatever callers send.
const (
	DefaultMaxCommands = 64
	DefaultMaxBytes    = 128 << 20
	DefaultWait        = 2 * time.Second
)

// Config bounds a Limiter; zero fields take the defaults above. Its
// settings are keys of the daemon's limits section (yaml and desc tags: see
// internal/config).
type Config struct {
	// MaxConcurrentCommands is how many commands execute at once.
	MaxConcurrentCommands int `yaml:"maxConcurrentCommands" desc:"Commands executing at once, HTTP and bus together; more wait limits.admissionWait, then get 503 (HTTP) or come back later (bus)"`
	// MaxInFlightBytes is how many payload bytes executing commands hold
	// together.
	MaxInFlightBytes int64 `yaml:"maxInFlightBytes" desc:"Payload bytes executing commands hold together (PRODUCE: one message body; TEST: two; CONSUME: consume.captureMaxBytes)"`
	// AdmissionWait is how long a command waits for room before it is
	// refused.
	AdmissionWait time.Duration `yaml:"admissionWait" desc:"How long a command waits for room under maxConcurrentCommands and maxInFlightBytes before it is refused"`
}

// DefaultConfig is the settings a zero Config gets.
func DefaultConfig() Config {
	return Config{MaxConcurrentCommands: DefaultMaxCommands, MaxInFlightBytes: DefaultMaxBytes, AdmissionWait: DefaultWait}
}

func (c *Config) setDefaults() {
	c.MaxConcurrentCommands = cmp.Or(c.MaxConcurrentCommands, DefaultMaxCommands)
	c.MaxInFlightBytes = cmp.Or(c.MaxInFlightBytes, DefaultMaxBytes)
	c.AdmissionWait = cmp.Or(c.AdmissionWait, DefaultWait)
}

// Validate reports every setting out of range, each a
// *configcheck.FieldError naming its limits key.
func (c Config) Validate() error {
	var v configcheck.Errors
	v.Positive("limits.maxConcurrentCommands", c.MaxConcurrentCommands)
	if c.MaxInFlightBytes <= 0 {
		v.Fail("limits.maxInFlightBytes", "must be greater than 0 (got %d)", c.MaxInFlightBytes)
	}
	v.PositiveDuration("limits.admissionWait", c.AdmissionWait)
	return v.Err()
}

// Limiter admits commands within its bounds. It is safe for concurrent use;
// waiting commands are admitted in arrival order.
type Limiter struct {
	cfg      Config
	commands *semaphore.Weighted
	bytes    *semaphore.Weighted

	running atomic.Int64 // commands admitted and not released
	held    atomic.Int64 // their bytes
	waiting atomic.Int64 // commands waiting for room

	mu    sync.Mutex
	freed chan struct{} // closed (and replaced) whenever a command is released
}

// New returns a limiter.
func New(cfg Config) (*Limiter, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Limiter{cfg: cfg, commands: semaphore.NewWeighted(int64(cfg.MaxConcurrentCommands)),
		bytes: semaphore.NewWeighted(cfg.MaxInFlightBytes), freed: make(chan struct{})}, nil
}

// BusyError refuses a command that found no room within the wait. Nothing
// is wrong with the command: the same command later is admitted.
type BusyError struct {
	// Resource is what ran out: "commands" or "bytes".
	Resource string
	Usage    Usage
	// Need is the bytes the command asked for.
	Need int64
	Wait time.Duration
	// Cause is set when the caller went away while waiting.
	Cause error
}

func (e *BusyError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("gave up waiting for room to execute: %v", e.Cause)
	}
	if e.Resource == "bytes" {
		return fmt.Sprintf("no room for %s more payload within %s: executing commands hold %s of the %s limits.maxInFlightBytes allows",
			ByteSize(e.Need), e.Wait, ByteSize(e.Usage.Bytes), ByteSize(e.Usage.MaxBytes))
	}
	return fmt.Sprintf("no room to execute within %s: %d commands are executing, the most limits.maxConcurrentCommands allows",
		e.Wait, e.Usage.MaxCommands)
}

func (e *BusyError) Unwrap() error { return e.Cause }

// TooLargeError refuses a command that needs more bytes than the whole
// budget: it would never be admitted.
type TooLargeError struct {
	Need, MaxBytes int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the command holds %s of payload while it runs, more than the %s limits.maxInFlightBytes allows for all commands together",
		ByteSize(e.Need), ByteSize(e.MaxBytes))
}

// Ticket is one admitted command's room; Release gives it back.
type Ticket struct {
	l     *Limiter
	bytes int64
	once  sync.Once
}

// Release gives the command's room back. It may be called more than once,
// and on a nil Ticket.
func (t *Ticket) Release() {
	if t == nil {
		return
	}
	t.once.Do(func() {
		l := t.l
		// Counts first, then the room: a waiter admitted by the release
		// must not be counted beside the command it replaces, or Usage
		// would report more than the limit.
		l.held.Add(-t.bytes)
		l.running.Add(-1)
		if t.bytes > 0 {
			l.bytes.Release(t.bytes)
		}
		l.commands.Release(1)
		l.mu.Lock()
		close(l.freed)
		l.freed = make(chan struct{})
		l.mu.Unlock()
	})
}

// Admit makes room for one command holding bytes of payload, waiting up to
// the configured wait (or until ctx ends). It returns a *TooLargeError when
// bytes exceed the whole budget, else a *BusyError when room did not come.
func (l *Limiter) Admit(ctx context.Context, bytes int64) (*Ticket, error) {
	bytes = max(bytes, 0)
	if bytes > l.cfg.MaxInFlightBytes {
		return nil, &TooLargeError{Need: bytes, MaxBytes: l.cfg.MaxInFlightBytes}
	}
	wctx, cancel := context.WithTimeout(ctx, l.cfg.AdmissionWait)
	defer cancel()
	if !l.acquire(wctx, l.commands, 1) {
		return nil, l.busy("commands", bytes, ctx.Err())
	}
	if bytes > 0 && !l.acquire(wctx, l.bytes, bytes) {
		l.commands.Release(1)
		return nil, l.busy("bytes", bytes, ctx.Err())
	}
	l.running.Add(1)
	l.held.Add(bytes)
	return &Ticket{l: l, bytes: bytes}, nil
}

// acquire takes n from sem, counting the command as waiting while it has to.
func (l *Limiter) acquire(ctx context.Context, sem *semaphore.Weighted, n int64) bool {
	if sem.TryAcquire(n) {
		return true
	}
	l.waiting.Add(1)
	defer l.waiting.Add(-1)
	return sem.Acquire(ctx, n) == nil
}

func (l *Limiter) busy(resource string, need int64, cause error) *BusyError {
	return &BusyError{Resource: resource, Usage: l.Usage(), Need: need, Wait: l.cfg.AdmissionWait, Cause: cause}
}

// WaitForRoom blocks until fewer than the most commands are executing, or
// ctx ends. A consumer calls it before taking more work off a queue.
func (l *Limiter) WaitForRoom(ctx context.Context) error {
	for {
		l.mu.Lock()
		freed := l.freed
		l.mu.Unlock()
		if l.running.Load() < int64(l.cfg.MaxConcurrentCommands) {
			return nil
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Usage is what a limiter holds now.
type Usage struct {
	Commands    int64 `json:"commands"`
	MaxCommands int64 `json:"maxCommands"`
	Bytes       int64 `json:"bytes"`
	MaxBytes    int64 `json:"maxBytes"`
	Waiting     int64 `json:"waiting"`
}

// Usage reports the limiter's current use.
func (l *Limiter) Usage() Usage {
	return Usage{Commands: l.running.Load(), MaxCommands: int64(l.cfg.MaxConcurrentCommands), Bytes: l.held.Load(),
		MaxBytes: l.cfg.MaxInFlightBytes, Waiting: l.waiting.Load()}
}

// Saturated says why a new command would wait now, or nil when it would not.
func (u Usage) Saturated() error {
	switch {
	case u.Commands >= u.MaxCommands:
		return fmt.Errorf("saturated: %d of %d commands executing (limits.maxConcurrentCommands), %d waiting",
			u.Commands, u.MaxCommands, u.Waiting)
	case u.Waiting > 0:
		return fmt.Errorf("saturated: %d commands waiting for payload room; %s of %s in flight (limits.maxInFlightBytes)",
			u.Waiting, ByteSize(u.Bytes), ByteSize(u.MaxBytes))
	}
	return nil
}

// ByteSize formats n bytes for people: 512 B, 3.0 KiB, 100.0 MiB.
type ByteSize int64

func (n ByteSize) String() string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", int64(n))
	}
	div, exp := int64(unit), 0
	for m := int64(n) / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
