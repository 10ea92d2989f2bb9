package awsbus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/result"
)

// foreignHold is how long AwaitResult keeps another command's result
// invisible: visible again at once, the next long poll would return it
// straight away and the wait would spin on it until its deadline.
const foreignHold = 5 * time.Second

// ErrNoResult is AwaitResult's error when the wait ends without the
// result.
var ErrNoResult = errors.New("no result")

// AwaitResult long-polls the results queue (a URL or a name) for the first
// non-progress event of key, and deletes it. Progress events of key are
// deleted as they come; other commands' events are left for their own
// consumers, hidden from this wait for foreignHold. With no result within
// timeout it returns ErrNoResult.
func AwaitResult(ctx context.Context, client *sqs.Client, queue, key string, timeout time.Duration) (result.Event, error) {
	url, err := queueURL(ctx, client, queue)
	if err != nil {
		return result.Event{}, fmt.Errorf("queue %s: %w", queue, err)
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
			MaxNumberOfMessages: 10, WaitTimeSeconds: int32(min(20, max(1, time.Until(deadline)/time.Second)))})
		if err != nil {
			return result.Event{}, fmt.Errorf("receive from %s: %w", queue, err)
		}
		for _, m := range out.Messages {
			var ev result.Event
			mine := json.NewDecoder(bytes.NewReader([]byte(aws.ToString(m.Body)))).Decode(&ev) == nil && ev.Data.IdempotencyKey == key
			if mine {
				// Best effort: undeleted, the event shows again to other readers.
				_, _ = client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
				if ev.Type != result.TypeProgress {
					return ev, nil
				}
				continue
			}
			// Best effort: unchanged, the event shows again after the queue's visibility timeout.
			_, _ = client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url),
				ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: int32(foreignHold / time.Second)})
		}
	}
	return result.Event{}, ErrNoResult
}
