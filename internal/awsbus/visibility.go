package awsbus

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SQS's limits: the longest visibility timeout and long-poll wait.
const (
	MaxVisibilityTimeout = 12 * time.Hour
	MaxWaitTimeSeconds   = 20
)

// settleTimeout bounds each visibility change and delete. They run on a
// context the subscription's end does not cancel, so that a command finishing
// during shutdown is still deleted.
const settleTimeout = 10 * time.Second

// visibilitySeconds converts d to SQS's whole seconds, rounding up so a
// message never reappears before d, and clamping to SQS's range.
func visibilitySeconds(d time.Duration) int32 {
	d = min(max(d, 0), MaxVisibilityTimeout)
	return int32(math.Ceil(d.Seconds()))
}

// receipt is one delivery of an SQS message.
type receipt struct {
	client   *sqs.Client
	queueURL string
	handle   string
}

// setVisibility makes the message visible again d from now.
func (r receipt) setVisibility(ctx context.Context, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	_, err := r.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl:          aws.String(r.queueURL),
		ReceiptHandle:     aws.String(r.handle),
		VisibilityTimeout: visibilitySeconds(d),
	})
	if err != nil {
		return fmt.Errorf("change visibility of SQS message to %s: %w", d, err)
	}
	return nil
}

// delete removes the message from the queue.
func (r receipt) delete(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	_, err := r.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{
		QueueUrl:      aws.String(r.queueURL),
		ReceiptHandle: aws.String(r.handle),
	})
	if err != nil {
		return fmt.Errorf("delete SQS message: %w", err)
	}
	return nil
}

// keepInvisible pushes the message's visibility timeout out to timeout
// every timeout/3 until stop is called, so a command running for longer
// than the timeout is not delivered to another consumer meanwhile. stop
// returns once no visibility change is in flight.
func (r receipt) keepInvisible(timeout time.Duration, onError func(error)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(timeout / 3)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := r.setVisibility(ctx, timeout); err != nil && ctx.Err() == nil {
					onError(err)
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
