package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// The local AWS an aws-mode test talks to, reached through the SDK's
// standard endpoint variables: goaws (SQS, SNS) with dynalite (DynamoDB),
// unless onEachEmulator points the test at moto.
var (
	sqsClient *sqs.Client
	snsClient *sns.Client
	ddbClient *awsdynamodb.Client
	awsEnv    map[string]string // the variables a daemon process needs
	current   *awsEmulator
)

// awsEmulator is one independent implementation of the AWS services aws
// mode uses.
type awsEmulator struct {
	name               string
	sqs, sns, dynamodb string // endpoints
	// eventBridge: it models EventBridge rules with SQS targets.
	eventBridge bool
	// allOld: a failed PutItem condition returns the item (ALL_OLD), as
	// DynamoDB does; dynalite ignores it, which costs the store a GetItem.
	allOld bool
}

// emulators are goaws+dynalite and moto.
var emulators []*awsEmulator

// TestMain clears the machine environment (testenv.UnsetMachineEnv) and
// runs the tests with goaws, dynalite and moto: those the MQPROBE_TEST_*
// endpoint variables name, or private ones it starts and stops.
func TestMain(m *testing.M) {
	os.Exit(runWithLocalAWS(m))
}

func runWithLocalAWS(m *testing.M) int {
	testenv.UnsetMachineEnv()
	goaws, stopGoaws, err := testenv.Goaws()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FATAL: aws-mode tests need goaws:", err)
		return 1
	}
	defer stopGoaws()
	dynalite, stopDynalite, err := testenv.Dynalite()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FATAL: aws-mode tests need dynalite:", err)
		return 1
	}
	defer stopDynalite()
	moto, stopMoto, err := testenv.Moto()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FATAL: aws-mode tests need moto:", err)
		return 1
	}
	defer stopMoto()
	emulators = []*awsEmulator{
		{name: "goaws+dynalite", sqs: goaws, sns: goaws, dynamodb: dynalite},
		{name: "moto", sqs: moto, sns: moto, dynamodb: moto, eventBridge: true, allOld: true},
	}
	if err := useEmulator(emulators[0]); err != nil {
		fmt.Fprintln(os.Stderr, "FATAL:", err)
		return 1
	}
	return m.Run()
}

// useEmulator points the standard AWS variables (so in-process daemons) and
// the test's clients at e.
func useEmulator(e *awsEmulator) error {
	awsEnv = map[string]string{
		"AWS_ENDPOINT_URL_SQS": e.sqs, "AWS_ENDPOINT_URL_SNS": e.sns, "AWS_ENDPOINT_URL_DYNAMODB": e.dynamodb,
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
	}
	for k, v := range awsEnv {
		os.Setenv(k, v)
	}
	// The same configuration the daemon uses.
	cfg, err := awsbus.LoadConfig(context.Background())
	if err != nil {
		return fmt.Errorf("aws config for %s: %w", e.name, err)
	}
	sqsClient, snsClient, ddbClient = sqs.NewFromConfig(cfg), sns.NewFromConfig(cfg), awsdynamodb.NewFromConfig(cfg)
	current = e
	return nil
}

// onEmulator runs f as a subtest on the emulator named name only: for what
// only it models.
func onEmulator(t *testing.T, name string, f func(t *testing.T, e *awsEmulator)) {
	for _, e := range emulators {
		if e.name == name {
			runOn(t, e, f)
			return
		}
	}
	t.Fatalf("no emulator %q", name)
}

// onEachEmulator runs f as a subtest per emulator (named after it), with
// the AWS variables and the test's clients pointing at it: one definition
// of the aws-mode suite, two independent implementations of AWS to agree
// with. Tests using it must not run in parallel.
func onEachEmulator(t *testing.T, f func(t *testing.T, e *awsEmulator)) {
	for _, e := range emulators {
		runOn(t, e, f)
	}
}

func runOn(t *testing.T, e *awsEmulator, f func(t *testing.T, e *awsEmulator)) {
	t.Run(e.name, func(t *testing.T) {
		if err := useEmulator(e); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := useEmulator(emulators[0]); err != nil {
				t.Error(err)
			}
		})
		f(t, e)
	})
}

var (
	nameSeq   atomic.Int64
	nameStrip = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
)

// uniqueName is a queue, topic or table name no other test or run uses.
func uniqueName(t testing.TB) string {
	name := nameStrip.ReplaceAllString(t.Name(), "-")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	return fmt.Sprintf("%s-%d-%d", name, time.Now().UnixNano()%1e9, nameSeq.Add(1))
}

// localAWS is one test's queues, topic and table.
type localAWS struct {
	commands, deadLetters, results string // queue URLs
	commandsName, resultsName      string
	table                          string
}

// newLocalAWS creates a command queue (redriven to a DLQ after
// maxReceiveCount receives), a results queue and an idempotency table.
func newLocalAWS(t testing.TB, maxReceiveCount int) *localAWS {
	t.Helper()
	env := &localAWS{}
	dlqURL, dlqARN := testenv.NewQueue(t, sqsClient, uniqueName(t)+"-dlq", nil)
	env.deadLetters = dlqURL
	redrive := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, dlqARN, maxReceiveCount)
	env.commandsName = uniqueName(t) + "-commands"
	env.commands, _ = testenv.NewQueue(t, sqsClient, env.commandsName, map[string]string{"RedrivePolicy": redrive, "VisibilityTimeout": "5"})
	env.resultsName = uniqueName(t) + "-results"
	env.results, _ = testenv.NewQueue(t, sqsClient, env.resultsName, nil)
	env.table = uniqueName(t) + "-table"
	if _, err := dynamodb.New(ddbClient, env.table).EnsureTable(context.Background()); err != nil {
		t.Fatalf("create table: %v", err)
	}
	return env
}

// inAWSMode runs the daemon on env: commands from SQS, results to SQS,
// records in DynamoDB (counted, so tests can break the store).
func inAWSMode(env *localAWS) func(*daemontest.Setup) {
	return func(s *daemontest.Setup) {
		s.Cfg.Mode = config.ModeAWS
		s.Cfg.SQS.CommandQueue = env.commandsName
		s.Cfg.SQS.WaitTimeSeconds = 1
		s.Cfg.SQS.VisibilityTimeout = 5 * time.Second
		s.Cfg.SQS.MaxMessages = 4
		s.Cfg.Results.QueueURL = env.resultsName
		s.Cfg.Idempotency.Store = config.StoreDynamoDB
		s.Cfg.Idempotency.DynamoDB.Table = env.table
		s.Cfg.Bus.RetryDelay = time.Second
		allow := true
		s.Cfg.Targets.AllowInline = &allow
		s.Opts.Store = &storetest.Counting{Store: dynamodb.New(ddbClient, env.table)}
	}
}

// sendCommand sends body to the command queue with message attributes.
func sendCommand(t testing.TB, queueURL, body string, attrs map[string]string) string {
	t.Helper()
	in := &sqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(body),
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{}}
	for k, v := range attrs {
		in.MessageAttributes[k] = sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	out, err := sqsClient.SendMessage(context.Background(), in)
	if err != nil {
		t.Fatalf("send command: %v", err)
	}
	return aws.ToString(out.MessageId)
}

// resultQueue collects the result events that reach a results queue, with
// the message attributes they arrived with.
type resultQueue struct {
	t      testing.TB
	url    string
	mu     sync.Mutex
	events []receivedEvent
}

type receivedEvent struct {
	result.Event
	Attributes map[string]string
}

func newResultQueue(t testing.TB, url string) *resultQueue { return &resultQueue{t: t, url: url} }

// poll receives what arrives within a second (long polling).
func (q *resultQueue) poll() {
	q.t.Helper()
	ctx := context.Background()
	out, err := sqsClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.url),
		MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"}})
	if err != nil {
		q.t.Fatalf("receive results: %v", err)
	}
	for _, m := range out.Messages {
		var ev receivedEvent
		if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &ev.Event); err != nil {
			q.t.Fatalf("result is not a CloudEvent: %v: %s", err, aws.ToString(m.Body))
		}
		ev.Attributes = map[string]string{}
		for k, v := range m.MessageAttributes {
			ev.Attributes[k] = aws.ToString(v.StringValue)
		}
		q.mu.Lock()
		q.events = append(q.events, ev)
		q.mu.Unlock()
		_, _ = sqsClient.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.url), ReceiptHandle: m.ReceiptHandle})
	}
}

// of returns the events received so far for key.
func (q *resultQueue) of(key string) []receivedEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []receivedEvent
	for _, e := range q.events {
		if e.Data.IdempotencyKey == key {
			out = append(out, e)
		}
	}
	return out
}

// wait polls until key has n events (or the timeout), then returns them.
func (q *resultQueue) wait(key string, n int, timeout time.Duration) []receivedEvent {
	q.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		q.poll()
		if evs := q.of(key); len(evs) >= n {
			return evs
		}
		if time.Now().After(deadline) {
			q.t.Fatalf("key %s: %d result events after %s, want %d", key, len(q.of(key)), timeout, n)
		}
	}
}

// quiet polls for d more and fails if key gained events beyond n.
func (q *resultQueue) quiet(key string, n int, d time.Duration) {
	q.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		q.poll()
	}
	if got := len(q.of(key)); got != n {
		q.t.Errorf("key %s: %d result events, want exactly %d", key, got, n)
	}
}
