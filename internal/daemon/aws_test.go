package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
)

func awsProduce(queue string, count int, extra string) string {
	return fmt.Sprintf(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":%q},"batch":{"count":%d,"messageSizeBytes":32%s}}`, queue, count, extra)
}

// cloudEvents drops the SQS attributes of received events.
func cloudEvents(evs []receivedEvent) []result.Event {
	out := make([]result.Event, len(evs))
	for i, e := range evs {
		out[i] = e.Event
	}
	return out
}

// TestSQSOutcomeRows walks SPEC §6 through real SQS and DynamoDB, reading
// results where subscribers read them: the results queue.
func TestSQSOutcomeRows(t *testing.T) {
	env := newLocalAWS(t, 10)
	var failPublish sync.Map
	h := start(t, inAWSMode(env), func(s *setup) {
		s.opts.WrapPublisher = func(p result.Publisher) result.Publisher {
			return result.PublisherFunc(func(ctx context.Context, e result.Event) error {
				if v, ok := failPublish.Load(e.Data.IdempotencyKey); ok && v.(int) > 0 {
					failPublish.Store(e.Data.IdempotencyKey, v.(int)-1)
					return errors.New("results topic unavailable")
				}
				return p.Publish(ctx, e)
			})
		}
	})
	results := newResultQueue(t, env.results)
	const wait = 20 * time.Second

	t.Run("completed, replayed, conflict", func(t *testing.T) {
		body := awsProduce("DEV.QUEUE.3", 7, "")
		sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "sqs-1"})
		results.wait("sqs-1", 1, wait)
		sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "sqs-1"})
		sendCommand(t, env.commands, awsProduce("DEV.QUEUE.3", 8, ""), map[string]string{"Idempotency-Key": "sqs-1"})
		evs := results.wait("sqs-1", 3, wait)
		want := map[string]int{"COMPLETED": 1, "COMPLETED/replay": 1, "REJECTED/IDEMPOTENCY_KEY_REUSED": 1}
		if fmt.Sprint(summary(cloudEvents(evs))) != fmt.Sprint(want) {
			t.Errorf("events %v, want %v", summary(cloudEvents(evs)), want)
		}
		if d := h.depth("DEV.QUEUE.3"); d != 7 {
			t.Errorf("depth %d, want 7", d)
		}
		for _, e := range evs {
			a := e.Attributes
			if a["type"] != string(e.Type) || a["operationType"] != "PRODUCE" || a["status"] != string(e.Data.Status) || a["idempotencyKey"] != "sqs-1" || a["traceparent"] == "" {
				t.Errorf("result attributes %v for %s", a, e.Type)
			}
		}
	})

	t.Run("invalid is rejected and never retried", func(t *testing.T) {
		sendCommand(t, env.commands, awsProduce("DEV.QUEUE.3", 0, ""), map[string]string{"Idempotency-Key": "sqs-bad"})
		e := results.wait("sqs-bad", 1, wait)[0]
		if e.Type != result.TypeRejected || len(e.Data.Error.Problems) == 0 || e.Data.Error.Problems[0].Path != "/batch/count" {
			t.Errorf("rejected event %+v", e.Data)
		}
		results.quiet("sqs-bad", 1, 2*time.Second)
	})

	t.Run("no key: the SQS message id dedupes redeliveries", func(t *testing.T) {
		id := sendCommand(t, env.commands, `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"}}`, nil)
		if e := results.wait(id, 1, wait)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("event %+v", e.Data)
		}
	})

	t.Run("in progress is redelivered until it replays", func(t *testing.T) {
		before := h.depth("DEV.QUEUE.2")
		body := awsProduce("DEV.QUEUE.2", 8, `,"rateLimitPerSec":4`)
		sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "sqs-slow"})
		time.Sleep(300 * time.Millisecond)
		sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "sqs-slow"})
		evs := results.wait("sqs-slow", 2, wait)
		if fmt.Sprint(summary(cloudEvents(evs))) != fmt.Sprint(map[string]int{"COMPLETED": 1, "COMPLETED/replay": 1}) {
			t.Errorf("events %v", summary(cloudEvents(evs)))
		}
		if d := h.depth("DEV.QUEUE.2"); d != before+8 {
			t.Errorf("depth grew by %d, want exactly 8", d-before)
		}
	})

	t.Run("transient failure publishes nothing, the redelivery completes", func(t *testing.T) {
		h.backend.Faults().FailNth(mq.VerbPut, 1, mq.ReasonQMgrQuiescing)
		sendCommand(t, env.commands, awsProduce("DEV.QUEUE.2", 5, ""), map[string]string{"Idempotency-Key": "sqs-transient"})
		e := results.wait("sqs-transient", 1, wait)[0]
		if e.Data.Status != result.StatusCompleted || e.Data.Attempt != 2 {
			t.Errorf("event %+v, want completed on attempt 2", e.Data)
		}
		results.quiet("sqs-transient", 1, time.Second)
	})

	t.Run("permanent failure is published once", func(t *testing.T) {
		sendCommand(t, env.commands, `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"NO.SUCH.QUEUE"}}`, map[string]string{"Idempotency-Key": "sqs-2085"})
		e := results.wait("sqs-2085", 1, wait)[0]
		if e.Type != result.TypeFailed || e.Data.Error.Reason != 2085 || e.Attributes["status"] != "FAILED" {
			t.Errorf("event %+v attrs %v", e.Data, e.Attributes)
		}
		results.quiet("sqs-2085", 1, 2*time.Second)
	})

	t.Run("store unavailable runs nothing until it is back", func(t *testing.T) {
		var mu sync.Mutex
		down := true
		h.store.BeforeBegin = func(c idempotency.Claim) error {
			mu.Lock()
			defer mu.Unlock()
			if down && strings.HasSuffix(c.PK, "#sqs-down") {
				return errors.New("dynamodb unreachable")
			}
			return nil
		}
		defer func() { h.store.BeforeBegin = nil }()
		sendCommand(t, env.commands, `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"}}`, map[string]string{"Idempotency-Key": "sqs-down"})
		results.quiet("sqs-down", 0, 1500*time.Millisecond)
		mu.Lock()
		down = false
		mu.Unlock()
		if e := results.wait("sqs-down", 1, wait)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("event %+v", e.Data)
		}
	})

	t.Run("failed publish is redelivered and replayed, not re-executed", func(t *testing.T) {
		failPublish.Store("sqs-pub", 1)
		before := h.depth("DEV.QUEUE.1")
		sendCommand(t, env.commands, awsProduce("DEV.QUEUE.1", 4, ""), map[string]string{"Idempotency-Key": "sqs-pub"})
		e := results.wait("sqs-pub", 1, wait)[0]
		if e.Data.Status != result.StatusCompleted || !e.Data.Replay {
			t.Errorf("event %+v, want the replay of the recorded completion", e.Data)
		}
		if d := h.depth("DEV.QUEUE.1"); d != before+4 {
			t.Errorf("depth grew by %d, want 4", d-before)
		}
	})
}

// TestCommandsThroughSNS publishes commands to a topic the command queue
// subscribes to, with raw delivery on (attributes on the SQS message) and
// off (the SNS envelope, attributes inside it).
func TestCommandsThroughSNS(t *testing.T) {
	env := newLocalAWS(t, 10)
	h := start(t, inAWSMode(env))
	results := newResultQueue(t, env.results)
	ctx := context.Background()
	_, queueARN := newQueue(t, env.commandsName, nil) // CreateQueue is idempotent: the ARN
	for _, raw := range []bool{true, false} {
		topic, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(uniqueName(t))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: topic.TopicArn}) })
		if _, err := snsClient.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"),
			Endpoint: aws.String(queueARN), Attributes: map[string]string{"RawMessageDelivery": fmt.Sprint(raw)}}); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("sns-raw-%v", raw)
		if _, err := snsClient.Publish(ctx, &sns.PublishInput{TopicArn: topic.TopicArn,
			Message: aws.String(awsProduce("DEV.QUEUE.3", 3, "")),
			MessageAttributes: map[string]snstypes.MessageAttributeValue{
				"Idempotency-Key": {DataType: aws.String("String"), StringValue: aws.String(key)}}}); err != nil {
			t.Fatal(err)
		}
		if e := results.wait(key, 1, 20*time.Second)[0]; e.Data.Status != result.StatusCompleted || e.Data.OperationType != "PRODUCE" {
			t.Errorf("raw=%v: event %+v", raw, e.Data)
		}
	}
	if d := h.depth("DEV.QUEUE.3"); d != 6 {
		t.Errorf("depth %d, want 6", d)
	}
}

// TestEventBridgeEventIsKeyedByItsID: a scheduled rule's event, delivered
// twice, runs once.
func TestEventBridgeEventIsKeyedByItsID(t *testing.T) {
	env := newLocalAWS(t, 10)
	h := start(t, inAWSMode(env))
	results := newResultQueue(t, env.results)
	event := `{"version":"0","id":"7bf73129-1428-4cd3-a780-95db273d1602","detail-type":"Scheduled Event","source":"aws.scheduler",` +
		`"account":"123456789012","time":"2026-11-22T12:00:00Z","region":"us-east-1","resources":[],` +
		`"detail":` + awsProduce("DEV.QUEUE.3", 2, "") + `}`
	sendCommand(t, env.commands, event, nil)
	sendCommand(t, env.commands, event, nil)
	evs := results.wait("7bf73129-1428-4cd3-a780-95db273d1602", 2, 20*time.Second)
	if fmt.Sprint(summary(cloudEvents(evs))) != fmt.Sprint(map[string]int{"COMPLETED": 1, "COMPLETED/replay": 1}) {
		t.Errorf("events %v", summary(cloudEvents(evs)))
	}
	if d := h.depth("DEV.QUEUE.3"); d != 2 {
		t.Errorf("depth %d, want 2", d)
	}
}

// TestTraceThroughSQS: a publisher's traceparent message attribute is the
// parent of the command's spans, DynamoDB and SQS calls appear as children,
// and the result carries the trace on.
func TestTraceThroughSQS(t *testing.T) {
	env := newLocalAWS(t, 10)
	rec := tracetest.NewSpanRecorder()
	// The daemon builds its own, instrumented, DynamoDB client.
	start(t, inAWSMode(env), recording(rec), func(s *setup) { s.opts.Store = nil })
	results := newResultQueue(t, env.results)
	sendCommand(t, env.commands, awsProduce("DEV.QUEUE.1", 150, ""), map[string]string{"Idempotency-Key": "sqs-traced", "traceparent": callerTraceParent})
	e := results.wait("sqs-traced", 1, 20*time.Second)[0]
	if !strings.Contains(e.TraceParent, callerTraceID) || !strings.Contains(e.Attributes["traceparent"], callerTraceID) {
		t.Errorf("result traceparent %q / attribute %q", e.TraceParent, e.Attributes["traceparent"])
	}
	// The process span ends after its result is out; wait for it.
	var inTrace []sdktrace.ReadOnlySpan
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		inTrace = inTrace[:0]
		ended := false
		for _, s := range rec.Ended() {
			if s.SpanContext().TraceID().String() == callerTraceID {
				inTrace = append(inTrace, s)
				ended = ended || s.Name() == "process"
			}
		}
		if ended || time.Now().After(deadline) {
			break
		}
	}
	got := tree(t, inTrace, callerTraceID)
	for _, want := range []string{
		"(caller) > process",
		"process > idempotency",
		"idempotency > idempotency.store begin",
		"idempotency.store begin > DynamoDB.PutItem",
		"process > connect QM1",
		"process > send DEV.QUEUE.1",
		"process > idempotency.store complete",
		"idempotency.store complete > DynamoDB.UpdateItem",
		"process > publish results",
		"publish results > SQS.SendMessage",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("span tree lacks %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
}
