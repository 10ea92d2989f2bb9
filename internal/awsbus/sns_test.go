package awsbus

import (
	"encoding/json"
	"testing"
	"time"
)

// Commands a client publishes to SNS (SendCommand) reach the subscriber as
// SNS sends them: the command itself with raw delivery, else the
// notification envelope, which internal/command unwraps.
func TestCommandsThroughSNS(t *testing.T) {
	topic := newTopic(t)
	rawURL, rawARN := newQueue(t, nil)
	envURL, envARN := newQueue(t, nil)
	subscribeQueue(t, topic, rawARN, true)
	subscribeQueue(t, topic, envARN, false)

	const command = `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"Q1"}}`
	if _, err := SendCommand(t.Context(), awsCfg, "", topic, []byte(command), map[string]string{"Idempotency-Key": "sns-key"}); err != nil {
		t.Fatalf("publish: %v", err)
	}

	t.Run("raw", func(t *testing.T) {
		_, ch := subscribe(t, SubscriberConfig{CommandQueue: rawURL, WaitTimeSeconds: 1})
		m := next(t, ch, 10*time.Second)
		m.Ack()
		if string(m.Payload) != command {
			t.Errorf("payload = %s", m.Payload)
		}
		if got := m.Metadata.Get("Idempotency-Key"); got != "sns-key" {
			t.Errorf("Idempotency-Key = %q", got)
		}
	})
	t.Run("envelope", func(t *testing.T) {
		_, ch := subscribe(t, SubscriberConfig{CommandQueue: envURL, WaitTimeSeconds: 1})
		m := next(t, ch, 10*time.Second)
		m.Ack()
		var env struct {
			Type     string
			TopicArn string
			Message  string
			// SNS writes {"Type","Value"}; goaws v0.5.4 writes
			// {"DataType","StringValue"}.
			MessageAttributes map[string]struct{ Value, StringValue string }
		}
		if err := json.Unmarshal(m.Payload, &env); err != nil {
			t.Fatalf("envelope %s: %v", m.Payload, err)
		}
		if env.Type != "Notification" || env.TopicArn != topic || env.Message != command {
			t.Errorf("envelope = %s", m.Payload)
		}
		if a := env.MessageAttributes["Idempotency-Key"]; a.Value != "sns-key" && a.StringValue != "sns-key" {
			t.Errorf("envelope Idempotency-Key = %+v in %s", a, m.Payload)
		}
	})
}
