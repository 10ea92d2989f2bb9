package awsbus

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

var (
	nameSeq   atomic.Int64
	nameStrip = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
)

// uniqueName is a queue or topic name no other test or run uses.
func uniqueName(t *testing.T) string {
	name := nameStrip.ReplaceAllString(t.Name(), "-")
	if len(name) > 50 {
		name = name[:50]
	}
	return fmt.Sprintf("%s-%d-%d", name, time.Now().UnixNano()%1e9, nameSeq.Add(1))
}

// newQueue creates a queue, deleted when the test ends, and returns its URL
// and ARN.
func newQueue(t *testing.T, attrs map[string]string) (url, arn string) {
	t.Helper()
	return testenv.NewQueue(t, sqsClient, uniqueName(t), attrs)
}

// newTopic creates a topic, deleted when the test ends, and returns its ARN.
func newTopic(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	out, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(uniqueName(t))})
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	arn := aws.ToString(out.TopicArn)
	t.Cleanup(func() { _, _ = snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(arn)}) })
	return arn
}

// subscribeQueue subscribes the queue to the topic.
func subscribeQueue(t *testing.T, topicARN, queueARN string, raw bool) {
	t.Helper()
	_, err := snsClient.Subscribe(context.Background(), &sns.SubscribeInput{
		TopicArn:   aws.String(topicARN),
		Protocol:   aws.String("sqs"),
		Endpoint:   aws.String(queueARN),
		Attributes: map[string]string{"RawMessageDelivery": strconv.FormatBool(raw)},
	})
	if err != nil {
		t.Fatalf("subscribe queue to topic: %v", err)
	}
}

// send puts a message with String attributes on the queue and returns its
// message id.
func send(t *testing.T, url, body string, attrs map[string]string) string {
	t.Helper()
	id, err := SendCommand(context.Background(), awsCfg, url, "", []byte(body), attrs)
	if err != nil {
		t.Fatalf("send message: %v", err)
	}
	return id
}

// subscribe starts a command subscriber, closed when the test ends (a
// failed test may leave messages unsettled: Close waits for them at most
// CloseTimeout, 5s unless set).
func subscribe(t *testing.T, cfg SubscriberConfig) (message.Subscriber, <-chan *message.Message) {
	t.Helper()
	if cfg.CloseTimeout == 0 {
		cfg.CloseTimeout = 5 * time.Second
	}
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	sub, err := NewCommandSubscriber(awsCfg, cfg, watermill.NewSlogLogger(logger))
	if err != nil {
		t.Fatalf("NewCommandSubscriber: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := sub.Subscribe(ctx, "ignored-topic")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := sub.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return sub, ch
}

// next waits for a message.
func next(t *testing.T, ch <-chan *message.Message, within time.Duration) *message.Message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed")
		}
		return m
	case <-time.After(within):
		t.Fatalf("no message within %s", within)
	}
	return nil
}

// none asserts that no message arrives for d, nacking any that does.
func none(t *testing.T, ch <-chan *message.Message, d time.Duration) {
	t.Helper()
	select {
	case m := <-ch:
		m.Nack()
		t.Fatalf("unexpected delivery of %q", m.Payload)
	case <-time.After(d):
	}
}

// queueEmpty reports whether the queue holds no message, visible or not.
func queueEmpty(t *testing.T, url string) bool {
	t.Helper()
	out, err := sqsClient.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{
			types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		},
	})
	if err != nil {
		t.Fatalf("queue attributes: %v", err)
	}
	return out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)] == "0" &&
		out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessagesNotVisible)] == "0"
}

// eventually fails t unless cond, which asks the emulator, holds within.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !testenv.UntilEvery(within, 50*time.Millisecond, cond) {
		t.Fatalf("not %s within %s", what, within)
	}
}

// receiveRaw takes one message off a queue with the SDK, with all its
// attributes, and deletes it.
func receiveRaw(t *testing.T, url string) types.Message {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, err := sqsClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MessageAttributeNames: []string{"All"}, WaitTimeSeconds: 2,
		})
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		if len(out.Messages) > 0 {
			m := out.Messages[0]
			if _, err := sqsClient.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			return m
		}
	}
	t.Fatalf("no message on %s", url)
	return types.Message{}
}
