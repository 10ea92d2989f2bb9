package probe

import (
	"errors"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Limits of a Config.
const (
	// MaxWorkers bounds Putters and Getters: each holds a connection.
	MaxWorkers = 64
	// MaxLossTimeout is the longest round trip the latency histogram keeps.
	MaxLossTimeout = 60 * time.Second
	// MaxMessageSize is IBM MQ's largest message (100 MiB).
	MaxMessageSize = 100 * 1024 * 1024
	// DefaultLossTimeout is how long a message may take to come back.
	DefaultLossTimeout = 5 * time.Second
	maxQueueNameLength = 48
)

// Mode is how probe messages come back.
type Mode string

// Modes.
const (
	// ModeLoop (the default) gets the probe messages themselves back: from
	// Queue, or from ReplyQueue when something moves them there.
	ModeLoop Mode = "loop"
	// ModeRequestReply sends each probe as a request naming ReplyQueue in
	// ReplyToQ/ReplyToQMgr, with a fresh MsgId; a responder answers with
	// CorrelId = that MsgId, and the reply is what comes back.
	ModeRequestReply Mode = "requestReply"
)

// Config describes one probe run. Give Duration, Count or both: the run
// stops putting at whichever comes first.
type Config struct {
	Target mq.Target
	// Queue receives the probe messages.
	Queue string
	// ReplyQueue is where they come back from, when a responder moves them
	// there; "" gets them back from Queue. In ModeRequestReply it is
	// required: a queue, or a model queue whose temporary dynamic queue
	// the run creates and uses.
	ReplyQueue string
	// Mode is ModeLoop ("" too) or ModeRequestReply.
	Mode Mode
	// Duration bounds the putting phase; 0 = no time limit.
	Duration time.Duration
	// Count bounds the number of messages; 0 = no count limit.
	Count int
	// Rate is the total put rate over all putters, in messages per second.
	// 0 puts as fast as the round trip allows, with at most
	// unpacedInFlight messages out at a time so the queue never fills.
	Rate int
	// Putters and Getters are the concurrent workers, each on its own
	// connection; default 1 each. The Connector must be able to lend
	// Putters+Getters connections to Target at once.
	Putters, Getters int
	// MessageSize is the payload size in bytes; payloads are never smaller
	// than the probe header (HeaderSize).
	MessageSize int
	// Persistent puts persistent messages; probes are non-persistent by
	// default, so they never reach the queue manager's log.
	Persistent bool
	// LossTimeout: a message not back within this after its put is lost.
	// Default DefaultLossTimeout; at most MaxLossTimeout.
	LossTimeout time.Duration
	// ProgressEvery is how often Run reports progress; 0 = never.
	ProgressEvery time.Duration
	// RunID is the CorrelId of every message of the run, so getters take
	// only this run's messages; zero = a fresh random id.
	RunID mq.ID
	// OnRoundTrip, when set, sees every in-time round trip (metrics). It is
	// called on the getters' path: it must be fast and must not block.
	OnRoundTrip func(time.Duration)
}

func (c *Config) setDefaults() {
	if c.Putters == 0 {
		c.Putters = 1
	}
	if c.Getters == 0 {
		c.Getters = 1
	}
	if c.LossTimeout == 0 {
		c.LossTimeout = DefaultLossTimeout
	}
}

// replyQueue is the queue getters read.
func (c *Config) replyQueue() string {
	if c.ReplyQueue != "" {
		return c.ReplyQueue
	}
	return c.Queue
}

// Validate reports every setting out of range, naming the field.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("probe config: "+format, args...))
	}
	if err := c.Target.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("probe config: target: %w", err))
	}
	if c.Queue == "" {
		bad("queue is required")
	}
	if len(c.Queue) > maxQueueNameLength {
		bad("queue must be at most %d characters", maxQueueNameLength)
	}
	if len(c.ReplyQueue) > maxQueueNameLength {
		bad("replyQueue must be at most %d characters", maxQueueNameLength)
	}
	switch c.Mode {
	case "", ModeLoop:
	case ModeRequestReply:
		if c.ReplyQueue == "" {
			bad("replyQueue is required with mode %s: the queue (or model queue) replies come back to", ModeRequestReply)
		}
	default:
		bad("mode must be %s or %s (got %q)", ModeLoop, ModeRequestReply, c.Mode)
	}
	if c.Duration < 0 {
		bad("duration must not be negative (got %s)", c.Duration)
	}
	if c.Count < 0 {
		bad("count must not be negative (got %d)", c.Count)
	}
	if c.Duration == 0 && c.Count == 0 {
		bad("duration or count is required")
	}
	if c.Rate < 0 {
		bad("rate must not be negative (got %d)", c.Rate)
	}
	if c.Putters < 0 || c.Putters > MaxWorkers {
		bad("putters must be 0 (default 1) to %d (got %d)", MaxWorkers, c.Putters)
	}
	if c.Getters < 0 || c.Getters > MaxWorkers {
		bad("getters must be 0 (default 1) to %d (got %d)", MaxWorkers, c.Getters)
	}
	if c.MessageSize < 0 || c.MessageSize > MaxMessageSize {
		bad("messageSize must be 0 to %d (got %d)", MaxMessageSize, c.MessageSize)
	}
	if c.LossTimeout < 0 || c.LossTimeout > MaxLossTimeout {
		bad("lossTimeout must be 0 (default %s) to %s (got %s)", DefaultLossTimeout, MaxLossTimeout, c.LossTimeout)
	}
	if c.ProgressEvery < 0 {
		bad("progressEvery must not be negative (got %s)", c.ProgressEvery)
	}
	return errors.Join(errs...)
}
