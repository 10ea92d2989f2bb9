package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
)

// BenchmarkEndToEndAWS: DEPTH commands per second through goaws (SQS in,
// SQS results out) and dynalite (records), against daemon processes
// sharing one command queue, results queue and table: one process with 1,
// 8 and 32 commands in flight, and three processes with 32. Each sender
// sends a command and waits for its result event.
func BenchmarkEndToEndAWS(b *testing.B) {
	for _, instances := range []struct {
		n     int
		concs []int
	}{{1, []int{1, 8, 32}}, {3, []int{32}}} {
		b.Run(fmt.Sprintf("instances=%d", instances.n), func(b *testing.B) {
			env := newLocalAWS(b, 10)
			vars := daemonProcessEnv(env, map[string]string{"MQPROBE_SQS_MAXMESSAGES": "10"})
			maps.Copy(vars, awsEnv)
			for i := range instances.n {
				vars["MQPROBE_INSTANCEID"] = fmt.Sprintf("bench-%d", i+1)
				daemontest.StartProcess(b, vars["MQPROBE_INSTANCEID"], vars)
			}
			results := newResultWaiter(b, env.results)
			body := `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
			run := strconv.FormatInt(time.Now().UnixNano(), 36)
			var seq atomic.Int64
			for _, conc := range instances.concs {
				b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
					daemontest.ClosedLoop(b, conc, b.N, func() error {
						key := fmt.Sprintf("bench-%s-%d", run, seq.Add(1))
						done := results.expect(key)
						if err := trySendCommand(env.commands, body, map[string]string{"Idempotency-Key": key}); err != nil {
							return fmt.Errorf("send %s: %w", key, err)
						}
						select {
						case status := <-done:
							if status != result.StatusCompleted {
								return fmt.Errorf("command %s: %s", key, status)
							}
							return nil
						case <-time.After(time.Minute):
							return fmt.Errorf("command %s: no result within a minute", key)
						}
					})
				})
			}
		})
	}
}

// resultWaiter receives the result events of a results queue (several
// pollers, batch deletes) and hands each event's status to whoever
// expects its idempotency key.
type resultWaiter struct {
	url     string
	mu      sync.Mutex
	waiting map[string]chan result.Status
	failed  atomic.Value
}

const resultPollers = 4

func newResultWaiter(b *testing.B, url string) *resultWaiter {
	w := &resultWaiter{url: url, waiting: map[string]chan result.Status{}}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range resultPollers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := w.poll(ctx); err != nil && ctx.Err() == nil {
					w.failed.CompareAndSwap(nil, err)
					select { // back off before the next receive
					case <-ctx.Done():
					case <-time.After(100 * time.Millisecond):
					}
				}
			}
		}()
	}
	b.Cleanup(func() {
		cancel()
		wg.Wait()
		if err, _ := w.failed.Load().(error); err != nil {
			b.Errorf("receiving results: %v", err)
		}
	})
	return w
}

// expect registers key before its command is sent; the channel receives
// the status of its first result event.
func (w *resultWaiter) expect(key string) <-chan result.Status {
	ch := make(chan result.Status, 1)
	w.mu.Lock()
	w.waiting[key] = ch
	w.mu.Unlock()
	return ch
}

func (w *resultWaiter) poll(ctx context.Context) error {
	out, err := sqsClient.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(w.url),
		MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	if err != nil {
		return fmt.Errorf("receive: %w", err)
	}
	if len(out.Messages) == 0 {
		return nil
	}
	var del []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range out.Messages {
		var ev result.Event
		if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &ev); err != nil {
			return fmt.Errorf("result is not a CloudEvent: %w: %.200s", err, aws.ToString(m.Body))
		}
		w.mu.Lock()
		ch := w.waiting[ev.Data.IdempotencyKey]
		delete(w.waiting, ev.Data.IdempotencyKey)
		w.mu.Unlock()
		if ch != nil {
			ch <- ev.Data.Status
		}
		del = append(del, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	if _, err := sqsClient.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(w.url), Entries: del}); err != nil {
		return fmt.Errorf("delete results: %w", err)
	}
	return nil
}
