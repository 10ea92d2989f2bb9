package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestSendThroughSQSAndWait: in aws mode send publishes to the command
// queue and waits for the result on the results queue.
func TestSendThroughSQSAndWait(t *testing.T) {
	testenv.ClearMachineEnv(t)
	endpoint, stop, err := testenv.Goaws()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for k, v := range map[string]string{"AWS_ENDPOINT_URL_SQS": endpoint, "AWS_ENDPOINT_URL_SNS": endpoint,
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"} {
		t.Setenv(k, v)
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	client := sqs.NewFromConfig(awsCfg)
	suffix := fmt.Sprint(time.Now().UnixNano())
	commands, results := "cli-commands-"+suffix, "cli-results-"+suffix
	for _, q := range []string{commands, results} {
		if _, err := client.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(q)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.Mode, cfg.HTTP.Addr = config.ModeAWS, "127.0.0.1:0"
	cfg.SQS.CommandQueue, cfg.SQS.WaitTimeSeconds, cfg.Results.SQSQueue = commands, 1, results
	cfg.Idempotency.Store = config.StoreMemory
	d, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test", Store: memory.New(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()

	t.Setenv("MQPROBE_MODE", "aws")
	t.Setenv("MQPROBE_SQS_COMMANDQUEUE", commands)
	t.Setenv("MQPROBE_RESULTS_SQSQUEUE", results)
	out, status := mqprobe(t, "send", "produce", "--queue", "DEV.QUEUE.2", "--count", "12", "--key", "cli-aws-1", "--wait", "--timeout", "30s")
	if status != 0 || !strings.Contains(out, `"enqueued": 12`) || !strings.Contains(out, `"idempotencyKey": "cli-aws-1"`) {
		t.Fatalf("send --wait: %d %s", status, out)
	}
	out, status = mqprobe(t, "send", "depth", "--queue", "NO.SUCH.QUEUE", "--wait", "--timeout", "30s")
	if status != exitFailed || !strings.Contains(out, "MQRC_UNKNOWN_OBJECT_NAME") {
		t.Errorf("failed command: %d %s", status, out)
	}
	out, status = mqprobe(t, "send", "depth", "--queue", "DEV.QUEUE.2")
	if status != 0 || !strings.Contains(out, `"messageId"`) {
		t.Errorf("send without --wait: %d %s", status, out)
	}
}
