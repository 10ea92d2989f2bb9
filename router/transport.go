package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/result"
)

// Transport is where one mode's commands come from and its results go.
type Transport struct {
	// Name and ResultsName say where commands come from and results go
	// (GET /status): "gochannel", "sqs:<queue>", "sns:<topic ARN>".
	Name, ResultsName string
	// Commands delivers commands to the router.
	Commands message.Subscriber
	// Results publishes result events.
	Results result.Publisher
	// Submit puts a raw command on the in-process bus (POST /commands); nil
	// when commands come from SQS, which senders reach directly.
	Submit func(ctx context.Context, body []byte, meta map[string]string) (string, error)
	// DelayRedelivery hands a nacked message's delay to the transport (SQS:
	// its visibility); nil when the router must wait it out itself.
	DelayRedelivery func(msg *message.Message, after time.Duration)
	// Settled is told of every command the router acks, so Submit's queue
	// bound counts only commands still to finish; nil when there is no
	// such bound.
	Settled func(msg *message.Message)

	bus       *gochannel.GoChannel // the in-process bus, closed by Close
	closing   atomic.Bool
	queued    atomic.Int64 // commands Submit published and the router has not acked
	maxQueued int64
}

// QueueFullError refuses a command Submit has no room for: the commands
// already submitted must finish first.
type QueueFullError struct {
	Max int64
}

func (e *QueueFullError) Error() string {
	return fmt.Sprintf("%d submitted commands are queued or executing, the most limits.commandQueue allows: retry later", e.Max)
}

// RetryAfter is when to try again.
func (e *QueueFullError) RetryAfter() time.Duration { return time.Second }

// TransportConfig says which transport to build and how.
type TransportConfig struct {
	// Mode is config.ModeEmbedded (watermill's in-process gochannel bus, fed
	// by POST /commands) or config.ModeAWS (commands from SQS, results to
	// SNS or SQS).
	Mode string
	// SQS and Results configure aws mode's subscriber and publisher.
	SQS     awsbus.SubscriberConfig
	Results awsbus.PublisherConfig
	// AWS loads the AWS configuration; called in aws mode only.
	AWS func(context.Context) (aws.Config, error)
	// Logger receives watermill's lines; nil: none.
	Logger watermill.LoggerAdapter
	// MaxQueued bounds the commands Submit holds queued or executing in
	// embedded mode (default 100).
	MaxQueued int
}

// NewTransport builds the transport of cfg.Mode: this is where the mode is
// chosen.
func NewTransport(ctx context.Context, cfg TransportConfig) (*Transport, error) {
	if cfg.Logger == nil {
		cfg.Logger = watermill.NopLogger{}
	}
	switch cfg.Mode {
	case config.ModeAWS:
		return newSQSTransport(ctx, cfg)
	case config.ModeEmbedded:
		return newInProcessTransport(cfg.Logger, cmp.Or(cfg.MaxQueued, DefaultMaxQueued)), nil
	default:
		return nil, fmt.Errorf("mode %q has no transport (want %s or %s)", cfg.Mode, config.ModeEmbedded, config.ModeAWS)
	}
}

// newInProcessTransport is embedded mode's bus: commands published by
// Submit are consumed from CommandsTopic, results published to ResultsTopic.
func newInProcessTransport(logger watermill.LoggerAdapter, maxQueued int) *Transport {
	bus := gochannel.NewGoChannel(gochannel.Config{}, logger)
	t := &Transport{Name: "gochannel", ResultsName: "gochannel", Commands: bus,
		Results: NewResultPublisher(bus, ResultsTopic), bus: bus, maxQueued: int64(maxQueued)}
	t.Submit, t.Settled = t.submit, t.settled
	return t
}

// DefaultMaxQueued is TransportConfig.MaxQueued's default.
const DefaultMaxQueued = 100

// metaSubmitted marks the commands Submit counts in its queue bound.
const metaSubmitted = "mqprobe-submitted"

// submit publishes a raw command on the in-process bus, unless the commands
// submitted before it still fill the queue: the in-process bus holds every
// command it is given until the command finishes.
func (t *Transport) submit(_ context.Context, body []byte, meta map[string]string) (string, error) {
	if t.closing.Load() {
		return "", errors.New("shutting down: not accepting commands")
	}
	if t.queued.Add(1) > t.maxQueued {
		t.queued.Add(-1)
		return "", &QueueFullError{Max: t.maxQueued}
	}
	msg := message.NewMessage(watermill.NewUUID(), body)
	for k, v := range meta {
		msg.Metadata.Set(k, v)
	}
	msg.Metadata.Set(MetaMessageID, msg.UUID)
	msg.Metadata.Set(metaSubmitted, "true")
	if err := t.bus.Publish(CommandsTopic, msg); err != nil {
		t.queued.Add(-1)
		return "", fmt.Errorf("publish command: %w", err)
	}
	return msg.UUID, nil
}

// settled takes an acked command Submit published out of its queue.
func (t *Transport) settled(msg *message.Message) {
	if msg.Metadata.Get(metaSubmitted) != "" {
		t.queued.Add(-1)
	}
}

// Queued is how many commands Submit published that have not finished.
func (t *Transport) Queued() int64 { return t.queued.Load() }

// newSQSTransport is aws mode's: the SQS command subscriber and the SNS (or
// SQS) result publisher of internal/awsbus.
func newSQSTransport(ctx context.Context, cfg TransportConfig) (*Transport, error) {
	awsCfg, err := cfg.AWS(ctx)
	if err != nil {
		return nil, err
	}
	sub, err := awsbus.NewCommandSubscriber(awsCfg, cfg.SQS, cfg.Logger)
	if err != nil {
		return nil, fmt.Errorf("sqs.commandQueue %s: %w", cfg.SQS.CommandQueue, err)
	}
	pub, err := awsbus.NewResultPublisher(awsCfg, cfg.Results)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	resultsName := "sns:" + cfg.Results.TopicARN
	if cfg.Results.TopicARN == "" {
		resultsName = "sqs:" + cfg.Results.QueueURL
	}
	return &Transport{Name: "sqs:" + cfg.SQS.CommandQueue, ResultsName: resultsName, Commands: sub, Results: pub,
		DelayRedelivery: awsbus.SetRetryAfter}, nil
}

// StopIntake makes Submit refuse new commands (a drain has begun).
func (t *Transport) StopIntake() { t.closing.Store(true) }

// Close stops intake and the in-process bus. It does not close Commands:
// its consumer does (the router on Close, the daemon once the drain has
// settled every message).
func (t *Transport) Close() error {
	t.StopIntake()
	if t.bus != nil {
		return t.bus.Close()
	}
	return nil
}
