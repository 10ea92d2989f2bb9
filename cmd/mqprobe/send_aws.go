package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/aws/smithy-go/logging"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/result"
)

// awsSend publishes body to SQS or SNS when the command line or the
// configuration says aws; handled reports whether it did.
func awsSend(cmd *cobra.Command, opts *sendOptions, op string, body []byte) (handled bool, err error) {
	queue, topic, resultsQueue := opts.aws.sqsQueue, opts.aws.snsTopic, opts.aws.resultsQueue
	var cfg *config.Config
	if queue == "" && topic == "" {
		if cfg, err = loadConfig(cmd); err != nil {
			return true, err
		}
		if cfg.Mode != config.ModeAWS {
			return false, nil
		}
		queue = cfg.SQS.CommandQueue
	}
	if opts.wait && resultsQueue == "" {
		if cfg == nil {
			if cfg, err = loadConfig(cmd); err != nil {
				return true, err
			}
		}
		if resultsQueue = cfg.Results.SQSQueue; resultsQueue == "" {
			return true, usageErrorf(cmd, "--wait needs a results queue: --results-queue or results.sqsQueue")
		}
	}
	if opts.client.timeout <= 0 {
		return true, usageErrorf(cmd, "--timeout %s: must be positive", opts.client.timeout)
	}
	key := bodyKey(body)
	if key == "" {
		key = opts.keys.key
	}
	if key == "" && opts.wait {
		key = uuid.NewString() // the result is found by its key
		fmt.Fprintf(cmd.ErrOrStderr(), "idempotency key %s\n", key)
	}
	attrs := map[string]string{}
	if key != "" {
		attrs["Idempotency-Key"] = key
	}
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
	id, err := publishCommand(ctx, awsCfg, queue, topic, body, attrs)
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
	if isTerminal(out) && (op == "produce" || op == "consume") {
		if cfg == nil {
			if cfg, err = loadConfig(cmd); err != nil {
				return true, err
			}
		}
		stopWatch = watchRecord(cmd, cfg, operation, key, verbOf(op), totalOf(body))
	}
	ev, err := awaitResult(ctx, sqs.NewFromConfig(awsCfg), resultsQueue, key, opts.client.timeout)
	stopWatch()
	if err != nil {
		return true, &exitError{code: exitNotDecided, err: fmt.Errorf("%w; the command may still be running: mqprobe send status %s %s asks the daemon's HTTP API, and its result event still goes to %s", err, operation, key, resultsQueue)}
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return true, &exitError{code: exitFailed, err: fmt.Errorf("encoding the result: %w", err)}
	}
	if err := opts.output.print(out, data); err != nil {
		return true, err
	}
	return true, exitFor(0, data)
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

func publishCommand(ctx context.Context, awsCfg aws.Config, queue, topic string, body []byte, attrs map[string]string) (string, error) {
	if topic != "" {
		in := &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(string(body)),
			MessageAttributes: map[string]snstypes.MessageAttributeValue{}}
		for k, v := range attrs {
			in.MessageAttributes[k] = snstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
		}
		out, err := sns.NewFromConfig(awsCfg).Publish(ctx, in)
		if err != nil {
			return "", fmt.Errorf("publish to %s: %w", topic, err)
		}
		return aws.ToString(out.MessageId), nil
	}
	client := sqs.NewFromConfig(awsCfg)
	url, err := queueURL(ctx, client, queue)
	if err != nil {
		return "", err
	}
	in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(string(body)),
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{}}
	for k, v := range attrs {
		in.MessageAttributes[k] = sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	out, err := client.SendMessage(ctx, in)
	if err != nil {
		return "", fmt.Errorf("send to %s: %w", queue, err)
	}
	return aws.ToString(out.MessageId), nil
}

func queueURL(ctx context.Context, client *sqs.Client, queue string) (string, error) {
	if strings.HasPrefix(queue, "http://") || strings.HasPrefix(queue, "https://") {
		return queue, nil
	}
	out, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(queue)})
	if err != nil {
		return "", fmt.Errorf("queue %s: %w", queue, err)
	}
	return aws.ToString(out.QueueUrl), nil
}

// awaitResult long-polls the results queue for the first non-progress
// event of key. It deletes that one; others' events are made visible again
// at once, for their own consumers.
func awaitResult(ctx context.Context, client *sqs.Client, queue, key string, timeout time.Duration) (result.Event, error) {
	url, err := queueURL(ctx, client, queue)
	if err != nil {
		return result.Event{}, err
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
			MaxNumberOfMessages: 10, WaitTimeSeconds: int32(min(20, max(1, time.Until(deadline)/time.Second))),
			MessageAttributeNames: []string{"idempotencyKey"}})
		if err != nil {
			return result.Event{}, fmt.Errorf("receive from %s: %w", queue, err)
		}
		for _, m := range out.Messages {
			var ev result.Event
			mine := json.NewDecoder(bytes.NewReader([]byte(aws.ToString(m.Body)))).Decode(&ev) == nil &&
				ev.Data.IdempotencyKey == key && ev.Type != result.TypeProgress
			if mine {
				// Best effort: undeleted, the event shows again to other readers.
				_, _ = client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
				return ev, nil
			}
			// Best effort: unreleased, the event shows again after its visibility timeout.
			_, _ = client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url),
				ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
		}
	}
	return result.Event{}, fmt.Errorf("no result for key %s on %s within --timeout %s", key, queue, timeout)
}
