package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
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
	cfg.SQS.CommandQueue, cfg.SQS.WaitTimeSeconds, cfg.Results.QueueURL = commands, 1, results
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
	// --wait is the outcome's wait for every operation; CONSUME's MQ wait is --wait-seconds.
	out, status = mqprobe(t, "send", "consume", "--queue", "DEV.QUEUE.2", "--max-messages", "3", "--wait-seconds", "0", "--wait", "--timeout", "30s")
	if status != 0 || !strings.Contains(out, `"operationType": "CONSUME"`) || !strings.Contains(out, `"received": 3`) {
		t.Fatalf("consume --wait: %d %s", status, out)
	}
	out, status = mqprobe(t, "send", "depth", "--queue", "NO.SUCH.QUEUE", "--wait", "--timeout", "30s")
	if status != exitFailed || !strings.Contains(out, "MQRC_UNKNOWN_OBJECT_NAME") {
		t.Errorf("failed command: %d %s", status, out)
	}
	// Without --wait a key is generated too: shown, and sent, so a retry
	// with it is idempotent.
	out, stderr, status := runCLI(t, context.Background(), "send", "depth", "--queue", "DEV.QUEUE.2")
	var published struct{ MessageID, IdempotencyKey string }
	if err := json.Unmarshal([]byte(out), &published); err != nil || status != 0 || published.MessageID == "" ||
		len(published.IdempotencyKey) != 36 || !strings.Contains(stderr, "idempotency key "+published.IdempotencyKey) {
		t.Errorf("send without --wait: %d %s %s", status, out, stderr)
	}
}

// TestLiveLineFromTheRecord: in aws mode the live line reads the command's
// checkpoint from the idempotency store the configuration names.
func TestLiveLineFromTheRecord(t *testing.T) {
	cfg := config.Default()
	cfg.Idempotency.Store = config.StoreSQLite
	cfg.Idempotency.SQLite.Path = filepath.Join(t.TempDir(), "mqprobe.db")
	ctx := context.Background()
	if _, err := daemon.InitStore(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	store, err := sqlstore.OpenSQLite(ctx, cfg.Idempotency.SQLite.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	claim := idempotency.Claim{PK: idempotency.PK("PRODUCE", "", "aws-live"), OperationType: "PRODUCE", IdempotencyKey: "aws-live",
		RequestHash: "h", LeaseToken: "lease-1", Now: now, ExpiresAt: now.Add(time.Hour), LeaseExpiresAt: now.Add(time.Minute)}
	if _, ok, err := store.Begin(ctx, claim); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	checkpoint := func(committed int) {
		progress := fmt.Sprintf(`{"committed":%d,"transactions":%d,"bytes":0}`, committed, committed/100)
		if _, err := store.Update(ctx, claim.PK, "lease-1", idempotency.Update{Kind: idempotency.UpdateHeartbeat,
			Now: time.Now().UTC(), LeaseExpiresAt: now.Add(time.Minute), Progress: &progress}); err != nil {
			t.Fatal(err)
		}
	}
	checkpoint(300)

	reader, closeReader, err := daemon.OpenRecords(ctx, cfg, slog.New(slog.DiscardHandler)) // the CLI's own connection
	if err != nil {
		t.Fatal(err)
	}
	defer closeReader()
	var screen testenv.Buffer
	watch := startCommandWatch(ctx, storeStateSource(reader, "PRODUCE", "aws-live"), "put", 1000, &progressLine{w: &screen, tty: true})
	waitFor(t, &screen, "put 300/1000  committed 300")
	checkpoint(600)
	waitFor(t, &screen, "put 600/1000  committed 600  ")
	watch.stop()
	if got := screen.String(); !strings.Contains(got, " msg/s  ETA ") || !strings.HasSuffix(got, "\n") {
		t.Errorf("no rate and ETA from the checkpoints, or the line not ended: %q", got)
	}
}

func waitFor(t *testing.T, b *testenv.Buffer, want string) {
	t.Helper()
	if !testenv.Until(5*time.Second, func() bool { return strings.Contains(b.String(), want) }) {
		t.Fatalf("the live line never showed %q: %q", want, b.String())
	}
}
