// Package executor runs one command from arrival to outcome: decode, validate, key,
// hash, claim, act on the claim's outcome, record and publish the result. It
// is the one path both the bus (router) and the HTTP API use, and it decides
// for each command exactly one outcome and whether its message is acked.
// It owns the configuration keys results.replay, results.maxRawBodyBytes and
// bus.nackDelay (ReplayConfig, RejectedConfig, RetryConfig).
package executor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/admission"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/telemetry"
)

// ReplayMode says what a replayed command publishes.
type ReplayMode string

// Replay modes.
const (
	ReplayRepublish ReplayMode = "republish" // publish the cached result again, replay: true
	ReplayDrop      ReplayMode = "drop"      // publish nothing
)

// Defaults of Config.
const (
	DefaultMaxRawBodyBytes = 4096
	DefaultRetryDelay      = 5 * time.Second
)

// Config tunes an Executor. Zero fields take the defaults above; Replay
// defaults to ReplayRepublish.
type Config struct {
	// Source is the CloudEvents source, "mqprobe/<instance>".
	Source string
	ReplayConfig
	RejectedConfig
	RetryConfig
}

// ReplayConfig is results.replay: what a replayed command publishes.
type ReplayConfig struct {
	Replay ReplayMode `yaml:"replay" desc:"What a replayed command publishes: republish (the cached result again) or drop"`
}

// Validate checks results.replay, as a *configcheck.FieldError.
func (c ReplayConfig) Validate() error {
	var v configcheck.Errors
	configcheck.OneOf(&v, "results.replay", c.Replay, ReplayRepublish, ReplayDrop)
	return v.Err()
}

// RejectedConfig is results.maxRawBodyBytes: how much of a rejected
// command's body its event keeps.
type RejectedConfig struct {
	MaxRawBodyBytes int `yaml:"maxRawBodyBytes" desc:"Raw body bytes kept in a rejected event"`
}

// Validate checks results.maxRawBodyBytes, as a *configcheck.FieldError.
func (c RejectedConfig) Validate() error {
	var v configcheck.Errors
	v.NonNegative("results.maxRawBodyBytes", c.MaxRawBodyBytes)
	return v.Err()
}

// RetryConfig is bus.nackDelay: how long a redelivery waits after
// InProgress, a transient failure or an unavailable store. The executor
// defines it (every nack it causes carries it as RetryAfter); its upper
// bound is the command bus's, checked where the bus is known.
type RetryConfig struct {
	RetryDelay time.Duration `yaml:"nackDelay" desc:"How long a nacked command (in progress elsewhere, transient failure, store unavailable) waits before redelivery"`
}

func (c *Config) setDefaults() {
	if c.Source == "" {
		c.Source = "mqprobe/local"
	}
	if c.Replay == "" {
		c.Replay = ReplayRepublish
	}
	if c.MaxRawBodyBytes == 0 {
		c.MaxRawBodyBytes = DefaultMaxRawBodyBytes
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = DefaultRetryDelay
	}
}

// Deps are what an Executor drives.
type Deps struct {
	Decoder *command.Decoder
	Engine  *idempotency.Engine
	// Handlers and Admit come from handlers.New.
	Handlers  map[command.Operation]handlers.Handler
	Targets   *targets.Resolver
	Conns     handlers.Connector
	Publisher result.Publisher
	Log       *slog.Logger
	// Tracer starts the spans of each command; nil means no tracing.
	Tracer trace.Tracer
	// Metrics records commands and decisions; nil means none.
	Metrics *telemetry.Metrics
	// Admit, when set, may refuse a valid command before it is claimed
	// (limits such as concurrent TEST runs); the refusal is its message.
	Admit func(command.Command) error
	// Admission, when set, bounds the commands executing at once and the
	// payload bytes they hold; Footprint says how many bytes a command holds.
	Admission *admission.Limiter
	Footprint func(command.Command) int64
}

// Executor executes commands.
type Executor struct {
	cfg Config
	Deps
	counts sync.Map // outcome name → *int64 counter, for /status
	// lastHour counts the outcomes of the last hour per tenant, for /status.
	lastHour outcomeWindow
	active   sync.WaitGroup
	// running is the commands executing their handler now.
	running inflight.Registry
	// pending is the known outcomes waiting for the store; recording ends
	// their retries (stopRecording, at the end of a drain).
	pending       pendingOutcomes
	recording     context.Context
	stopRecording context.CancelCauseFunc
}

// InFlight is the commands this executor is running now, with their live
// progress; each is there from its claim until its handler returns.
func (x *Executor) InFlight() *inflight.Registry { return &x.running }

// RetryDelay is how long a command the executor left undecided waits
// before it is tried again when its outcome names no RetryAfter.
func (x *Executor) RetryDelay() time.Duration { return x.cfg.RetryDelay }

// Wait blocks until no command is executing, or ctx ends.
func (x *Executor) Wait(ctx context.Context) error {
	idle := make(chan struct{})
	go func() {
		x.active.Wait()
		close(idle)
	}()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// New returns an executor.
func New(cfg Config, deps Deps) (*Executor, error) {
	cfg.setDefaults()
	if err := cfg.ReplayConfig.Validate(); err != nil {
		return nil, err
	}
	if deps.Decoder == nil || deps.Engine == nil || deps.Targets == nil || deps.Conns == nil || deps.Publisher == nil {
		return nil, errors.New("executor: decoder, engine, targets, connections and publisher are required")
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	if deps.Tracer == nil {
		deps.Tracer = noop.NewTracerProvider().Tracer("")
	}
	x := &Executor{cfg: cfg, Deps: deps}
	x.recording, x.stopRecording = context.WithCancelCause(context.Background())
	return x, nil
}

// Option is what a caller asks of one Execute.
type Option func(*caller)

// caller is the options of one Execute.
type caller struct {
	awaitRecord bool
	provisional bool
	started     func(StartNotice)
}

// Provisional marks a caller that asks again when its command is running
// elsewhere (HTTP waiting for a duplicate's result): that InProgress answer
// is not audited or counted, so each request counts once, by its last
// answer.
func Provisional() Option {
	return func(c *caller) { c.provisional = true }
}

// AwaitRecord makes a caller whose command's outcome is known but not yet
// recorded (the store is failing) wait for the record as long as ctx lives:
// a bus message, whose visibility the transport extends meanwhile. Without
// it the caller is answered OutcomePending at once.
func AwaitRecord() Option {
	return func(c *caller) { c.awaitRecord = true }
}

// StartNotice is what Execute tells an OnStart caller when the command is
// claimed and starts to run.
type StartNotice struct {
	Key string
	// ExpiresAt is the claimed record's expiry (zero with idempotency
	// disabled): until then a repeat of the command replays or waits.
	ExpiresAt time.Time
}

// OnStart makes Execute call started once the command is claimed and its
// handler says it runs where a caller can see and stop it
// (handlers.Run.Started): an HTTP caller of a long command (TEST) answers
// 202 then, and a stop sent on that answer finds the run.
func OnStart(started func(StartNotice)) Option {
	return func(c *caller) { c.started = started }
}

// Outcome is what became of one command.
type Outcome struct {
	// Kind says what became of it; each transport answers by it.
	Kind outcome.Kind
	// Event is the result, published unless it is a dropped replay; nil when
	// there is none (InProgress, transient failure on the bus, undecided).
	Event *result.Event
	// Unpublished: Event should have reached the results destination and
	// did not (Err says why); a redelivery replays it to publish it.
	Unpublished bool
	// RetryAfter is when to try again, for a kind that is not final or a
	// result not published.
	RetryAfter time.Duration
	// Body is the result data of a completed, failed or replayed command:
	// the recorded bytes, so every replay answers what the first execution
	// answered, its replay field alone turned true.
	Body []byte
	// Key is the command's idempotency key when it has a valid one, for
	// the Idempotency-Key header; an invalid key is never echoed there.
	Key string
	// ExpiresAt is when the command's idempotency record expires, when the
	// outcome knows the record (it ran, replayed, or was refused by it);
	// zero otherwise.
	ExpiresAt time.Time
	// Err explains an undecided outcome or a failed publish.
	Err error
}
