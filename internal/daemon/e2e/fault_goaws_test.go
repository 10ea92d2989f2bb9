package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestFaultGoawsRestart restarts the SQS server under a running daemon: a
// private goaws is stopped and started again on the same port while a
// publisher holds a backlog of commands it keeps trying to send. goaws keeps
// queues and messages in memory only, so, as the provisioning of a real
// environment would, the test creates the queues again once it is back (same
// names, same URLs); the publisher's backlog then goes in, and the daemon's
// subscriber — which has met refused connections, then a missing queue —
// recovers and drains it, each command once. (Commands waiting inside a
// queue across the restart would be lost by goaws itself, not the daemon.)
func TestFaultGoawsRestart(t *testing.T) {
	const (
		before, backlog, count = 20, 50, 3
		outage                 = 5 * time.Second
		name                   = "goaws-restart"
	)
	ctx := context.Background()
	srv := startPrivate(t, "goaws")
	// The daemon's SQS and the test's: the private server, by the SDK's
	// standard variables (t.Setenv restores the shared one afterwards).
	t.Setenv("AWS_ENDPOINT_URL_SQS", srv.Endpoint)
	t.Setenv("AWS_ENDPOINT_URL_SNS", srv.Endpoint)
	awsCfg, err := awsbus.LoadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(awsCfg)
	env := &localAWS{commandsName: uniqueName(t) + "-commands", resultsName: uniqueName(t) + "-results", table: uniqueName(t) + "-table"}
	createQueue := func(name string) string {
		t.Helper()
		out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name),
			Attributes: map[string]string{"VisibilityTimeout": "5"}})
		if err != nil {
			t.Fatalf("create queue %s: %v", name, err)
		}
		return aws.ToString(out.QueueUrl)
	}
	env.commands, env.results = createQueue(env.commandsName), createQueue(env.resultsName)
	if _, err := dynamodb.New(ddbClient, env.table).EnsureTable(ctx); err != nil {
		t.Fatalf("create table: %v", err)
	}
	receiveErrors := &logCounter{substr: "Cannot connect receive messages"}
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) { s.Opts.Log = slog.New(receiveErrors) })
	results := &privateResults{t: t, client: client, url: env.results}

	run := daemontest.FaultRun()
	keys := make([]string, before+backlog)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s-%s-%03d", name, run, i)
	}
	send := func(key string) error {
		_, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(env.commands),
			MessageBody: aws.String(daemontest.FaultProduce(key, "DEV.QUEUE.1", count, count, 0)),
			MessageAttributes: map[string]sqstypes.MessageAttributeValue{
				"Idempotency-Key": {DataType: aws.String("String"), StringValue: aws.String(key)}}})
		return err
	}
	for _, key := range keys[:before] {
		if err := send(key); err != nil {
			t.Fatalf("send %s: %v", key, err)
		}
	}
	// Everything sent so far is done before the restart takes the queues
	// and their messages away.
	results.waitFor(keys[:before], time.Minute)

	if err := srv.Down(); err != nil {
		t.Fatalf("stop goaws: %v", err)
	}
	downAt := time.Now()
	type sendOutcome struct {
		failed int
		err    error
	}
	published := make(chan sendOutcome, 1)
	go func() {
		var out sendOutcome
		for _, key := range keys[before:] {
			var err error
			if !testenv.UntilEvery(time.Minute, 100*time.Millisecond, func() bool {
				if err = send(key); err != nil {
					out.failed++
				}
				return err == nil
			}) {
				out.err = fmt.Errorf("send %s: still failing after a minute: %w", key, err)
				published <- out
				return
			}
		}
		published <- out
	}()
	time.Sleep(outage)
	if err := srv.Up(); err != nil {
		t.Fatalf("start goaws again: %v", err)
	}
	upAt, failedAtUp := time.Now(), receiveErrors.n.Load()
	// The subscriber retries a receive every second: let it meet the
	// missing queue too (the second failure after the restart surely does).
	testenv.Eventually(t, 30*time.Second, "two failed receives after the restart", func() bool { return receiveErrors.n.Load() >= failedAtUp+2 })
	if commands, results := createQueue(env.commandsName), createQueue(env.resultsName); commands != env.commands || results != env.results {
		t.Fatalf("the queues came back as %s and %s, not %s and %s", commands, results, env.commands, env.results)
	}
	t.Logf("goaws was down for %s, its queues missing for %s more", upAt.Sub(downAt).Round(time.Millisecond), time.Since(upAt).Round(time.Millisecond))
	if receiveErrors.n.Load() == 0 {
		t.Error("the daemon's subscriber logged no failed receive: it never met the outage")
	}
	sent := <-published
	if sent.err != nil {
		t.Fatal(sent.err)
	}
	if sent.failed == 0 {
		t.Fatal("no send failed: the publisher never met the outage")
	}
	results.waitFor(keys[before:], time.Minute)
	waitDrained(t, client, env.commands, 15*time.Second)
	results.collectFor(time.Second) // anything published late

	got, problems := tally(keys, count, putsByKey(t, h.Backend, "DEV.QUEUE.1"), results.byKey())
	reportProblems(t, problems)
	daemontest.ReportFault(t, name, got, daemontest.FaultFigures{Sent: len(keys), Executed: len(keys)},
		"backlog", backlog, "outageSeconds", outage.Seconds(), "failedSends", sent.failed, "failedReceives", receiveErrors.n.Load())
}

// logCounter is a log handler counting the records whose message contains
// substr.
type logCounter struct {
	substr string
	n      atomic.Int64
}

func (c *logCounter) Enabled(context.Context, slog.Level) bool { return true }

func (c *logCounter) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, c.substr) {
		c.n.Add(1)
	}
	return nil
}

func (c *logCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *logCounter) WithGroup(string) slog.Handler      { return c }

// waitDrained waits until the queue holds no message, visible or not.
func waitDrained(t *testing.T, client *sqs.Client, url string, timeout time.Duration) {
	t.Helper()
	var visible, hidden string
	if !testenv.UntilEvery(timeout, 100*time.Millisecond, func() bool {
		out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages,
				sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
		if err != nil {
			t.Fatalf("queue attributes: %v", err)
		}
		visible = out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)]
		hidden = out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)]
		return visible == "0" && hidden == "0"
	}) {
		t.Fatalf("command queue still holds %s visible and %s invisible messages after %s", visible, hidden, timeout)
	}
}

// privateResults collects the result events of a results queue on a
// private SQS server.
type privateResults struct {
	t      *testing.T
	client *sqs.Client
	url    string
	events []result.Event
}

// poll receives what arrives within a second (long polling).
func (r *privateResults) poll() {
	r.t.Helper()
	ctx := context.Background()
	out, err := r.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(r.url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	if err != nil {
		r.t.Fatalf("receive results: %v", err)
	}
	for _, m := range out.Messages {
		var e result.Event
		if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &e); err != nil {
			r.t.Fatalf("result is not a CloudEvent: %v: %s", err, aws.ToString(m.Body))
		}
		r.events = append(r.events, e)
		_, _ = r.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(r.url), ReceiptHandle: m.ReceiptHandle})
	}
}

func (r *privateResults) byKey() map[string][]result.Data { return eventsByKey(r.events) }

// waitFor polls until every one of keys has a result event.
func (r *privateResults) waitFor(keys []string, timeout time.Duration) {
	r.t.Helper()
	for deadline := time.Now().Add(timeout); ; {
		r.poll()
		got := r.byKey()
		var missing []string
		for _, k := range keys {
			if len(got[k]) == 0 {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("after %s, %d commands have no result: %s", timeout, len(missing), strings.Join(missing, " "))
		}
	}
}

// collectFor polls for d more.
func (r *privateResults) collectFor(d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		r.poll()
	}
}
