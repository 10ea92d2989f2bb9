package awsbus

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestResultSubscriptionTakesOnlyItsKey: a waiting client's own queue gets
// its key's events from the results topic, published by the daemon's
// publisher, and no other key's; the shared results queue keeps every
// event, the waiter's too; Close leaves no queue behind.
func TestResultSubscriptionTakesOnlyItsKey(t *testing.T) {
	onEachEmulator(t, func(t *testing.T) {
		ctx := context.Background()
		topic := newTopic(t)
		sharedURL, sharedARN := newQueue(t, nil)
		subscribeQueue(t, topic, sharedARN, true)
		sub, err := SubscribeResults(ctx, awsCfg, topic, "mine")
		if err != nil {
			t.Fatal(err)
		}
		closed := false
		t.Cleanup(func() {
			if !closed {
				_ = sub.Close(ctx)
			}
		})
		if !strings.HasPrefix(sub.Name, ReplyQueuePrefix) {
			t.Errorf("reply queue %s: want the prefix %s", sub.Name, ReplyQueuePrefix)
		}
		pub, err := NewResultPublisher(awsCfg, PublisherConfig{TopicARN: topic})
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"someone-else", "mine"} {
			if err := pub.Publish(ctx, result.New("test", result.Data{IdempotencyKey: key, Status: result.StatusCompleted}, time.Now())); err != nil {
				t.Fatal(err)
			}
		}
		ev, err := AwaitResult(ctx, sqsClient, sub.URL, "mine", 20*time.Second)
		if err != nil || ev.Data.IdempotencyKey != "mine" {
			t.Fatalf("AwaitResult on the reply queue: %+v %v", ev.Data, err)
		}
		out, err := sqsClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(sub.URL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil || len(out.Messages) != 0 {
			t.Errorf("the reply queue got another key's event (the filter policy ignored?): %d messages, %v", len(out.Messages), err)
		}
		var shared []string
		testenv.Until(10*time.Second, func() bool {
			out, err := sqsClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(sharedURL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
			if err == nil {
				for _, m := range out.Messages {
					shared = append(shared, aws.ToString(m.Body))
				}
			}
			return len(shared) >= 2
		})
		if len(shared) != 2 {
			t.Errorf("the shared results queue holds %d events, want both", len(shared))
		}
		closed = true
		if err := sub.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := sqsClient.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(sub.Name)}); err == nil {
			t.Errorf("the reply queue %s is still there after Close", sub.Name)
		}
	})
}
