package e2e_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestAWSModeOnRealDefaults runs `mqprobe store init` and `mqprobe run` in
// aws mode the way ECS, EKS and EC2 start them: with the SDK's default
// environment (no AWS_CA_BUNDLE, profile, shared config or proxy), and
// again with AWS_CA_BUNDLE naming a bundle. Each creates its table and
// completes a command end to end.
func TestAWSModeOnRealDefaults(t *testing.T) {
	onEachEmulator(t, awsModeOnRealDefaults)
}

func awsModeOnRealDefaults(t *testing.T, _ *awsEmulator) {
	for name, extra := range map[string]map[string]string{
		"SDK defaults":  nil,
		"AWS_CA_BUNDLE": {"AWS_CA_BUNDLE": testenv.NewCA(t).Bundle},
	} {
		t.Run(name, func(t *testing.T) {
			env := newLocalAWS(t, 10)
			vars := daemonProcessEnv(env, extra)
			vars["MQPROBE_IDEMPOTENCY_DYNAMODB_TABLE"] = env.table + "-init" // not there yet
			out, err := runMqprobe(t, vars, "store", "init")
			if err != nil || !strings.Contains(out, env.table+"-init") {
				t.Fatalf("mqprobe store init: %v\n%s", err, out)
			}
			startDaemonProcesses(t, 1, vars)
			results := newResultQueue(t, env.results)
			sendCommand(t, env.commands, awsProduce("DEV.QUEUE.1", 3, ""), map[string]string{"Idempotency-Key": "defaults"})
			if e := results.wait("defaults", 1, 20*time.Second)[0]; e.Data.Status != result.StatusCompleted {
				t.Errorf("event %+v", e.Data)
			}
		})
	}
}

// runMqprobe runs the mqprobe binary with args in a process environment
// (processEnv) plus vars, and returns its combined output.
func runMqprobe(t *testing.T, vars map[string]string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, daemontest.Binary(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = processEnv(vars)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestRollingRestartStrandsNothing: instance A gets SIGTERM while its long
// polls wait; commands sent within the next second reach those polls, so A
// has received them and will not start them. They must come back at once
// for instance B, started after them: each completes within the polls' wait
// plus 5 s, not after the 60 s visibility timeout.
func TestRollingRestartStrandsNothing(t *testing.T) {
	onEachEmulator(t, rollingRestartStrandsNothing)
}

func rollingRestartStrandsNothing(t *testing.T, _ *awsEmulator) {
	const wait, visibility = 5 * time.Second, 60 * time.Second
	env := newLocalAWS(t, 10)
	if _, err := sqsClient.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(env.commands),
		Attributes: map[string]string{string(sqstypes.QueueAttributeNameVisibilityTimeout): fmt.Sprint(visibility.Seconds())}}); err != nil {
		t.Fatal(err)
	}
	vars := daemonProcessEnv(env, map[string]string{"MQPROBE_SQS_WAITTIMESECONDS": fmt.Sprint(wait.Seconds()),
		"MQPROBE_SQS_VISIBILITYTIMEOUT": visibility.String(), "MQPROBE_HTTP_SHUTDOWNTIMEOUT": "10s"})
	a := startDaemonProcesses(t, 1, vars)[0]
	time.Sleep(time.Second) // A's receives are waiting on the empty queue

	a.StoppedByTest.Store(true)
	if err := a.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	time.Sleep(300 * time.Millisecond)
	sent := time.Now()
	keys := []string{"rolling-1", "rolling-2", "rolling-3"}
	for _, key := range keys {
		sendCommand(t, env.commands, awsProduce("DEV.QUEUE.1", 2, ""), map[string]string{"Idempotency-Key": key})
	}
	b := startDaemonProcesses(t, 1, vars)[0]
	results := newResultQueue(t, env.results)
	bound := wait + 5*time.Second
	for _, key := range keys {
		e := results.wait(key, 1, bound-time.Since(sent))[0]
		if e.Data.Status != result.StatusCompleted || e.Source != "mqprobe/"+b.Name {
			t.Errorf("%s: %s by %s, want COMPLETED by %s", key, e.Data.Status, e.Source, b.Name)
		}
	}
	t.Logf("all %d commands completed by B %s after they were sent", len(keys), time.Since(sent).Round(time.Millisecond))
	select {
	case <-a.Exited:
		if a.Err != nil {
			t.Errorf("A exited with %v after SIGTERM", a.Err)
		}
		t.Logf("A exited %s after SIGTERM", time.Since(signalled).Round(time.Millisecond))
	case <-time.After(bound):
		t.Errorf("A still running %s after SIGTERM", time.Since(signalled).Round(time.Millisecond))
	}
}

// TestDaemonRunsOnTheCloudFormationStack deploys configs/cloudformation.yaml
// into moto, with and without SecretArns, and runs the daemon on the
// stack's outputs alone: no `store init`, no resource made by hand but a
// queue subscribed to the results topic to read results from (moto does
// not create the template's own subscription: see its template test).
func TestDaemonRunsOnTheCloudFormationStack(t *testing.T) {
	onEmulator(t, "moto", func(t *testing.T, _ *awsEmulator) {
		for name, secrets := range map[string]string{"without SecretArns": "",
			"with SecretArns": "arn:aws:secretsmanager:us-east-1:123456789012:secret:mqprobe/qm1-AbCdEf"} {
			t.Run(name, func(t *testing.T) { daemonOnStack(t, secrets) })
		}
	})
}

func daemonOnStack(t *testing.T, secretArns string) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cfg, err := awsbus.LoadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseEndpoint = aws.String(current.sqs) // moto serves CloudFormation on the same endpoint
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	name := uniqueName(t)
	outputs, err := testenv.DeployStack(ctx, cfg, filepath.Join(root, "configs", "cloudformation.yaml"), name, map[string]string{
		"TableName": name + "-table", "CommandQueueName": name + "-commands", "ResultsTopicName": name + "-results",
		"SecretArns": secretArns})
	if err != nil {
		t.Fatalf("deploy the stack: %v", err)
	}
	t.Cleanup(func() {
		if err := testenv.DeleteStack(context.Background(), cfg, name); err != nil {
			t.Errorf("delete the stack: %v", err)
		}
	})

	resultsURL, resultsARN := testenv.NewQueue(t, sqsClient, name+"-mine", nil)
	if _, err := snsClient.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(outputs["ResultsTopicArn"]), Protocol: aws.String("sqs"),
		Endpoint: aws.String(resultsARN), Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
		t.Fatal(err)
	}
	startDaemonProcesses(t, 1, map[string]string{
		"MQPROBE_MODE":                       "aws",
		"MQPROBE_IDEMPOTENCY_DYNAMODB_TABLE": outputs["IdempotencyTableName"],
		"MQPROBE_SQS_COMMANDQUEUE":           outputs["CommandQueueUrl"],
		"MQPROBE_RESULTS_SNSTOPICARN":        outputs["ResultsTopicArn"],
		"MQPROBE_SQS_WAITTIMESECONDS":        "1",
		"MQPROBE_TARGETS_ALLOWINLINE":        "true",
		"MQPROBE_LOG_LEVEL":                  "warn",
	})
	results := newResultQueue(t, resultsURL)
	sendCommand(t, outputs["CommandQueueUrl"], awsProduce("DEV.QUEUE.1", 3, ""), map[string]string{"Idempotency-Key": "stack"})
	sendCommand(t, outputs["CommandQueueUrl"], awsProduce("DEV.QUEUE.1", 0, ""), map[string]string{"Idempotency-Key": "stack-bad"})
	if e := results.wait("stack", 1, 20*time.Second)[0]; e.Data.Status != result.StatusCompleted {
		t.Errorf("event %+v", e.Data)
	}
	if e := results.wait("stack-bad", 1, 20*time.Second)[0]; e.Data.Status != result.StatusRejected || e.Attributes["status"] != "REJECTED" {
		t.Errorf("event %+v attributes %v", e.Data, e.Attributes)
	}
}
