package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
)

// malformedKind is one way a bus message can be wrong, and the error code
// its rejection must carry.
type malformedKind struct {
	name, code string
	body       func(i int) string
	// key is the Idempotency-Key attribute; the default is the message's key.
	key func(key string) string
}

const malformedMaxBytes = 8192 // command.maxBytes for the test: SQS caps bodies at 256 KiB

var malformedKinds = []malformedKind{
	{name: "truncated JSON", code: "MALFORMED_JSON", body: func(int) string {
		return `{"operationType":"PRODUCE","target":{"queueManager":"QM1"`
	}},
	{name: "not JSON", code: "MALFORMED_JSON", body: func(i int) string { return fmt.Sprintf("produce %d messages please", i) }},
	{name: "wrong types", code: "SCHEMA_VIOLATION", body: func(int) string {
		return `{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":"ten","messageSizeBytes":true}}`
	}},
	{name: "not an object", code: "SCHEMA_VIOLATION", body: func(i int) string { return fmt.Sprintf(`[%d,"PRODUCE"]`, i) }},
	{name: "unknown operationType", code: "UNKNOWN_OPERATION", body: func(int) string {
		return `{"operationType":"PURGE_QUEUE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	}},
	{name: "oversize", code: "TOO_LARGE", body: func(int) string {
		return `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"tags":{"pad":"` +
			strings.Repeat("x", malformedMaxBytes) + `"}}`
	}},
	{name: "SNS Message not a string", code: "SCHEMA_VIOLATION", body: func(i int) string {
		return fmt.Sprintf(`{"Type":"Notification","MessageId":"sns-%d","Message":{"operationType":"DEPTH"}}`, i)
	}},
	{name: "SNS Message not JSON", code: "MALFORMED_JSON", body: func(i int) string {
		return fmt.Sprintf(`{"Type":"Notification","MessageId":"sns-%d","Message":"{\"operationType\":"}`, i)
	}},
	{name: "EventBridge detail not an object", code: "SCHEMA_VIOLATION", body: func(i int) string {
		return fmt.Sprintf(`{"version":"0","id":"eb-%d","detail-type":"Scheduled Event","source":"aws.scheduler","time":"2026-11-22T12:00:00Z","detail":"DEPTH"}`, i)
	}},
	{name: "key too long", code: "INVALID_KEY", body: func(int) string {
		return `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	}, key: func(key string) string { return key + "-" + strings.Repeat("k", 256) }},
}

// TestFaultMalformedMessages sends 1,000 malformed bus messages of ten kinds
// through SQS: each ends in exactly one `rejected` result naming its fault,
// none is redelivered or retried (the queue stays empty past the visibility
// timeout, and the daemon counts 1,000 outcomes, no more), and the daemon
// stays healthy and runs a valid command afterwards.
func TestFaultMalformedMessages(t *testing.T) {
	const (
		messages   = 1000
		visibility = 3 * time.Second
		name       = "malformed-messages"
	)
	env := newLocalAWS(t, 3)
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) {
		s.Cfg.Command.MaxBytes = malformedMaxBytes
		s.Cfg.SQS.MaxMessages = 10
		s.Cfg.SQS.VisibilityTimeout = visibility
	})
	results := newResultQueue(t, env.results)
	run := daemontest.FaultRun()
	prefix := fmt.Sprintf("%s-%s-", name, run)

	// messageIndex recovers i from the key of message i (or the too-long
	// key built on it).
	messageIndex := func(key string) (int, bool) {
		if !strings.HasPrefix(key, prefix) {
			return 0, false
		}
		i, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(key, prefix), "-", 2)[0])
		return i, err == nil && i >= 0 && i < messages
	}
	began := time.Now()
	for first := 0; first < messages; first += 10 {
		in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(env.commands)}
		for i := first; i < first+10; i++ {
			kind := malformedKinds[i%len(malformedKinds)]
			key := fmt.Sprintf("%s%04d", prefix, i)
			if kind.key != nil {
				key = kind.key(key)
			}
			in.Entries = append(in.Entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)),
				MessageBody: aws.String(kind.body(i)), MessageAttributes: map[string]sqstypes.MessageAttributeValue{
					"Idempotency-Key": {DataType: aws.String("String"), StringValue: aws.String(key)}}})
		}
		out, err := sqsClient.SendMessageBatch(context.Background(), in)
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("send messages %d–%d: %v %+v", first, first+9, err, out)
		}
	}
	t.Logf("sent %d malformed messages in %s", messages, time.Since(began).Round(time.Millisecond))

	isOurs := func(e receivedEvent) bool { _, ok := messageIndex(e.Data.IdempotencyKey); return ok }
	results.waitUntil(t, 2*time.Minute, func(evs []receivedEvent) (bool, string) {
		n := countReceivedEvents(evs, isOurs)
		return n >= messages, fmt.Sprintf("%d of %d result events", n, messages)
	})
	t.Logf("%d results after %s", messages, time.Since(began).Round(time.Millisecond))
	waitSQSQueueDrained(t, env.commands, 15*time.Second)
	// A message nacked or left unsettled would reappear within a visibility
	// timeout, and be counted again.
	results.collectFor(t, visibility+2*time.Second)
	if n := sqsQueueMessages(t, env.commands) + sqsQueueMessages(t, env.deadLetters); n != 0 {
		t.Errorf("%d messages back in the command or dead-letter queue after the visibility timeout", n)
	}

	perMessage := make([][]result.Data, messages)
	var got daemontest.FaultFigures
	for _, e := range results.received() {
		if i, ok := messageIndex(e.Data.IdempotencyKey); ok {
			perMessage[i] = append(perMessage[i], e.Data)
		}
	}
	wrongCode := map[string]int{}
	for i, evs := range perMessage {
		got.Sent++
		kind := malformedKinds[i%len(malformedKinds)]
		switch {
		case len(evs) == 0:
			got.Lost++
		case len(evs) > 1:
			got.Duplicated++
		case evs[0].Status != result.StatusRejected:
			got.Executed++
		default:
			got.Rejected++
			if evs[0].Error == nil || evs[0].Error.Code != kind.code {
				wrongCode[fmt.Sprintf("%s: %+v", kind.name, evs[0].Error)]++
			}
		}
	}
	for problem, n := range wrongCode {
		t.Errorf("%d rejections of the wrong code, want the kind's own: %s", n, problem)
	}
	outcomes := daemonStatus(t, h).Commands
	handled := 0
	for _, n := range outcomes {
		handled += n
	}
	if outcomes["rejected"] != messages || handled != messages {
		t.Errorf("the daemon counts outcomes %v, want %d rejected and nothing else: each message handled once", outcomes, messages)
	}

	// Still healthy, and still working.
	if code, _, body := h.Get("/health/ready"); code != http.StatusOK {
		t.Fatalf("not ready after the malformed messages: %d %s", code, body)
	}
	key := prefix + "valid"
	sendCommand(t, env.commands, daemontest.FaultProduce(key, "DEV.QUEUE.1", 5, 5, 0), map[string]string{"Idempotency-Key": key})
	got.Sent++
	if e := results.wait(key, 1, 20*time.Second)[0]; e.Data.Status == result.StatusCompleted && !e.Data.Replay {
		got.Executed++
	} else {
		t.Errorf("valid command after the malformed ones: %s replay=%v %+v", e.Data.Status, e.Data.Replay, e.Data.Error)
	}
	if puts := putsByKey(t, h.Backend, "DEV.QUEUE.1"); puts[key] != 5 || len(puts) != 1 {
		t.Errorf("DEV.QUEUE.1 holds %v, want the valid command's 5 messages only", puts)
	}
	daemontest.ReportFault(t, name, got, daemontest.FaultFigures{Sent: messages + 1, Executed: 1, Rejected: messages},
		"kinds", len(malformedKinds))
}

// statusInfo is what GET /status says about commands; daemonStatus reads it.
type statusInfo struct {
	Commands map[string]int
}

func daemonStatus(t *testing.T, h *daemontest.Harness) statusInfo {
	t.Helper()
	code, _, body := h.Get("/status")
	var s statusInfo
	if err := json.Unmarshal(body, &s); code != http.StatusOK || err != nil {
		t.Fatalf("status: %d %s (%v)", code, body, err)
	}
	return s
}
