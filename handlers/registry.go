package handlers

import (
	"errors"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
)

// Defaults of Config.
const (
	DefaultCaptureMaxBytes        = 128 * 1024
	DefaultCaptureMaxMessageBytes = 4 * 1024
	DefaultTestsMaxConcurrent     = 4
	DefaultTestsMaxDuration       = time.Hour
)

// Config bounds what the handlers may use. Zero fields take the defaults
// above.
type Config struct {
	Capture CaptureLimits
	Tests   TestLimits
}

// CaptureLimits bound the payload bytes CONSUME copies into its result.
type CaptureLimits struct {
	// MaxBytes caps all messages of one command together; MaxMessageBytes
	// caps one message.
	MaxBytes        int
	MaxMessageBytes int
	// RecordBytes is the largest idempotency record the store holds (0: no
	// limit): the list of messages is capped so that the record holding the
	// checkpoint and the result fits; messages beyond are counted, not listed.
	RecordBytes int
}

// TestLimits bound TEST runs: how many run at once on this instance, and
// how long one may run.
type TestLimits struct {
	MaxConcurrent int
	MaxDuration   time.Duration
}

func (c *Config) setDefaults() {
	if c.Capture.MaxBytes == 0 {
		c.Capture.MaxBytes = DefaultCaptureMaxBytes
	}
	if c.Capture.MaxMessageBytes == 0 {
		c.Capture.MaxMessageBytes = DefaultCaptureMaxMessageBytes
	}
	if c.Tests.MaxConcurrent == 0 {
		c.Tests.MaxConcurrent = DefaultTestsMaxConcurrent
	}
	if c.Tests.MaxDuration == 0 {
		c.Tests.MaxDuration = DefaultTestsMaxDuration
	}
}

// Validate reports every setting out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Capture.MaxBytes < 0 {
		errs = append(errs, fmt.Errorf("capture max bytes must not be negative (got %d)", c.Capture.MaxBytes))
	}
	if c.Capture.MaxMessageBytes < 0 {
		errs = append(errs, fmt.Errorf("capture max message bytes must not be negative (got %d)", c.Capture.MaxMessageBytes))
	}
	if c.Tests.MaxConcurrent < 0 {
		errs = append(errs, fmt.Errorf("tests max concurrent must not be negative (got %d)", c.Tests.MaxConcurrent))
	}
	if c.Tests.MaxDuration < 0 {
		errs = append(errs, fmt.Errorf("tests max duration must not be negative (got %s)", c.Tests.MaxDuration))
	}
	return errors.Join(errs...)
}

// Description is what an operation says of itself to the generic path
// (the executor, the API, the CLI), so that path holds no case per
// operation.
type Description struct {
	// NeedsTarget: the command names a queue, resolved to its target before
	// it is claimed (STOP_TEST names a test instead).
	NeedsTarget bool
	// Creates: a completion creates something (PRODUCE puts messages).
	Creates bool
	// readCheckpoint reads the progress the command stores with its record
	// (see ReadCheckpointCommitted); nil when it stores none.
	readCheckpoint func(progress string, committed int64) (Checkpointed, bool)
}

// Checkpoints reports whether the operation stores progress with its
// record, which a retry resumes from and a failure reports.
func (d Description) Checkpoints() bool { return d.readCheckpoint != nil }

// descriptions describes every operation.
var descriptions = map[command.Operation]Description{
	command.Produce:        {NeedsTarget: true, Creates: true, readCheckpoint: readProduceCheckpoint},
	command.Consume:        {NeedsTarget: true, readCheckpoint: readConsumeCheckpoint},
	command.Depth:          {NeedsTarget: true},
	command.ConnectionTest: {NeedsTarget: true},
	command.Test:           {NeedsTarget: true},
	command.StopTest:       {},
}

// Describe returns op's description; an unknown op has the zero one.
func Describe(op command.Operation) Description { return descriptions[op] }

// Operations is every operation's handler and the check a command passes
// before it is claimed.
type Operations struct {
	// Handlers has one handler per operation.
	Handlers map[command.Operation]Handler
	// Tests is the TEST runs in progress, for the API's live view and stop.
	Tests *Tests

	capture CaptureLimits
}

// New returns the handlers of every operation, bound by cfg.
func New(cfg Config) (*Operations, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("handlers: %w", err)
	}
	tests := newTests(cfg.Tests)
	return &Operations{
		Handlers: map[command.Operation]Handler{
			command.Produce:        produce,
			command.Consume:        consumeWithin(cfg.Capture),
			command.Depth:          depth,
			command.ConnectionTest: connectionTest,
			command.Test:           tests.Test,
			command.StopTest:       tests.StopTest,
		},
		Tests:   tests,
		capture: cfg.Capture,
	}, nil
}

// Admit refuses a command this instance must not start now (a TEST over
// its limits); the error is the reason, for the caller.
func (o *Operations) Admit(cmd command.Command) error { return o.Tests.Admit(cmd) }
