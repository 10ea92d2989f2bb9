package awsmode_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestREADMEAWSWalkthrough runs the README's AWS CLI walkthrough as written,
// with the `aws` on PATH and nothing of the test's environment but PATH
// and HOME, against the resources `make dev-aws` creates and a daemon on
// configs/aws-local.yaml. The one change is the walkthrough's endpoint line,
// pointed at the emulator.
func TestREADMEAWSWalkthrough(t *testing.T) {
	onEachEmulator(t, readmeAWSWalkthrough)
}

func readmeAWSWalkthrough(t *testing.T, e *awsEmulator) {
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Fatalf("the README walkthrough needs the AWS CLI on PATH (scripts/with-services.sh installs it): %v", err)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)<!-- walkthrough: aws-cli[^>]*-->\n```sh\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no walkthrough: aws-cli block")
	}
	endpoints := regexp.MustCompile(`(?m)^export AWS_ENDPOINT_URL_SQS=.*$`)
	if n := len(endpoints.FindAll(block[1], -1)); n != 1 {
		t.Fatalf("the walkthrough sets its endpoints on %d lines, want 1", n)
	}
	script := endpoints.ReplaceAllString(string(block[1]), "export AWS_ENDPOINT_URL_SQS="+e.sqs+
		" AWS_ENDPOINT_URL_SNS="+e.sns+" AWS_ENDPOINT_URL_DYNAMODB="+e.dynamodb)

	topic := devAWSResources(t)
	vars := map[string]string{"MQPROBE_CONFIG": filepath.Join(root, "configs", "aws-local.yaml"),
		"MQPROBE_RESULTS_SNSTOPICARN": topic, "MQPROBE_SQS_WAITTIMESECONDS": "2"}
	if out, err := runMqprobe(t, vars, "store", "init"); err != nil {
		t.Fatalf("mqprobe store init: %v\n%s", err, out)
	}
	startDaemonProcesses(t, 1, vars)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	t.Logf("the walkthrough ran with %s (%s)", cli, awsCLIVersion(cli))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the walkthrough's output:\n%s", out)
		}
	})
	if err != nil {
		t.Fatalf("the walkthrough failed: %v", err)
	}
	for _, want := range []string{`cli-batch-1`, `\"status\":\"COMPLETED\"`, `"S": "COMPLETED"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walkthrough's output lacks %s", want)
		}
	}
	results := newResultQueue(t, queueURL(t, "mqprobe-results"))
	for _, key := range []string{"sns-depth-1", "6f1c-evb-demo"} {
		if ev := results.wait(key, 1, 30*time.Second)[0]; ev.Data.Status != result.StatusCompleted {
			t.Errorf("%s: %s %+v", key, ev.Data.Status, ev.Data.Error)
		}
	}
}

// awsCLIVersion is what `aws --version` says.
func awsCLIVersion(cli string) string {
	out, err := exec.Command(cli, "--version").CombinedOutput()
	if err != nil {
		return err.Error()
	}
	return strings.TrimSpace(string(out))
}

// devAWSResources creates what scripts/dev-aws.sh creates — the command
// queue redriven to its DLQ after 5 receives, the results topic with the
// results queue subscribed (raw delivery), no table (store init makes it)
// — after removing any left by an earlier run, and returns the topic's ARN.
func devAWSResources(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	clear := func() {
		for _, name := range []string{"mqprobe-commands", "mqprobe-commands-dlq", "mqprobe-results"} {
			if url, err := sqsClient.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)}); err == nil {
				_, _ = sqsClient.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: url.QueueUrl})
			}
		}
		for _, name := range []string{"mqprobe-results", "mqprobe-command-topic"} {
			if topic, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)}); err == nil {
				_, _ = snsClient.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: topic.TopicArn})
			}
		}
		_, err := ddbClient.DeleteTable(ctx, &awsdynamodb.DeleteTableInput{TableName: aws.String("mq-probe-idempotency")})
		var missing *ddbtypes.ResourceNotFoundException
		if err != nil && !errors.As(err, &missing) {
			t.Logf("delete table mq-probe-idempotency: %v", err)
		}
	}
	clear()
	t.Cleanup(clear)
	_, dlqARN := testenv.NewQueue(t, sqsClient, "mqprobe-commands-dlq", nil)
	testenv.NewQueue(t, sqsClient, "mqprobe-commands", map[string]string{"VisibilityTimeout": "60",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"5"}`})
	_, resultsARN := testenv.NewQueue(t, sqsClient, "mqprobe-results", nil)
	topic, err := snsClient.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("mqprobe-results")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snsClient.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"),
		Endpoint: aws.String(resultsARN), Attributes: map[string]string{"RawMessageDelivery": "true"}}); err != nil {
		t.Fatal(err)
	}
	return aws.ToString(topic.TopicArn)
}

// queueURL is the URL of the queue called name.
func queueURL(t *testing.T, name string) string {
	t.Helper()
	out, err := sqsClient.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatalf("queue %s: %v", name, err)
	}
	return aws.ToString(out.QueueUrl)
}
