package awsbus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/aws/smithy-go/tracing"

	"github.com/mqprobe/mqprobe/internal/configcheck"

	wsqs "github.com/ThreeDotsLabs/watermill-aws/sqs"
)

// Defaults of SubscriberConfig.
const (
	DefaultWaitTimeSeconds   = MaxWaitTimeSeconds
	DefaultVisibilityTimeout = 60 * time.Second
	DefaultMaxMessages       = 10
	DefaultCloseTimeout      = 30 * time.Second
)

// SubscriberConfig configures the command subscriber. Its tagged settings
// are the daemon's sqs section (yaml and desc tags: see internal/config);
// the others are wired by the daemon.
type SubscriberConfig struct {
	// CommandQueue is the command queue's URL, or its name. The queue must
	// exist: the subscriber never creates it.
	CommandQueue string `yaml:"commandQueue" desc:"SQS queue commands arrive on, name or URL (required in aws mode)"`
	// WaitTimeSeconds is the long-polling wait of each receive, 1–20
	// (default 20).
	WaitTimeSeconds int `yaml:"waitTimeSeconds" desc:"Long-poll wait of each ReceiveMessage, 0-20 seconds"`
	// VisibilityTimeout hides a received command from other consumers; it is
	// renewed every third of it for as long as the command runs. Whole
	// seconds, 3s–12h (default 60s).
	VisibilityTimeout time.Duration `yaml:"visibilityTimeout" desc:"Visibility timeout of received messages (whole seconds, at most 12h)"`
	// MaxMessages is how many commands the subscriber holds at once (default
	// 10), each taken by its own receive loop one message at a time: a
	// watermill-aws subscription hands a received batch over one message at
	// a time, and the messages waiting behind a long command would neither
	// be extended nor survive a nack.
	MaxMessages int `yaml:"maxMessages" desc:"Messages per ReceiveMessage, 1-10"`
	// CloseTimeout bounds how long Close waits for delivered commands to be
	// acked or nacked (default 30s). Commands still running then are left
	// to SQS: they reappear when their visibility timeout runs out.
	CloseTimeout time.Duration `yaml:"-"`
	// TracerProvider traces the SQS calls that settle commands; nil: none.
	TracerProvider tracing.TracerProvider `yaml:"-"`
	// WaitForRoom, when set, blocks until the daemon could start another
	// command (or ctx ends). A receive loop calls it before it receives
	// again, so a saturated daemon leaves commands in the queue, visible to
	// other instances, instead of holding ones it cannot start.
	WaitForRoom func(ctx context.Context) error `yaml:"-"`
}

// DefaultSubscriberConfig is the settings of the sqs section a zero
// SubscriberConfig gets.
func DefaultSubscriberConfig() SubscriberConfig {
	return SubscriberConfig{WaitTimeSeconds: DefaultWaitTimeSeconds, VisibilityTimeout: DefaultVisibilityTimeout,
		MaxMessages: DefaultMaxMessages}
}

// maxBatch is the most messages one ReceiveMessage returns.
const maxBatch = 10

// Validate reports every setting of the sqs section out of range, each a
// *configcheck.FieldError naming its key; 0 stands for the default.
func (c SubscriberConfig) Validate() error {
	var v configcheck.Errors
	v.Between("sqs.waitTimeSeconds", c.WaitTimeSeconds, 0, MaxWaitTimeSeconds)
	v.Between("sqs.maxMessages", c.MaxMessages, 1, maxBatch)
	// SQS counts visibility in whole seconds, up to 12 hours.
	if c.VisibilityTimeout < 0 || c.VisibilityTimeout > MaxVisibilityTimeout || c.VisibilityTimeout%time.Second != 0 {
		v.Fail("sqs.visibilityTimeout", "must be whole seconds between 0s and 12h (got %s)", configcheck.FormatDuration(c.VisibilityTimeout))
	}
	return v.Err()
}

func (c *SubscriberConfig) setDefaults() {
	if c.WaitTimeSeconds == 0 {
		c.WaitTimeSeconds = DefaultWaitTimeSeconds
	}
	if c.VisibilityTimeout == 0 {
		c.VisibilityTimeout = DefaultVisibilityTimeout
	}
	if c.MaxMessages == 0 {
		c.MaxMessages = DefaultMaxMessages
	}
	if c.CloseTimeout == 0 {
		c.CloseTimeout = DefaultCloseTimeout
	}
}

func (c SubscriberConfig) validate() error {
	var errs []error
	if c.CommandQueue == "" {
		errs = append(errs, errors.New("CommandQueue is required"))
	}
	if c.WaitTimeSeconds < 1 || c.WaitTimeSeconds > MaxWaitTimeSeconds {
		errs = append(errs, fmt.Errorf("WaitTimeSeconds %d is outside 1–%d", c.WaitTimeSeconds, MaxWaitTimeSeconds))
	}
	if c.VisibilityTimeout < 3*time.Second || c.VisibilityTimeout > MaxVisibilityTimeout ||
		c.VisibilityTimeout%time.Second != 0 {
		errs = append(errs, fmt.Errorf("VisibilityTimeout %s is not whole seconds within 3s–12h", c.VisibilityTimeout))
	}
	if c.MaxMessages < 1 {
		errs = append(errs, fmt.Errorf("MaxMessages %d is below 1", c.MaxMessages))
	}
	if c.CloseTimeout < 0 {
		errs = append(errs, fmt.Errorf("CloseTimeout %s is negative", c.CloseTimeout))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("SQS command subscriber: %w", err)
	}
	return nil
}

// subscriber wraps watermill-aws's SQS subscriber. watermill-aws receives
// and unmarshals; this layer settles each message itself — deletes it on
// ack, sets its visibility to the asked delay on nack, keeps it invisible
// while it is processed — and then tells watermill-aws to move on (its Nack
// leaves a message untouched). Settling here, on a context that the end of
// the subscription does not cancel, is what lets a command that finishes
// during shutdown still be deleted.
type subscriber struct {
	cfg    SubscriberConfig
	client *sqs.Client
	sub    *wsqs.Subscriber
	logger watermill.LoggerAdapter

	mu      sync.Mutex
	closed  bool
	closing chan struct{} // closed by Close: stop taking messages
	abandon chan struct{} // closed when CloseTimeout passes: stop waiting for acks
	running sync.WaitGroup
}

// NewCommandSubscriber returns a subscriber of the SQS command queue.
//
// The topic given to Subscribe is ignored: the queue is cfg.CommandQueue. Each
// message's body is delivered as received, with its message attributes as
// metadata plus MetaMessageID and MetaReceiveCount. A handler nacking a
// message may set MetaRetryAfter (SetRetryAfter) to choose when it comes
// back.
func NewCommandSubscriber(awsCfg aws.Config, cfg SubscriberConfig, logger watermill.LoggerAdapter) (message.Subscriber, error) {
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = watermill.NopLogger{}
	}
	sub, err := wsqs.NewSubscriber(wsqs.SubscriberConfig{
		AWSConfig:                   awsCfg,
		DoNotCreateQueueIfNotExists: true,
		// Subscribe is given the URL already resolved.
		QueueUrlResolver: wsqs.TransparentUrlResolver{},
		GenerateReceiveMessageInput: func(_ context.Context, queueURL wsqs.QueueURL) (*sqs.ReceiveMessageInput, error) {
			return &sqs.ReceiveMessageInput{
				QueueUrl:                    aws.String(string(queueURL)),
				MessageAttributeNames:       []string{"All"},
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount},
				MaxNumberOfMessages:         1,
				WaitTimeSeconds:             int32(cfg.WaitTimeSeconds),
				VisibilityTimeout:           visibilitySeconds(cfg.VisibilityTimeout),
			}, nil
		},
		Unmarshaler: unmarshaler{},
		OptFns:      []func(*sqs.Options){finishReceives(time.Duration(cfg.WaitTimeSeconds)*time.Second + receiveGrace)},
	}, logger)
	if err != nil {
		return nil, fmt.Errorf("SQS command subscriber: %w", err)
	}
	return &subscriber{
		cfg:     cfg,
		client:  sqs.NewFromConfig(awsCfg, withTracing[sqs.Options](cfg.TracerProvider)),
		sub:     sub,
		logger:  logger.With(watermill.LogFields{"queue": cfg.CommandQueue}),
		closing: make(chan struct{}),
		abandon: make(chan struct{}),
	}, nil
}

// Subscribe starts MaxMessages receive loops on the command queue. The
// channel closes once ctx is done or the subscriber is closed and every
// message it delivered has been acked or nacked.
func (s *subscriber) Subscribe(ctx context.Context, _ string) (<-chan *message.Message, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("SQS command subscriber is closed")
	}
	s.running.Add(1)
	s.mu.Unlock()

	queueURL, err := resolveQueueURL(ctx, s.client, s.cfg.CommandQueue)
	if err != nil {
		s.running.Done()
		return nil, err
	}
	// The receive loops end when this subscription does. A receive in flight
	// then still runs to its end (finishReceives) and what it brings is
	// handed back at once; messages being handled are settled on their own
	// context, so ending early loses nothing.
	recvCtx, stopReceiving := context.WithCancel(context.WithoutCancel(ctx))
	ctx, stopForwarding := context.WithCancel(ctx)
	out := make(chan *message.Message)
	var loops sync.WaitGroup
	defer func() {
		go func() {
			loops.Wait()
			stopForwarding()
			stopReceiving()
			close(out)
			s.running.Done()
		}()
	}()
	for range s.cfg.MaxMessages {
		in, err := s.sub.Subscribe(recvCtx, queueURL)
		if err != nil {
			// Loops already started release what they hold and end.
			stopForwarding()
			return nil, fmt.Errorf("subscribe to SQS queue %s: %w", queueURL, err)
		}
		loops.Add(1)
		go func() {
			defer loops.Done()
			s.forward(ctx, in, out, queueURL, stopReceiving)
		}()
	}
	return out, nil
}

// forward hands messages from one receive loop over one at a time until the
// subscription ends, then releases whatever the loop still hands in.
func (s *subscriber) forward(ctx context.Context, in <-chan *message.Message, out chan<- *message.Message,
	queueURL string, stopReceiving context.CancelFunc) {
	for !s.stopping(ctx) {
		var m *message.Message
		select {
		case m = <-in:
		case <-ctx.Done():
		case <-s.closing:
		}
		if m == nil {
			break
		}
		s.deliver(ctx, m, out, queueURL)
	}
	stopReceiving()
	for m := range in {
		s.release(s.receipt(m, queueURL), m)
	}
}

// receiveGrace is how much longer than its long-poll wait a receive may take
// to come back.
const receiveGrace = 10 * time.Second

// finishReceives makes a ReceiveMessage call outlive the cancellation of its
// context, up to bound. SQS answers a long poll whose caller has gone: the
// messages it hands that poll stay invisible to every consumer for their
// whole visibility timeout. So a subscription ending (a rolling restart's
// SIGTERM) stops issuing receives but lets the ones in flight return, and
// forward hands what they bring back (visibility 0) for another instance.
func finishReceives(bound time.Duration) func(*sqs.Options) {
	finish := middleware.InitializeMiddlewareFunc("mqprobeFinishReceive", func(ctx context.Context,
		in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if awsmiddleware.GetOperationName(ctx) != "ReceiveMessage" {
			return next.HandleInitialize(ctx, in)
		}
		if err := ctx.Err(); err != nil { // ended before it was issued: issue none
			return middleware.InitializeOutput{}, middleware.Metadata{}, err
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
		defer cancel()
		return next.HandleInitialize(ctx, in)
	})
	return func(o *sqs.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(finish, middleware.Before)
		})
	}
}

// stopping reports whether the subscription is to end.
func (s *subscriber) stopping(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	case <-s.closing:
		return true
	default:
		return false
	}
}

// receipt takes the receipt handle out of m's metadata.
func (s *subscriber) receipt(m *message.Message, queueURL string) receipt {
	r := receipt{client: s.client, queueURL: queueURL, handle: m.Metadata.Get(metaReceipt)}
	delete(m.Metadata, metaReceipt)
	return r
}

// deliver passes m on and settles it in SQS once the handler acks or nacks
// it, keeping it invisible meanwhile.
func (s *subscriber) deliver(ctx context.Context, m *message.Message, out chan<- *message.Message, queueURL string) {
	r := s.receipt(m, queueURL)
	if s.stopping(ctx) { // the select below would pick at random
		s.release(r, m)
		return
	}
	log := s.logger.With(watermill.LogFields{"message_id": m.Metadata.Get(MetaMessageID)})
	stopExtending := r.keepInvisible(s.cfg.VisibilityTimeout, func(err error) {
		log.Error("Cannot extend the visibility of a running command", err, nil)
	})

	msgCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	fwd := message.NewMessage(m.UUID, m.Payload)
	fwd.Metadata = m.Metadata
	fwd.SetContext(msgCtx)
	sent := false
	select {
	case out <- fwd:
		sent = true
	case <-ctx.Done():
	case <-s.closing:
	}
	if !sent {
		stopExtending()
		s.release(r, m)
		return
	}

	select {
	case <-fwd.Acked():
		stopExtending()
		if err := r.delete(context.Background()); err != nil {
			log.Error("Cannot delete an acked command; it will be redelivered", err, nil)
		}
	case <-fwd.Nacked():
		stopExtending()
		s.delayRedelivery(r, fwd.Metadata, log)
	case <-s.abandon:
		stopExtending()
		log.Info("Closed before the command was acked or nacked; it reappears after its visibility timeout", nil)
	}
	s.waitForRoom(ctx)
	m.Nack() // settled here: watermill-aws is only to receive the next one
}

// waitForRoom holds this receive loop back while the daemon is saturated.
func (s *subscriber) waitForRoom(ctx context.Context) {
	if s.cfg.WaitForRoom == nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	_ = s.cfg.WaitForRoom(ctx) // an error means the subscription ends: nothing to wait for
}

// delayRedelivery makes a nacked message visible again after the delay its
// handler asked for, else when its visibility timeout runs out.
func (s *subscriber) delayRedelivery(r receipt, meta message.Metadata, log watermill.LoggerAdapter) {
	d, ok := retryAfter(meta)
	if !ok {
		return
	}
	if err := r.setVisibility(context.Background(), d); err != nil {
		log.Error("Cannot delay the redelivery of a nacked command", err, nil)
	}
}

// release gives back a message that was received but not handled, for any
// consumer to take at once.
func (s *subscriber) release(r receipt, m *message.Message) {
	if err := r.setVisibility(context.Background(), 0); err != nil {
		s.logger.Info("Cannot release an unhandled command; it reappears after its visibility timeout",
			watermill.LogFields{"message_id": m.Metadata.Get(MetaMessageID), "error": err.Error()})
	}
	m.Nack()
}

// Close stops receiving, waits (up to CloseTimeout) until every delivered
// message has been acked or nacked and settled, and closes watermill-aws's
// subscriber. Past CloseTimeout it still waits for what is bounded on its
// own: each SQS call that settles a message (settleTimeout), and a receive
// in flight (its wait plus receiveGrace) with the release of what it brings.
func (s *subscriber) Close() error {
	s.mu.Lock()
	first := !s.closed
	if first {
		s.closed = true
		close(s.closing)
	}
	s.mu.Unlock()
	if first {
		s.waitOrAbandon()
	}
	s.running.Wait()
	if err := s.sub.Close(); err != nil {
		return fmt.Errorf("close SQS subscriber: %w", err)
	}
	return nil
}

// waitOrAbandon waits for the subscriptions to end, and past CloseTimeout
// makes them stop waiting for their messages' acks.
func (s *subscriber) waitOrAbandon() {
	done := make(chan struct{})
	go func() {
		s.running.Wait()
		close(done)
	}()
	timer := time.NewTimer(s.cfg.CloseTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		close(s.abandon)
	}
}
