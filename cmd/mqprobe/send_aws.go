package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/mqprobe/mqprobe/internal/result"
)

// awsSend publishes body to SQS or SNS when the command line or the
// configuration says aws; handled reports whether it did.
func awsSend(cmd *cobra.Command, body []byte) (handled bool, err error) {
	flags := cmd.Flags()
	queue, _ := flags.GetString("sqs-queue")
	topic, _ := flags.GetString("sns-topic")
	resultsQueue, _ := flags.GetString("results-queue")
	if queue == "" && topic == "" {
		cfg, err := loadConfig(cmd)
		if err != nil {
			return true, err
		}
		if cfg.Mode != config.ModeAWS {
			return false, nil
		}
		queue = cfg.SQS.CommandQueue
		if resultsQueue == "" {
			resultsQueue = cfg.Results.SQSQueue
		}
	}
	key, _ := flags.GetString("key")
	wait, _ := flags.GetBool("wait")
	if key == "" && wait {
		key = uuid.NewString() // the result is found by its key
	}
	attrs := map[string]string{}
	if key != "" {
		attrs["Idempotency-Key"] = key
	}
	if exp, _ := flags.GetInt("expiry-seconds"); exp != 0 {
		attrs["Idempotency-Expiry-Seconds"] = fmt.Sprint(exp)
	}
	ctx := cmd.Context()
	awsCfg, err := awsbus.LoadConfig(ctx)
	if err != nil {
		return true, &exitError{code: exitFailed, err: err}
	}
	id, err := publishCommand(ctx, awsCfg, queue, topic, body, attrs)
	if err != nil {
		return true, &exitError{code: exitFailed, err: err}
	}
	if !wait {
		fmt.Fprintf(cmd.OutOrStdout(), "{\"messageId\":%q,\"idempotencyKey\":%q}\n", id, key)
		return true, nil
	}
	if resultsQueue == "" {
		return true, &exitError{code: exitUsage, err: errors.New("--wait needs a results queue: --results-queue or results.sqsQueue")}
	}
	timeout, _ := flags.GetDuration("timeout")
	ev, err := awaitResult(ctx, sqs.NewFromConfig(awsCfg), resultsQueue, key, timeout)
	if err != nil {
		return true, &exitError{code: exitNotDecided, err: err}
	}
	out, _ := json.MarshalIndent(ev.Data, "", "  ")
	fmt.Fprintln(cmd.OutOrStdout(), string(out))
	switch ev.Data.Status {
	case result.StatusCompleted:
		return true, nil
	case result.StatusRejected:
		return true, &exitError{code: exitRejected, err: errors.New("")}
	}
	return true, &exitError{code: exitFailed, err: errors.New("")}
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
				_, _ = client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
				return ev, nil
			}
			_, _ = client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url),
				ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
		}
	}
	return result.Event{}, fmt.Errorf("no result for key %s on %s within %s", key, queue, timeout)
}
