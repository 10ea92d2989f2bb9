// Package router wires watermill: the command bus subscriptions, the
// middleware every bus message passes through, and the per-mode transports.
// In embedded mode the bus is watermill's in-process gochannel, fed by the
// HTTP API (POST /commands) and by anything else that publishes to it.
package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/telemetry"
)

// Topics of the in-process bus.
const (
	CommandsTopic = "mqprobe.commands"
	ResultsTopic  = "mqprobe.results"
)

// Metadata keys carried by bus messages (SQS message attributes in aws mode).
const (
	MetaIdempotencyKey    = "Idempotency-Key"
	MetaIdempotencyExpiry = "Idempotency-Expiry-Seconds"
	MetaMessageID         = "MessageId"
	MetaTraceParent       = "traceparent"
)

// Config tunes the router.
type Config struct {
	// CloseTimeout bounds how long Close waits for in-flight commands
	// (0: watermill's default, 30s).
	CloseTimeout time.Duration
	// WorkContext carries commands' work: cancelled when the drain deadline
	// passes, which makes running handlers back out and release their claims.
	// Nil means never.
	WorkContext context.Context
	// DelayRedelivery, when set, hands a nacked message's delay to the
	// transport (SQS: its visibility timeout); otherwise the router waits
	// that long before nacking, as the in-process bus redelivers at once.
	DelayRedelivery func(msg *message.Message, after time.Duration)
	// Log receives a line for each command left for redelivery; nil means
	// slog.Default().
	Log *slog.Logger
	// Settled, when set, is told of each message acked (Transport.Settled).
	Settled func(msg *message.Message)
}

// Router consumes commands from a subscriber and runs them through the
// executor.
type Router struct {
	router *message.Router
}

// New builds a router that feeds messages from sub (on CommandsTopic) to x.
func New(cfg Config, sub message.Subscriber, x *executor.Executor, log watermill.LoggerAdapter) (*Router, error) {
	if cfg.WorkContext == nil {
		cfg.WorkContext = context.Background()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	r, err := message.NewRouter(message.RouterConfig{CloseTimeout: cfg.CloseTimeout}, log)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	// A panic, recovered into an error, is redelivered like any failure.
	r.AddMiddleware(redeliverLater(cfg.DelayRedelivery, x.RetryDelay(), cfg.Log), middleware.Recoverer)
	r.AddConsumerHandler("commands", CommandsTopic, sub, executeHandler(cfg.WorkContext, x, cfg.Settled))
	return &Router{router: r}, nil
}

// Run processes messages until ctx ends or Close is called.
func (r *Router) Run(ctx context.Context) error { return r.router.Run(ctx) }

// Running is closed once the router consumes.
func (r *Router) Running() chan struct{} { return r.router.Running() }

// IsRunning reports whether the router consumes now.
func (r *Router) IsRunning() bool { return r.router.IsRunning() }

// Close stops consuming and waits for in-flight commands.
func (r *Router) Close() error { return r.router.Close() }

// retryError asks for redelivery after a delay.
type retryError struct {
	after time.Duration
	err   error
	// expected: nothing is wrong (the command runs elsewhere, or its
	// target is over its rate limit); otherwise a failure is retried.
	expected bool
}

func (e *retryError) Error() string { return fmt.Sprintf("redeliver in %s: %v", e.after, e.err) }
func (e *retryError) Unwrap() error { return e.err }

// executeHandler runs each message through the executor: acked when the
// executor says the command is done, otherwise nacked for redelivery.
func executeHandler(work context.Context, x *executor.Executor, settled func(*message.Message)) message.NoPublishHandlerFunc {
	return func(msg *message.Message) error {
		// The router cancels message contexts as soon as it closes, while
		// in-flight commands get until the drain deadline (work).
		ctx, release := executor.MergeCancel(msg.Context(), work)
		defer release()
		// The publisher's trace continues through this command.
		ctx = telemetry.WithTraceParent(ctx, msg.Metadata.Get(MetaTraceParent))
		messageID := msg.Metadata.Get(MetaMessageID)
		if messageID == "" {
			messageID = msg.UUID
		}
		out := x.Execute(ctx, command.Input{
			Body:           msg.Payload,
			Transport:      command.TransportBus,
			IdempotencyKey: msg.Metadata.Get(MetaIdempotencyKey),
			ExpirySeconds:  msg.Metadata.Get(MetaIdempotencyExpiry),
			MessageID:      messageID,
		}, executor.AwaitRecord()) // the message stays invisible while it waits
		settlement := settle(out)
		if settlement == ack {
			if settled != nil {
				settled(msg)
			}
			return nil
		}
		err := out.Err
		if err == nil {
			err = errors.New(string(out.Kind))
		}
		return &retryError{after: out.RetryAfter, err: err, expected: settlement == redeliverExpected}
	}
}

// settlement is what becomes of a bus message.
type settlement int

const (
	ack               settlement = iota // done: the command is decided and its result out
	redeliverExpected                   // back after RetryAfter; nothing is wrong
	redeliverFailure                    // back after RetryAfter, for a failure that is retried
)

// waitsWithoutFault are the kinds that leave a command for later with
// nothing wrong: it runs elsewhere, or there is no room or rate for it now.
var waitsWithoutFault = map[outcome.Kind]bool{outcome.InProgress: true, outcome.RateLimited: true, outcome.Busy: true}

// settle is how the bus settles an outcome: a final one is acked once its
// result is out (else it comes back to publish it); any other comes back.
func settle(out executor.Outcome) settlement {
	switch {
	case out.Kind.Final() && !out.Unpublished:
		return ack
	case waitsWithoutFault[out.Kind]:
		return redeliverExpected
	}
	return redeliverFailure
}

// redeliverLater settles a command the executor left undecided: it logs
// why and when it comes back (INFO when that is normal, WARN for a failure
// that is retried, ERROR for a fault such as a panic, which comes back
// after faultDelay), hands the delay to the transport when it can (else
// waits it out, as the in-process bus redelivers at once), and nacks. The
// watermill router would log every returned error as ERROR, which is for
// what needs a person.
func redeliverLater(transport func(*message.Message, time.Duration), faultDelay time.Duration, log *slog.Logger) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			msgs, err := h(msg)
			if err == nil {
				return msgs, nil
			}
			level, what := slog.LevelWarn, "command failed; it is retried"
			var re *retryError
			switch {
			case !errors.As(err, &re):
				re = &retryError{after: faultDelay, err: err}
				level, what = slog.LevelError, "command faulted; it is retried"
			case re.expected:
				level, what = slog.LevelInfo, "command redelivered later"
			}
			log.Log(msg.Context(), level, what, "message_id", msg.Metadata.Get(MetaMessageID),
				"key", command.EchoKey(msg.Metadata.Get(MetaIdempotencyKey)), "reason", re.err.Error(), "retry_after", re.after.String())
			if re.after > 0 {
				if transport != nil {
					transport(msg, re.after)
				} else {
					select {
					case <-time.After(re.after):
					case <-msg.Context().Done():
					}
				}
			}
			msg.Nack()
			return nil, nil
		}
	}
}
