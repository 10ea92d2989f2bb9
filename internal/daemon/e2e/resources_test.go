package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestResourcesDecideReadiness: aws mode is ready only while the command
// queue, the results topic and the table exist and are usable. A results
// topic ARN of another account, a topic not created yet, a missing table
// and a missing command queue each make it not ready, the readiness check
// naming the resource and the call; creating what was missing makes it
// ready again (aws.checkInterval is short here).
func TestResourcesDecideReadiness(t *testing.T) {
	onEachEmulator(t, resourcesDecideReadiness)
}

func resourcesDecideReadiness(t *testing.T, _ *awsEmulator) {
	ctx := context.Background()
	topicName := uniqueName(t)
	created, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(topicName)})
	if err != nil {
		t.Fatal(err)
	}
	topic := aws.ToString(created.TopicArn)
	t.Cleanup(func() { _, _ = snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(topic)}) })
	// The same topic name in another account.
	parts := strings.Split(topic, ":")
	parts[4] = "999999999999"
	foreignTopic := strings.Join(parts, ":")

	t.Run("ResultsTopicOfAnotherAccount", func(t *testing.T) {
		env := newLocalAWS(t, 10)
		base := startAWSDaemon(t, env, func(s *daemontest.Setup) {
			s.Cfg.Results.QueueURL, s.Cfg.Results.TopicARN = "", foreignTopic
		})
		checks := waitReadiness(t, base, false)
		if got := checks["router"]; !strings.Contains(got, foreignTopic) || !strings.Contains(got, "sns:GetTopicAttributes") {
			t.Errorf("router check %q, want it naming the topic %s and sns:GetTopicAttributes", got, foreignTopic)
		}
		for _, name := range []string{"intake", "store"} {
			if checks[name] != "ok" {
				t.Errorf("%s check %q, want ok", name, checks[name])
			}
		}
	})

	t.Run("ResultsTopicCreatedLater", func(t *testing.T) {
		env := newLocalAWS(t, 10)
		later := topic + "-later"
		base := startAWSDaemon(t, env, func(s *daemontest.Setup) {
			s.Cfg.Results.QueueURL, s.Cfg.Results.TopicARN = "", later
		})
		if got := waitReadiness(t, base, false)["router"]; !strings.Contains(got, later) {
			t.Errorf("router check %q, want it naming %s", got, later)
		}
		if _, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(topicName + "-later")}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(later)}) })
		waitReadiness(t, base, true)
	})

	t.Run("IntakeHeldWhileResultsUndeliverable", func(t *testing.T) {
		env := newLocalAWS(t, 10)
		held := topic + "-held"
		var store *storetest.Counting
		base := startAWSDaemon(t, env, func(s *daemontest.Setup) {
			s.Cfg.Results.QueueURL, s.Cfg.Results.TopicARN = "", held
			store = s.Opts.Store.(*storetest.Counting)
		})
		waitReadiness(t, base, false)
		key := "held-" + uniqueName(t)
		sendCommand(t, env.commands, awsProduce("DEV.QUEUE.1", 2, ""), map[string]string{"Idempotency-Key": key})
		// Long enough for several receive polls (sqs.waitTimeSeconds 1):
		// a daemon taking commands in would have claimed this one.
		time.Sleep(4 * time.Second)
		if n := store.Begins.Load(); n != 0 {
			t.Fatalf("%d claims while the results topic is missing: commands ran whose results could go nowhere", n)
		}
		if _, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(topicName + "-held")}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(held)}) })
		if _, err := snsClient.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(held), Protocol: aws.String("sqs"),
			Endpoint: aws.String(sqsQueueARN(t, env.results)), Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
			t.Fatal(err)
		}
		waitReadiness(t, base, true)
		if e := newResultQueue(t, env.results).wait(key, 1, 30*time.Second)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("held command: %s %+v, want COMPLETED once the topic exists", e.Data.Status, e.Data.Error)
		}
	})

	t.Run("MissingTable", func(t *testing.T) {
		env := newLocalAWS(t, 10)
		env.table += "-later"
		base := startAWSDaemon(t, env)
		got := waitReadiness(t, base, false)["store"]
		if !strings.Contains(got, env.table) || !strings.Contains(got, "dynamodb:DescribeTable") {
			t.Errorf("store check %q, want it naming the table %s and dynamodb:DescribeTable", got, env.table)
		}
		if _, err := dynamodb.New(ddbClient, env.table).EnsureTable(ctx); err != nil {
			t.Fatal(err)
		}
		waitReadiness(t, base, true)
	})

	t.Run("MissingCommandQueue", func(t *testing.T) {
		env := newLocalAWS(t, 10)
		missing := env.commandsName + "-later"
		base := startAWSDaemon(t, env, func(s *daemontest.Setup) { s.Cfg.SQS.CommandQueue = missing })
		// A queue given by name: the start does not fail, the daemon waits.
		if got := waitReadiness(t, base, false)["intake"]; !strings.Contains(got, missing) || !strings.Contains(got, "sqs:GetQueueUrl") {
			t.Errorf("intake check %q, want it naming the queue %s and sqs:GetQueueUrl", got, missing)
		}
		url, _ := testenv.NewQueue(t, sqsClient, missing, nil)
		waitReadiness(t, base, true)
		key := "queue-later-" + uniqueName(t)
		sendCommand(t, url, awsProduce("DEV.QUEUE.1", 2, ""), map[string]string{"Idempotency-Key": key})
		if e := newResultQueue(t, env.results).wait(key, 1, 30*time.Second)[0]; e.Data.Status != result.StatusCompleted {
			t.Errorf("command on the queue created later: %s %+v", e.Data.Status, e.Data.Error)
		}
	})

	t.Run("MissingCommandQueueURL", func(t *testing.T) {
		env := newLocalAWS(t, 10)
		missing := env.commands + "-later"
		base := startAWSDaemon(t, env, func(s *daemontest.Setup) { s.Cfg.SQS.CommandQueue = missing })
		if got := waitReadiness(t, base, false)["intake"]; !strings.Contains(got, missing) || !strings.Contains(got, "sqs:GetQueueAttributes") {
			t.Errorf("intake check %q, want it naming the queue %s and sqs:GetQueueAttributes", got, missing)
		}
	})
}

// startAWSDaemon starts a daemon in aws mode on env (inAWSMode) as mods
// change it, re-checking its resources every 200 ms, without waiting for
// it to be ready; a cleanup stops it. It returns the daemon's base URL.
func startAWSDaemon(t *testing.T, env *localAWS, mods ...func(*daemontest.Setup)) string {
	t.Helper()
	cfg := config.Default()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.HTTP.ShutdownTimeout = 5 * time.Second
	s := &daemontest.Setup{Cfg: cfg, Opts: daemon.Options{Version: "test", Backend: daemontest.NewEmbeddedBackend(t),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	inAWSMode(env)(s)
	s.Cfg.AWS.CheckInterval = 200 * time.Millisecond
	for _, m := range mods {
		m(s)
	}
	d, err := daemon.New(context.Background(), s.Cfg, s.Opts)
	if err != nil {
		t.Fatalf("daemon.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Logf("daemon.Run: %v", err)
		}
	})
	return "http://" + d.Addr()
}

// waitReadiness polls GET /health/ready until it says ready (or not ready,
// as wanted), failing t after 30 s, and returns its checks.
func waitReadiness(t *testing.T, base string, ready bool) map[string]string {
	t.Helper()
	want := http.StatusServiceUnavailable
	if ready {
		want = http.StatusOK
	}
	var last string
	var checks map[string]string
	if testenv.UntilEvery(30*time.Second, 100*time.Millisecond, func() bool {
		resp, err := http.Get(base + "/health/ready")
		if err != nil {
			last = err.Error()
			return false
		}
		var body struct {
			Checks map[string]string `json:"checks"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		last = resp.Status
		if err == nil && resp.StatusCode == want {
			checks = body.Checks
			return true
		}
		if err == nil {
			b, _ := json.Marshal(body.Checks)
			last += " " + string(b)
		}
		return false
	}) {
		return checks
	}
	t.Fatalf("readiness never %d within 30s; last: %s", want, last)
	return nil
}
