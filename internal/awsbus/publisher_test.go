package awsbus

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/result"
)

func sampleEvent() result.Event {
	e := result.New("mqprobe/test", result.Data{
		OperationType:  "PRODUCE",
		IdempotencyKey: "key-42",
		Status:         result.StatusCompleted,
		Result:         json.RawMessage(`{"enqueued":3}`),
		Tags:           map[string]string{},
	}, time.Now())
	e.TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	return e
}

// checkDelivered asserts that m is e as JSON, with the filterable attributes.
func checkDelivered(t *testing.T, m types.Message, e result.Event) {
	t.Helper()
	var got result.Event
	if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &got); err != nil {
		t.Fatalf("body %s: %v", aws.ToString(m.Body), err)
	}
	if got.ID != e.ID || got.Type != e.Type || got.Data.IdempotencyKey != e.Data.IdempotencyKey ||
		string(got.Data.Result) != string(e.Data.Result) {
		t.Errorf("body = %s", aws.ToString(m.Body))
	}
	want := map[string]string{
		"type":           "mqprobe.command.completed",
		"operationType":  "PRODUCE",
		"status":         "COMPLETED",
		"idempotencyKey": "key-42",
		"traceparent":    e.TraceParent,
	}
	for k, v := range want {
		a, ok := m.MessageAttributes[k]
		if !ok || aws.ToString(a.StringValue) != v || aws.ToString(a.DataType) != "String" {
			t.Errorf("attribute %s = %+v, want String %q", k, a, v)
		}
	}
}

func TestResultPublisherToSQS(t *testing.T) {
	url, _ := newQueue(t, nil)
	for name, queue := range map[string]string{"url": url, "name": url[strings.LastIndex(url, "/")+1:]} {
		t.Run(name, func(t *testing.T) {
			pub, err := NewResultPublisher(awsCfg, PublisherConfig{QueueURL: queue})
			if err != nil {
				t.Fatal(err)
			}
			e := sampleEvent()
			if err := pub.Publish(t.Context(), e); err != nil {
				t.Fatalf("Publish: %v", err)
			}
			checkDelivered(t, receiveRaw(t, url), e)
		})
	}
}

func TestResultPublisherToSNS(t *testing.T) {
	topic := newTopic(t)
	url, arn := newQueue(t, nil)
	subscribeQueue(t, topic, arn, true)
	pub, err := NewResultPublisher(awsCfg, PublisherConfig{TopicARN: topic})
	if err != nil {
		t.Fatal(err)
	}
	e := sampleEvent()
	if err := pub.Publish(t.Context(), e); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	checkDelivered(t, receiveRaw(t, url), e)
}

func TestResultPublisherOmitsEmptyAttributes(t *testing.T) {
	url, _ := newQueue(t, nil)
	pub, err := NewResultPublisher(awsCfg, PublisherConfig{QueueURL: url})
	if err != nil {
		t.Fatal(err)
	}
	e := sampleEvent()
	e.TraceParent, e.Data.IdempotencyKey = "", ""
	if err := pub.Publish(t.Context(), e); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	m := receiveRaw(t, url)
	for _, k := range []string{"traceparent", "idempotencyKey"} {
		if _, ok := m.MessageAttributes[k]; ok {
			t.Errorf("empty attribute %s sent", k)
		}
	}
	if _, ok := m.MessageAttributes["status"]; !ok {
		t.Error("status attribute missing")
	}
}

// A publish that fails must say so: the executor then nacks and the
// redelivery replays the result.
func TestResultPublisherFailsWhenDestinationIsGone(t *testing.T) {
	ctx := context.Background()
	t.Run("queue", func(t *testing.T) {
		url, _ := newQueue(t, nil)
		pub, err := NewResultPublisher(awsCfg, PublisherConfig{QueueURL: url[strings.LastIndex(url, "/")+1:]})
		if err != nil {
			t.Fatal(err)
		}
		if err := pub.Publish(ctx, sampleEvent()); err != nil {
			t.Fatalf("Publish before deletion: %v", err)
		}
		if _, err := sqsClient.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}); err != nil {
			t.Fatal(err)
		}
		if err := pub.Publish(ctx, sampleEvent()); err == nil {
			t.Error("Publish to a deleted queue succeeded")
		}
	})
	t.Run("topic", func(t *testing.T) {
		topic := newTopic(t)
		pub, err := NewResultPublisher(awsCfg, PublisherConfig{TopicARN: topic})
		if err != nil {
			t.Fatal(err)
		}
		if err := pub.Publish(ctx, sampleEvent()); err != nil {
			t.Fatalf("Publish before deletion: %v", err)
		}
		if _, err := snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(topic)}); err != nil {
			t.Fatal(err)
		}
		if err := pub.Publish(ctx, sampleEvent()); err == nil {
			t.Error("Publish to a deleted topic succeeded")
		}
	})
}

func TestResultPublisherConfig(t *testing.T) {
	for _, cfg := range []PublisherConfig{{}, {TopicARN: "arn:aws:sns:us-east-1:1:t", QueueURL: "q"}} {
		if _, err := NewResultPublisher(awsCfg, cfg); err == nil {
			t.Errorf("NewResultPublisher(%+v) accepted", cfg)
		}
	}
}

// TestPublisherConfigValidate: results.snsTopicArn must be an ARN when set,
// and the error names the key.
func TestPublisherConfigValidate(t *testing.T) {
	for _, ok := range []PublisherConfig{{}, {TopicARN: "arn:aws:sns:us-east-1:1:t"}, {QueueURL: "results"}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	err := PublisherConfig{TopicARN: "results"}.Validate()
	if err == nil || err.Error() != `results.snsTopicArn: must be an ARN, arn:aws:sns:<region>:<account>:<topic> (got "results")` {
		t.Errorf("topic name accepted as ARN: %v", err)
	}
}
