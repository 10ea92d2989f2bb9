package awsbus

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mqprobe/mqprobe/internal/result"
)

// consumeEvent is a CONSUME's result event listing n messages of ~150 bytes.
func consumeEvent(n int) result.Event {
	list := make([]string, n)
	for i := range list {
		list[i] = fmt.Sprintf(`{"msgIdBase64":"id-%04d","payloadBase64":"%s"}`, i, strings.Repeat("A", 120))
	}
	return result.New("mqprobe/test", result.Data{OperationType: "CONSUME", IdempotencyKey: "key-big",
		Status: result.StatusCompleted, Tags: map[string]string{},
		Result: json.RawMessage(fmt.Sprintf(`{"received":%d,"browsed":0,"messages":[%s],"truncated":false}`, n, strings.Join(list, ",")))},
		time.Now())
}

// TestResultEventFitsTheQueue: a queue whose MaximumMessageSize is 2 KiB
// receives a CONSUME's event cut to fit, its list shortened and marked
// truncated, its count of messages whole. (moto only: goaws neither keeps
// nor enforces MaximumMessageSize.)
func TestResultEventFitsTheQueue(t *testing.T) {
	if err := use(emulators[1]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = use(emulators[0]) })
	url, _ := newQueue(t, map[string]string{"MaximumMessageSize": "2048"})
	pub, err := NewResultPublisher(awsCfg, PublisherConfig{QueueURL: url})
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(t.Context(), consumeEvent(100)); err != nil {
		t.Fatalf("Publish of an event over the queue's limit: %v", err)
	}
	m := receiveRaw(t, url)
	if n := len(aws.ToString(m.Body)); n > 2048 {
		t.Errorf("body of %d bytes, over the queue's 2048", n)
	}
	var got result.Event
	if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &got); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Received  int
		Truncated bool
		Messages  []json.RawMessage
	}
	if err := json.Unmarshal(got.Data.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.Received != 100 || !r.Truncated || len(r.Messages) == 0 || len(r.Messages) >= 100 {
		t.Errorf("received %d truncated %v listed %d: want 100 counted, some listed, truncated", r.Received, r.Truncated, len(r.Messages))
	}
}

// TestResultEventFitsTheTopic: SNS takes 256 KiB; a CONSUME event of some
// 400 KB reaches the topic's subscriber cut to fit, its count whole. (moto:
// goaws does not enforce the limit.)
func TestResultEventFitsTheTopic(t *testing.T) {
	if err := use(emulators[1]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = use(emulators[0]) })
	topic := newTopic(t)
	url, arn := newQueue(t, map[string]string{"MaximumMessageSize": "1048576"})
	subscribeQueue(t, topic, arn, true)
	pub, err := NewResultPublisher(awsCfg, PublisherConfig{TopicARN: topic})
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(t.Context(), consumeEvent(3000)); err != nil {
		t.Fatalf("Publish of a 400 KB event: %v", err)
	}
	m := receiveRaw(t, url)
	if n := len(aws.ToString(m.Body)); n > 256*1024 {
		t.Errorf("body of %d bytes, over SNS's 256 KiB", n)
	}
	var got result.Event
	if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &got); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Received  int
		Truncated bool
		Messages  []json.RawMessage
	}
	if err := json.Unmarshal(got.Data.Result, &r); err != nil {
		t.Fatal(err)
	}
	if r.Received != 3000 || !r.Truncated || len(r.Messages) == 0 || len(r.Messages) >= 3000 {
		t.Errorf("received %d truncated %v listed %d: want 3000 counted, some listed, truncated", r.Received, r.Truncated, len(r.Messages))
	}
}
