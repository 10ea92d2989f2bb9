package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/logging"
	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
)

// awsSend publishes body to SQS or SNS when the command line or the
// configuration says aws; handled reports whether it did. The flags of
// the other mode are refused, so none is silently ignored.
func awsSend(cmd *cobra.Command, opts *sendOptions, op string, body []byte) (handled bool, err error) {
	queue, topic, resultsQueue := opts.aws.sqsQueue, opts.aws.snsTopic, opts.aws.resultsQueue
	var cfg *config.Config
	if queue == "" && topic == "" {
		if cfg, err = loadConfig(cmd); err != nil {
			return true, err
		}
		if cfg.Mode != config.ModeAWS {
			for _, name := range awsFlags {
				if cmd.Flags().Changed(name) {
					return true, usageErrorf(cmd, "--%s applies in aws mode only (mode: aws, --sqs-queue or --sns-topic); this command goes to the daemon's HTTP API", name)
				}
			}
			return false, nil
		}
		queue = cfg.SQS.CommandQueue
	}
	for _, name := range clientFlags {
		if cmd.Flags().Changed(name) {
			return true, usageErrorf(cmd, "--%s applies to the daemon's HTTP API; in aws mode the command is published to SQS or SNS", name)
		}
	}
	// --wait's result comes through a queue of its own subscribed to the
	// results topic, else from the shared results queue (--results-queue
	// says which).
	var resultsTopic string
	if opts.wait && resultsQueue == "" {
		if cfg == nil {
			if cfg, err = loadConfig(cmd); err != nil {
				return true, err
			}
		}
		if resultsTopic, resultsQueue = cfg.Results.TopicARN, cfg.Results.QueueURL; resultsTopic == "" && resultsQueue == "" {
			return true, usageErrorf(cmd, "--wait needs the results: results.snsTopicArn (waited for on a temporary queue of its own), or a results queue: --results-queue or results.sqsQueue")
		}
	}
	if opts.client.Timeout <= 0 {
		return true, usageErrorf(cmd, "--timeout %s: must be positive", opts.client.Timeout)
	}
	key := bodyKey(body)
	if key == "" {
		key = opts.keys.key
	}
	if key == "" {
		// A key of our own: the result is found by it, and a retry with
		// it does not run the command twice.
		key = uuid.NewString()
		fmt.Fprintf(cmd.ErrOrStderr(), "idempotency key %s\n", key)
	}
	attrs := map[string]string{"Idempotency-Key": key}
	if opts.keys.expirySeconds != 0 {
		attrs["Idempotency-Expiry-Seconds"] = fmt.Sprint(opts.keys.expirySeconds)
	}
	ctx := cmd.Context()
	awsCfg, err := awsbus.LoadConfig(ctx)
	if err != nil {
		return true, &exitError{code: exitFailed, err: fmt.Errorf("AWS configuration: %w", err)}
	}
	// The SDK's own log lines (connection reuse after a long poll ends)
	// would land in the user's output; its errors reach us as errors.
	awsCfg.Logger = logging.Nop{}
	if opts.wait && resultsTopic != "" {
		sub, err := awsbus.SubscribeResults(ctx, awsCfg, resultsTopic, key)
		if err != nil {
			return true, &exitError{code: exitFailed, err: fmt.Errorf("waiting for the result on a queue of its own: %w", err)}
		}
		defer removeReplyQueue(cmd, sub)
		resultsQueue = sub.URL
		fmt.Fprintf(cmd.ErrOrStderr(), "waiting on %s, subscribed to %s for this key (removed after)\n", sub.Name, resultsTopic)
	}
	id, err := awsbus.SendCommand(ctx, awsCfg, queue, topic, body, attrs)
	if err != nil {
		return true, &exitError{code: exitFailed, err: err}
	}
	out := cmd.OutOrStdout()
	if !opts.wait {
		fmt.Fprintf(out, "{\"messageId\":%q,\"idempotencyKey\":%q}\n", id, key)
		return true, nil
	}
	operation := operationType(op)
	stopWatch := func() {}
	if liveLine(out, &opts.output, op) {
		if cfg == nil {
			if cfg, err = loadConfig(cmd); err != nil {
				return true, err
			}
		}
		stopWatch = watchRecord(cmd, cfg, operation, key, verbOf(op), totalOf(body))
	}
	ev, err := awsbus.AwaitResult(ctx, sqs.NewFromConfig(awsCfg), resultsQueue, key, opts.client.Timeout)
	stopWatch()
	if err != nil {
		switch {
		case errors.Is(err, context.Canceled):
			err = errors.New("interrupted before the result")
		case errors.Is(err, awsbus.ErrNoResult):
			err = fmt.Errorf("no result for key %s within --timeout %s", key, opts.client.Timeout)
		}
		goesTo := resultsTopic
		if goesTo == "" {
			goesTo = resultsQueue
		}
		return true, &exitError{code: exitNotDecided, err: fmt.Errorf("%w; the command may still be running: mqprobe send status %s %s reads its record from the idempotency store, and its result event still goes to %s", err, operation, key, goesTo)}
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return true, &exitError{code: exitFailed, err: fmt.Errorf("encoding the result: %w", err)}
	}
	if err := opts.output.print(out, data); err != nil {
		return true, err
	}
	return true, exitFor(nil, data)
}

// replyCleanupTimeout bounds removing the reply queue, which runs after
// an interrupt too.
const replyCleanupTimeout = 30 * time.Second

// removeReplyQueue unsubscribes and deletes the wait's own queue, saying
// so when it cannot (the queue is then left for the user to delete).
func removeReplyQueue(cmd *cobra.Command, sub *awsbus.ResultSubscription) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), replyCleanupTimeout)
	defer cancel()
	if err := sub.Close(ctx); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "mqprobe: removing the reply queue: %v (delete %s yourself)\n", err, sub.URL)
	}
}

// watchRecord shows the live line of a command from its idempotency
// record, through the configured store. When the store cannot be opened
// the line says so once and the wait goes on without it. stop ends the
// line and closes the store.
func watchRecord(cmd *cobra.Command, cfg *config.Config, operation, key, verb string, total int64) (stop func()) {
	line := &progressLine{w: cmd.OutOrStdout(), tty: true}
	records, closeStore, err := daemon.OpenRecords(cmd.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "no live progress: the idempotency store: %v\n", err)
		return func() {}
	}
	watch := startCommandWatch(cmd.Context(), storeStateSource(records, operation, key), verb, total, line)
	return func() {
		watch.stop()
		if err := closeStore(); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "closing the idempotency store: %v\n", err)
		}
	}
}
