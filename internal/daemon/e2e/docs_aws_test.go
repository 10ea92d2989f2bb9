package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/doctest"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestDocsAWSWalkthrough runs the ```sh aws blocks of README.md and
// docs/operations.md in document order, as written, and checks each output
// a ```text block shows (package doctest): with the `aws` on PATH and
// nothing of the test's environment but PATH and HOME, against the
// resources `make dev-aws` creates and a daemon on configs/aws-local.yaml.
// The one change is the emulators' addresses: the documents'
// http://127.0.0.1:4100 (goaws) and http://127.0.0.1:4567 (dynalite) become
// the current emulator's.
func TestDocsAWSWalkthrough(t *testing.T) {
	onEachEmulator(t, docsAWSWalkthrough)
}

func docsAWSWalkthrough(t *testing.T, e *awsEmulator) {
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Fatalf("the AWS walkthrough needs the AWS CLI on PATH (scripts/with-services.sh installs it): %v", err)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := doctest.Load(root, func(b doctest.Block) bool { return b.HasTag("aws") }, daemontest.AWSWalkthroughDocs...)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 3 {
		t.Fatalf("%d blocks tagged aws, want the walkthrough of docs/operations.md (3 or more)", len(blocks))
	}

	topic := devAWSResources(t)
	vars := map[string]string{"MQPROBE_CONFIG": filepath.Join(root, "configs", "aws-local.yaml"),
		"MQPROBE_RESULTS_SNSTOPICARN": topic, "MQPROBE_SQS_WAITTIMESECONDS": "2"}
	if out, err := runMqprobe(t, vars, "store", "init"); err != nil {
		t.Fatalf("mqprobe store init: %v\n%s", err, out)
	}
	startDaemonProcesses(t, 1, vars)

	t.Logf("the walkthrough runs with %s (%s)", cli, awsCLIVersion(cli))
	// The blocks run as in a clone: bin/mqprobe and configs/ beside them.
	dir := t.TempDir()
	daemontest.LikeAClone(t, dir)
	session := &doctest.Session{
		Dir:     dir,
		Env:     []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()},
		Replace: []string{"http://127.0.0.1:4100", e.sqs, "http://127.0.0.1:4567", e.dynamodb},
	}
	for _, b := range blocks {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		err := session.Check(ctx, b)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The walkthrough's STOP_TEST ended its 60 s TEST early. Its progress
	// events (every 5 s, more of them on a slow machine) come first; past
	// 60 s the TEST ends by itself, unstopped.
	results := newResultQueue(t, queueURL(t, "mqprobe-results"))
	var ev receivedEvent
	results.waitUntil(t, 90*time.Second, func(evs []receivedEvent) (bool, string) {
		for _, e := range evs {
			if e.Data.IdempotencyKey == "probe-42" && e.Type != result.TypeProgress {
				ev = e
				return true, ""
			}
		}
		return false, fmt.Sprintf("probe-42: no final event among %d progress events", countReceivedEvents(evs,
			func(e receivedEvent) bool { return e.Data.IdempotencyKey == "probe-42" }))
	})
	if ev.Data.Status != result.StatusCompleted || !strings.Contains(string(ev.Data.Result), `"stopped":true`) {
		t.Errorf("probe-42: %s %s %+v, want COMPLETED and stopped", ev.Data.Status, ev.Data.Result, ev.Data.Error)
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
