package awsbus

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"

	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestAwaitResultLeavesOtherEventsAlone: waiting for a result deletes its
// own progress events and hides other commands' events for a while
// instead of handing them straight back, so the long poll waits rather
// than spinning until the deadline; the other events stay on the queue.
func TestAwaitResultLeavesOtherEventsAlone(t *testing.T) {
	ctx := context.Background()
	var receives atomic.Int32
	client := sqs.NewFromConfig(awsCfg, func(o *sqs.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("countReceives",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if _, ok := in.Parameters.(*sqs.ReceiveMessageInput); ok {
						receives.Add(1)
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	})
	queue := uniqueName(t)
	url, _ := testenv.NewQueue(t, sqsClient, queue, nil)
	sendEvent := func(key string, status result.Status) {
		t.Helper()
		body, err := json.Marshal(result.New("test", result.Data{IdempotencyKey: key, Status: status}, time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		send(t, url, string(body), nil)
	}
	sendEvent("someone-else", result.StatusCompleted)
	sendEvent("mine", result.StatusInProgress)

	// The queue given by name, as the CLI's --results-queue gives it.
	if _, err := AwaitResult(ctx, client, queue, "mine", 3*time.Second); !errors.Is(err, ErrNoResult) {
		t.Fatalf("AwaitResult: %v; want ErrNoResult within the timeout", err)
	}
	if n := receives.Load(); n > 4 {
		t.Errorf("%d receives in 3s: the wait spun on the other command's event", n)
	}
	// After the hold the other command's event is back; the progress event is gone.
	var keys []string
	receive := func() {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			var ev result.Event
			if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &ev); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, ev.Data.IdempotencyKey)
		}
	}
	// Each receive waits up to a second for a message; two more find
	// anything left besides.
	testenv.Until(foreignHold+10*time.Second, func() bool { receive(); return len(keys) > 0 })
	receive()
	receive()
	if len(keys) != 1 || keys[0] != "someone-else" {
		t.Errorf("left on the queue: %v; want only the other command's event", keys)
	}
}

// TestAwaitResultReturnsTheResult: the first result event of the key ends
// the wait, after its progress events, and nothing of the key is left.
func TestAwaitResultReturnsTheResult(t *testing.T) {
	url, _ := newQueue(t, nil)
	for _, ev := range []result.Event{
		result.New("test", result.Data{IdempotencyKey: "k", Status: result.StatusInProgress}, time.Now()),
		result.New("test", result.Data{IdempotencyKey: "k", Status: result.StatusCompleted}, time.Now()),
	} {
		body, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		send(t, url, string(body), nil)
	}
	ev, err := AwaitResult(t.Context(), sqsClient, url, "k", 10*time.Second)
	if err != nil || ev.Data.Status != result.StatusCompleted {
		t.Fatalf("AwaitResult: %+v %v; want the COMPLETED event", ev.Data, err)
	}
	eventually(t, 5*time.Second, "the queue empty", func() bool { return queueEmpty(t, url) })
}
