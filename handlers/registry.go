package handlers

import (
	"cmp"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/configcheck"
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

// CaptureLimits bound the payload bytes CONSUME copies into its result;
// MaxBytes and MaxMessageBytes are the daemon's consume section (yaml and
// desc tags: see internal/config).
type CaptureLimits struct {
	// MaxBytes caps all messages of one command together; MaxMessageBytes
	// caps one message.
	MaxBytes        int `yaml:"captureMaxBytes" desc:"Total payload bytes captured into one CONSUME result"`
	MaxMessageBytes int `yaml:"captureMaxMessageBytes" desc:"Payload bytes captured per consumed message"`
	// RecordBytes is the largest idempotency record the store holds (0: no
	// limit): the list of messages is capped so that the record holding the
	// checkpoint and the result fits; messages beyond are counted, not listed.
	RecordBytes int `yaml:"-"`
}

// TestLimits bound TEST runs: how many run at once on this instance, and
// how long one may run. They are the daemon's tests section.
type TestLimits struct {
	MaxConcurrent int           `yaml:"maxConcurrent" desc:"TEST runs one instance runs at once; more are rejected"`
	MaxDuration   time.Duration `yaml:"maxDuration" desc:"Longest TEST run accepted"`
}

// DefaultCaptureLimits are the limits a zero CaptureLimits gets.
func DefaultCaptureLimits() CaptureLimits {
	return CaptureLimits{MaxBytes: DefaultCaptureMaxBytes, MaxMessageBytes: DefaultCaptureMaxMessageBytes}
}

// DefaultTestLimits are the limits a zero TestLimits gets.
func DefaultTestLimits() TestLimits {
	return TestLimits{MaxConcurrent: DefaultTestsMaxConcurrent, MaxDuration: DefaultTestsMaxDuration}
}

func (c *Config) setDefaults() {
	c.Capture.MaxBytes = cmp.Or(c.Capture.MaxBytes, DefaultCaptureMaxBytes)
	c.Capture.MaxMessageBytes = cmp.Or(c.Capture.MaxMessageBytes, DefaultCaptureMaxMessageBytes)
	c.Tests.MaxConcurrent = cmp.Or(c.Tests.MaxConcurrent, DefaultTestsMaxConcurrent)
	c.Tests.MaxDuration = cmp.Or(c.Tests.MaxDuration, DefaultTestsMaxDuration)
}

// Validate reports every setting out of range, each a
// *configcheck.FieldError naming its consume or tests key.
func (c Config) Validate() error {
	var v configcheck.Errors
	v.Add(c.Capture.Validate())
	v.Add(c.Tests.Validate())
	return v.Err()
}

// Validate reports every capture limit out of range, naming its consume key.
func (c CaptureLimits) Validate() error {
	var v configcheck.Errors
	v.NonNegative("consume.captureMaxBytes", c.MaxBytes)
	v.NonNegative("consume.captureMaxMessageBytes", c.MaxMessageBytes)
	if c.MaxMessageBytes > c.MaxBytes {
		v.Fail("consume.captureMaxMessageBytes", "must not exceed consume.captureMaxBytes (%d) (got %d)", c.MaxBytes, c.MaxMessageBytes)
	}
	return v.Err()
}

// Validate reports every TEST limit out of range, naming its tests key.
func (c TestLimits) Validate() error {
	var v configcheck.Errors
	v.PositiveDuration("tests.maxDuration", c.MaxDuration)
	if c.MaxConcurrent < 1 {
		v.Fail("tests.maxConcurrent", "must be at least 1 (got %d)", c.MaxConcurrent)
	}
	return v.Err()
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
	command.Redrive:        {NeedsTarget: true, readCheckpoint: readRedriveCheckpoint}, // moves messages, creates none
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
			command.Redrive:        redrive,
		},
		Tests:   tests,
		capture: cfg.Capture,
	}, nil
}

// Admit refuses a command this instance must not start now (a TEST over
// its limits); the error is the reason, for the caller.
func (o *Operations) Admit(cmd command.Command) error { return o.Tests.Admit(cmd) }
