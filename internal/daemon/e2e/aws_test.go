package e2e_test

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
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
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
	onEachEmulator(t, sqsOutcomeRows)
}

func sqsOutcomeRows(t *testing.T, _ *awsEmulator) {
	env := newLocalAWS(t, 10)
	var failPublish sync.Map
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) {
		s.Opts.WrapPublisher = func(p result.Publisher) result.Publisher {
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
		if fmt.Sprint(daemontest.Summary(cloudEvents(evs))) != fmt.Sprint(want) {
			t.Errorf("events %v, want %v", daemontest.Summary(cloudEvents(evs)), want)
		}
		if d := h.Depth("DEV.QUEUE.3"); d != 7 {
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
		before := h.Depth("DEV.QUEUE.2")
		body := awsProduce("DEV.QUEUE.2", 8, `,"rateLimitPerSec":4`)
		sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "sqs-slow"})
		testenv.Eventually(t, wait, "sqs-slow in progress", func() bool {
			rec, ok, err := h.Store.Get(context.Background(), "PRODUCE#sqs-slow")
			return err == nil && ok && rec.Status == idempotency.StatusInProgress
		})
		sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "sqs-slow"})
		evs := results.wait("sqs-slow", 2, wait)
		if fmt.Sprint(daemontest.Summary(cloudEvents(evs))) != fmt.Sprint(map[string]int{"COMPLETED": 1, "COMPLETED/replay": 1}) {
			t.Errorf("events %v", daemontest.Summary(cloudEvents(evs)))
		}
		if d := h.Depth("DEV.QUEUE.2"); d != before+8 {
			t.Errorf("depth grew by %d, want exactly 8", d-before)
		}
	})

	t.Run("transient failure publishes nothing, the redelivery completes", func(t *testing.T) {
		h.Backend.Faults().FailNth(mq.VerbPut, 1, mq.ReasonQMgrQuiescing)
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
		h.Store.BeforeBegin = func(c idempotency.Claim) error {
			mu.Lock()
			defer mu.Unlock()
			if down && strings.HasSuffix(c.PK, "#sqs-down") {
				return errors.New("dynamodb unreachable")
			}
			return nil
		}
		defer func() { h.Store.BeforeBegin = nil }()
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
		before := h.Depth("DEV.QUEUE.1")
		sendCommand(t, env.commands, awsProduce("DEV.QUEUE.1", 4, ""), map[string]string{"Idempotency-Key": "sqs-pub"})
		e := results.wait("sqs-pub", 1, wait)[0]
		if e.Data.Status != result.StatusCompleted || !e.Data.Replay {
			t.Errorf("event %+v, want the replay of the recorded completion", e.Data)
		}
		if d := h.Depth("DEV.QUEUE.1"); d != before+4 {
			t.Errorf("depth grew by %d, want 4", d-before)
		}
	})
}

// TestCommandsThroughSNS publishes commands to a topic the command queue
// subscribes to, with raw delivery on (attributes on the SQS message) and
// off (the SNS envelope, attributes inside it).
func TestCommandsThroughSNS(t *testing.T) { onEachEmulator(t, commandsThroughSNS) }

func commandsThroughSNS(t *testing.T, _ *awsEmulator) {
	env := newLocalAWS(t, 10)
	h := daemontest.Start(t, inAWSMode(env))
	results := newResultQueue(t, env.results)
	ctx := context.Background()
	_, queueARN := testenv.NewQueue(t, sqsClient, env.commandsName, nil) // CreateQueue is idempotent: the ARN
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
	if d := h.Depth("DEV.QUEUE.3"); d != 6 {
		t.Errorf("depth %d, want 6", d)
	}
}

// TestEventBridgeEventIsKeyedByItsID: an EventBridge event delivered twice
// (EventBridge delivers at least once) runs once, keyed by the event's id.
// Where the emulator models EventBridge (moto) the event goes through a real
// rule whose two targets are the command queue; elsewhere it is sent as a
// rule sends it, twice.
func TestEventBridgeEventIsKeyedByItsID(t *testing.T) {
	onEachEmulator(t, eventBridgeEventIsKeyedByItsID)
}

func eventBridgeEventIsKeyedByItsID(t *testing.T, e *awsEmulator) {
	env := newLocalAWS(t, 10)
	h := daemontest.Start(t, inAWSMode(env))
	results := newResultQueue(t, env.results)
	detail := awsProduce("DEV.QUEUE.3", 2, "")
	var id string
	if e.eventBridge {
		id = putEventThroughRule(t, e, env.commands, detail, 2)
	} else {
		id = "7bf73129-1428-4cd3-a780-95db273d1602"
		event := `{"version":"0","id":"` + id + `","detail-type":"Scheduled Event","source":"aws.scheduler",` +
			`"account":"123456789012","time":"2026-11-22T12:00:00Z","region":"us-east-1","resources":[],` +
			`"detail":` + detail + `}`
		sendCommand(t, env.commands, event, nil)
		sendCommand(t, env.commands, event, nil)
	}
	evs := results.wait(id, 2, 20*time.Second)
	if fmt.Sprint(daemontest.Summary(cloudEvents(evs))) != fmt.Sprint(map[string]int{"COMPLETED": 1, "COMPLETED/replay": 1}) {
		t.Errorf("events %v", daemontest.Summary(cloudEvents(evs)))
	}
	if d := h.Depth("DEV.QUEUE.3"); d != 2 {
		t.Errorf("depth %d, want 2", d)
	}
}

// putEventThroughRule creates a rule on the default event bus with targets
// copies of the queue, puts one event with detail, and returns the event's
// id.
func putEventThroughRule(t *testing.T, e *awsEmulator, queueURL, detail string, targets int) string {
	t.Helper()
	ctx := context.Background()
	cfg, err := awsbus.LoadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	events := eventbridge.NewFromConfig(cfg, func(o *eventbridge.Options) { o.BaseEndpoint = aws.String(e.sqs) })
	rule, detailType := uniqueName(t), "mqprobe command "+uniqueName(t)
	pattern := fmt.Sprintf(`{"source":["mqprobe.test"],"detail-type":[%q]}`, detailType)
	if _, err := events.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String(rule), EventPattern: aws.String(pattern)}); err != nil {
		t.Fatalf("PutRule: %v", err)
	}
	var ids []string
	var tgts []ebtypes.Target
	for i := range targets {
		ids = append(ids, fmt.Sprintf("commands-%d", i+1))
		tgts = append(tgts, ebtypes.Target{Id: aws.String(ids[i]), Arn: aws.String(sqsQueueARN(t, queueURL))})
	}
	t.Cleanup(func() {
		_, _ = events.RemoveTargets(ctx, &eventbridge.RemoveTargetsInput{Rule: aws.String(rule), Ids: ids})
		_, _ = events.DeleteRule(ctx, &eventbridge.DeleteRuleInput{Name: aws.String(rule)})
	})
	if _, err := events.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: aws.String(rule), Targets: tgts}); err != nil {
		t.Fatalf("PutTargets: %v", err)
	}
	out, err := events.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: []ebtypes.PutEventsRequestEntry{{
		Source: aws.String("mqprobe.test"), DetailType: aws.String(detailType), Detail: aws.String(detail)}}})
	if err != nil || out.FailedEntryCount != 0 || len(out.Entries) != 1 {
		t.Fatalf("PutEvents: %v %+v", err, out)
	}
	return aws.ToString(out.Entries[0].EventId)
}

// TestDuplicateCostsOnePutItem: a duplicate command is settled by the one
// conditional PutItem that claims it (the failed condition returns the
// record, ALL_OLD), counted on the wire between the daemon and DynamoDB;
// on an emulator without ALL_OLD, by that PutItem and one GetItem.
func TestDuplicateCostsOnePutItem(t *testing.T) { onEachEmulator(t, duplicateCostsOnePutItem) }

func duplicateCostsOnePutItem(t *testing.T, e *awsEmulator) {
	env := newLocalAWS(t, 10)
	wire := testenv.CountCalls(t, e.dynamodb)
	cfg, err := awsbus.LoadConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	client := awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(wire.URL) })
	daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) { s.Opts.Store = dynamodb.New(client, env.table) })
	results := newResultQueue(t, env.results)
	body := awsProduce("DEV.QUEUE.3", 3, "")
	sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "dup-cost"})
	results.wait("dup-cost", 1, 20*time.Second)
	first := wire.Reset()
	sendCommand(t, env.commands, body, map[string]string{"Idempotency-Key": "dup-cost"})
	if evs := results.wait("dup-cost", 2, 20*time.Second); !evs[1].Data.Replay {
		t.Fatalf("second event %+v, want the replay", evs[1].Data)
	}
	dup := wire.Reset()
	t.Logf("DynamoDB calls on the wire: execution %v, duplicate %v", first, dup)
	want := map[string]int{"PutItem": 1}
	if !e.allOld {
		want["GetItem"] = 1
	}
	if fmt.Sprint(dup) != fmt.Sprint(want) {
		t.Errorf("the duplicate cost %v, want %v", dup, want)
	}
}

// TestTraceThroughSQS: a publisher's traceparent message attribute is the
// parent of the command's spans, DynamoDB and SQS calls appear as children,
// and the result carries the trace on.
func TestTraceThroughSQS(t *testing.T) {
	env := newLocalAWS(t, 10)
	rec := tracetest.NewSpanRecorder()
	// The daemon builds its own, instrumented, DynamoDB client.
	daemontest.Start(t, inAWSMode(env), daemontest.Recording(rec), func(s *daemontest.Setup) { s.Opts.Store = nil })
	results := newResultQueue(t, env.results)
	sendCommand(t, env.commands, awsProduce("DEV.QUEUE.1", 150, ""), map[string]string{"Idempotency-Key": "sqs-traced", "traceparent": daemontest.CallerTraceParent})
	e := results.wait("sqs-traced", 1, 20*time.Second)[0]
	if !strings.Contains(e.TraceParent, daemontest.CallerTraceID) || !strings.Contains(e.Attributes["traceparent"], daemontest.CallerTraceID) {
		t.Errorf("result traceparent %q / attribute %q", e.TraceParent, e.Attributes["traceparent"])
	}
	// The process span ends after its result is out; wait for it.
	var inTrace []sdktrace.ReadOnlySpan
	testenv.Until(5*time.Second, func() bool {
		inTrace = inTrace[:0]
		ended := false
		for _, s := range rec.Ended() {
			if s.SpanContext().TraceID().String() == daemontest.CallerTraceID {
				inTrace = append(inTrace, s)
				ended = ended || s.Name() == "process"
			}
		}
		return ended
	})
	got := daemontest.Tree(t, inTrace, daemontest.CallerTraceID)
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
