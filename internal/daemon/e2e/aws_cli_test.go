package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestCLIInAWSMode is the CLI a user runs beside aws-mode daemons, as a
// process with the daemons' configuration: send --wait takes its result
// from a temporary queue of its own subscribed to the results topic for
// its key (the shared results queue keeps every event, its own too) and
// removes that queue; send status reads the record from DynamoDB, with no
// daemon API to ask (none listens where the configuration says).
func TestCLIInAWSMode(t *testing.T) { onEachEmulator(t, cliInAWSMode) }

func cliInAWSMode(t *testing.T, _ *awsEmulator) {
	ctx := context.Background()
	env := newLocalAWS(t, 50)
	created, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(uniqueName(t))})
	if err != nil {
		t.Fatal(err)
	}
	topic := aws.ToString(created.TopicArn)
	t.Cleanup(func() { _, _ = snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(topic)}) })
	if _, err := snsClient.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
		Endpoint: aws.String(sqsQueueARN(t, env.results)), Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
		t.Fatal(err)
	}
	vars := daemonProcessEnv(env, map[string]string{"MQPROBE_RESULTS_SNSTOPICARN": topic, "MQPROBE_RESULTS_SQSQUEUE": ""})
	startDaemonProcesses(t, 1, vars)
	free, err := daemontest.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	cliVars := map[string]string{"MQPROBE_HTTP_ADDR": "127.0.0.1:" + free} // no daemon API there
	for k, v := range vars {
		cliVars[k] = v
	}
	cli := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(daemontest.Binary(t), args...)
		cmd.Env = processEnv(cliVars)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		var exit *exec.ExitError
		if err := cmd.Run(); err != nil && !errors.As(err, &exit) {
			t.Fatalf("mqprobe %v: %v", args, err)
		}
		return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
	}
	results := newResultQueue(t, env.results)

	key := fmt.Sprintf("cli-aws-%d", time.Now().UnixNano()%1e9)
	out, stderr, status := cli("send", "produce", "--queue", "DEV.QUEUE.2", "--count", "7", "--key", key, "--wait", "--timeout", "60s", "-o", "json")
	if status != 0 || !strings.Contains(out, `"enqueued": 7`) {
		t.Fatalf("send --wait: exit %d\nstdout %s\nstderr %s", status, out, stderr)
	}
	replyQueue := regexp.MustCompile(`waiting on (mqprobe-wait-[0-9a-f-]+), subscribed to ` + regexp.QuoteMeta(topic)).FindStringSubmatch(stderr)
	if replyQueue == nil {
		t.Fatalf("send --wait named no reply queue of its own: %s", stderr)
	}
	if _, err := sqsClient.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(replyQueue[1])}); err == nil {
		t.Errorf("the reply queue %s outlived the wait", replyQueue[1])
	}
	if e := results.wait(key, 1, 20*time.Second)[0]; e.Type == "" {
		t.Errorf("the shared results queue's copy: %+v", e)
	}

	// The record, from the store: the HTTP API the configuration names is
	// not there.
	out, stderr, status = cli("send", "status", "PRODUCE", key, "-o", "json")
	var state struct {
		Status, IdempotencyKey string
		Result                 struct{ Result struct{ Enqueued int } } // the command's reply, as a replay gives it
	}
	if err := json.Unmarshal([]byte(out), &state); err != nil || status != 0 || state.Status != "COMPLETED" || state.IdempotencyKey != key || state.Result.Result.Enqueued != 7 {
		t.Errorf("send status from the store: exit %d\nstdout %s\nstderr %s", status, out, stderr)
	}
	if _, stderr, status := cli("send", "status", "PRODUCE", key+"-never-sent"); status != 1 || !strings.Contains(stderr, "no PRODUCE command with key "+key+"-never-sent") {
		t.Errorf("send status of an unknown key: exit %d, %s; want 1", status, stderr)
	}

	// A running command: IN_PROGRESS with its lease holder, exit 4; then
	// COMPLETED, exit 0.
	slow := key + "-slow"
	if _, stderr, status := cli("send", "produce", "--queue", "DEV.QUEUE.3", "--count", "100", "--rate", "20", "--key", slow); status != 0 {
		t.Fatalf("send without --wait: exit %d %s", status, stderr)
	}
	var last string
	if !testenv.Until(30*time.Second, func() bool {
		out, _, status := cli("send", "status", "PRODUCE", slow, "-o", "table")
		last = out
		return status == 4 && strings.Contains(out, "IN_PROGRESS") && strings.Contains(out, "running on ")
	}) {
		t.Errorf("send status of a running command never showed it IN_PROGRESS with exit 4: %s", last)
	}
	if !testenv.Until(60*time.Second, func() bool {
		out, _, status := cli("send", "status", "PRODUCE", slow)
		last = out
		return status == 0 && strings.Contains(out, "COMPLETED")
	}) {
		t.Errorf("send status never showed the command COMPLETED with exit 0: %s", last)
	}
}
