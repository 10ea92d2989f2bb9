package awsbus

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestReceiveCarriesAttributesAsMetadata(t *testing.T) {
	url, _ := newQueue(t, nil)
	id := send(t, url, `{"operationType":"DEPTH"}`, map[string]string{
		"Idempotency-Key":            "key-1",
		"Idempotency-Expiry-Seconds": "3600",
		"traceparent":                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		MetaRetryAfter:               "1", // not the sender's to choose
	})
	_, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1})

	m := next(t, ch, 10*time.Second)
	defer m.Ack()
	if got := string(m.Payload); got != `{"operationType":"DEPTH"}` {
		t.Errorf("payload = %s", got)
	}
	want := map[string]string{
		"Idempotency-Key":            "key-1",
		"Idempotency-Expiry-Seconds": "3600",
		"traceparent":                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		MetaMessageID:                id,
		MetaReceiveCount:             "1",
	}
	for k, v := range want {
		if got := m.Metadata.Get(k); got != v {
			t.Errorf("metadata %s = %q, want %q", k, got, v)
		}
	}
	for _, k := range []string{MetaRetryAfter, metaReceipt} {
		if _, ok := m.Metadata[k]; ok {
			t.Errorf("metadata carries %s", k)
		}
	}
}

func TestQueueGivenByName(t *testing.T) {
	url, _ := newQueue(t, nil)
	send(t, url, "by name", nil)
	_, ch := subscribe(t, SubscriberConfig{CommandQueue: url[strings.LastIndex(url, "/")+1:], WaitTimeSeconds: 1})
	m := next(t, ch, 10*time.Second)
	m.Ack()
	if string(m.Payload) != "by name" {
		t.Errorf("payload = %q", m.Payload)
	}
}

func TestMissingQueueFailsSubscribe(t *testing.T) {
	sub, err := NewCommandSubscriber(awsCfg, SubscriberConfig{CommandQueue: uniqueName(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if _, err := sub.Subscribe(t.Context(), "x"); err == nil {
		t.Fatal("Subscribe to a missing queue succeeded")
	}
}

// Responses over 4 KiB once came back truncated from goaws (see LoadConfig).
func TestLargeBodiesReceivedIntact(t *testing.T) {
	url, _ := newQueue(t, nil)
	var bodies []string
	for i, size := range []int{5 << 10, 64 << 10, 200 << 10, 8 << 10} {
		b := make([]byte, size)
		for j := range b {
			b[j] = 'a' + byte(rand.IntN(26))
		}
		bodies = append(bodies, fmt.Sprintf("%d:%s", i, b))
		send(t, url, bodies[i], map[string]string{"Idempotency-Key": fmt.Sprint(i)})
	}
	_, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1})
	got := map[string]bool{}
	for range bodies {
		m := next(t, ch, 10*time.Second)
		got[string(m.Payload)] = true
		m.Ack()
	}
	for i, b := range bodies {
		if !got[b] {
			t.Errorf("body %d (%d bytes) not received intact", i, len(b))
		}
	}
	eventually(t, 5*time.Second, "deleted", func() bool { return queueEmpty(t, url) })
}

func TestAckDeletes(t *testing.T) {
	url, _ := newQueue(t, nil)
	send(t, url, "once", nil)
	_, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1, VisibilityTimeout: 3 * time.Second})
	next(t, ch, 10*time.Second).Ack()
	eventually(t, 5*time.Second, "deleted", func() bool { return queueEmpty(t, url) })
}

func TestNackRedeliversAfterTheAskedDelay(t *testing.T) {
	cases := []struct {
		name       string
		visibility time.Duration
		ask        time.Duration // set by the handler; 0: none
		want       time.Duration
	}{
		{name: "handler delay", visibility: 30 * time.Second, ask: 2 * time.Second, want: 2 * time.Second},
		{name: "visibility timeout", visibility: 6 * time.Second, want: 6 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url, _ := newQueue(t, nil)
			send(t, url, "retry me", nil)
			// With an asked delay the visibility timeout is long: the
			// redelivery is the nack's doing.
			_, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1, VisibilityTimeout: c.visibility})

			m := next(t, ch, 10*time.Second)
			if c.ask > 0 {
				SetRetryAfter(m, c.ask)
			}
			nacked := time.Now()
			m.Nack()
			again := next(t, ch, c.want+5*time.Second)
			defer again.Ack()
			// Without an asked delay the timeout counts from its last
			// renewal (every third of it) or the receive, which a loaded
			// machine may hand over late: not from the nack. Redelivery
			// at once would come within the long poll.
			earliest := c.want
			if c.ask == 0 {
				earliest = c.visibility / 3
			}
			if waited := time.Since(nacked); waited < earliest {
				t.Errorf("redelivered after %s, before %s", waited, earliest)
			}
			if string(again.Payload) != "retry me" {
				t.Errorf("payload = %q", again.Payload)
			}
		})
	}
}

func TestVisibilityExtendedWhileHandlerRuns(t *testing.T) {
	t.Parallel()
	url, _ := newQueue(t, nil)
	send(t, url, "slow", nil)
	cfg := SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1, VisibilityTimeout: 3 * time.Second}
	_, ch := subscribe(t, cfg)
	m := next(t, ch, 10*time.Second)

	// A second consumer would get the message if its visibility lapsed
	// while the slow handler runs for twice the timeout.
	_, other := subscribe(t, cfg)
	none(t, other, 2*cfg.VisibilityTimeout)
	m.Ack()
	eventually(t, 5*time.Second, "deleted", func() bool { return queueEmpty(t, url) })
}

func TestRedriveMovesRepeatedlyNackedMessageToDLQ(t *testing.T) {
	onEachEmulator(t, redriveMovesRepeatedlyNackedMessageToDLQ)
}

func redriveMovesRepeatedlyNackedMessageToDLQ(t *testing.T) {
	dlqURL, dlqARN := newQueue(t, nil)
	policy, _ := json.Marshal(map[string]string{"maxReceiveCount": "2", "deadLetterTargetArn": dlqARN})
	url, _ := newQueue(t, map[string]string{"RedrivePolicy": string(policy)})
	send(t, url, "poison", nil)
	_, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1, VisibilityTimeout: 30 * time.Second})

	for range 2 {
		m := next(t, ch, 10*time.Second)
		SetRetryAfter(m, 0)
		m.Nack()
	}
	if got := receiveRaw(t, dlqURL); *got.Body != "poison" {
		t.Errorf("DLQ holds %q", *got.Body)
	}
	none(t, ch, 2*time.Second)
}

func TestMaxMessagesHoldsSeveralAtOnce(t *testing.T) {
	url, _ := newQueue(t, nil)
	send(t, url, "a", nil)
	send(t, url, "b", nil)
	_, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1, MaxMessages: 2})
	first := next(t, ch, 10*time.Second)
	second := next(t, ch, 10*time.Second) // while the first is unsettled
	if string(first.Payload)+string(second.Payload) != "ab" && string(first.Payload)+string(second.Payload) != "ba" {
		t.Errorf("got %q and %q", first.Payload, second.Payload)
	}
	first.Ack()
	second.Ack()
	eventually(t, 5*time.Second, "deleted", func() bool { return queueEmpty(t, url) })
}

func TestCloseWaitsForInFlightAndStillDeletes(t *testing.T) {
	url, _ := newQueue(t, nil)
	send(t, url, "draining", nil)
	sub, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1})
	m := next(t, ch, 10*time.Second)

	closed := make(chan error, 1)
	go func() { closed <- sub.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the in-flight message was settled", err)
	case <-time.After(500 * time.Millisecond):
	}
	m.Ack()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, ok := <-ch; ok {
		t.Error("channel still open after Close")
	}
	eventually(t, 5*time.Second, "deleted", func() bool { return queueEmpty(t, url) })
}

func TestCloseGivesUpOnUnsettledAfterCloseTimeout(t *testing.T) {
	t.Parallel()
	url, _ := newQueue(t, nil)
	send(t, url, "stuck", nil)
	cfg := SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1, VisibilityTimeout: 3 * time.Second, CloseTimeout: time.Second}
	sub, ch := subscribe(t, cfg)
	stuck := next(t, ch, 10*time.Second)
	defer stuck.Ack() // too late: no longer waited for

	start := time.Now()
	if err := sub.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if took := time.Since(start); took < cfg.CloseTimeout || took > cfg.CloseTimeout+3*time.Second {
		t.Errorf("Close took %s with CloseTimeout %s", took, cfg.CloseTimeout)
	}
	// Left to SQS, the command comes back once its visibility lapses.
	_, other := subscribe(t, cfg)
	m := next(t, other, 10*time.Second)
	m.Ack()
	if string(m.Payload) != "stuck" {
		t.Errorf("payload = %q", m.Payload)
	}
}

func TestSubscriberConfigValidation(t *testing.T) {
	for _, cfg := range []SubscriberConfig{
		{},
		{CommandQueue: "q", WaitTimeSeconds: 21},
		{CommandQueue: "q", VisibilityTimeout: 2 * time.Second},
		{CommandQueue: "q", VisibilityTimeout: 4500 * time.Millisecond},
		{CommandQueue: "q", MaxMessages: -1},
		{CommandQueue: "q", CloseTimeout: -time.Second},
	} {
		if _, err := NewCommandSubscriber(awsCfg, cfg, nil); err == nil {
			t.Errorf("NewCommandSubscriber(%+v) accepted", cfg)
		}
	}
}

func TestRetryAfterMetadata(t *testing.T) {
	m := message.NewMessage("id", nil)
	SetRetryAfter(m, 1500*time.Millisecond)
	if got := m.Metadata.Get(MetaRetryAfter); got != "1500" {
		t.Errorf("%s = %q", MetaRetryAfter, got)
	}
	if d, ok := retryAfter(m.Metadata); !ok || d != 1500*time.Millisecond {
		t.Errorf("retryAfter = %s, %v", d, ok)
	}
	for _, bad := range []string{"", "-1", "soon"} {
		if _, ok := retryAfter(message.Metadata{MetaRetryAfter: bad}); ok {
			t.Errorf("retryAfter accepted %q", bad)
		}
	}
	// SQS counts whole seconds: round up, never redeliver early.
	for d, want := range map[time.Duration]int32{0: 0, time.Millisecond: 1, 1500 * time.Millisecond: 2, 13 * time.Hour: 43200} {
		if got := visibilitySeconds(d); got != want {
			t.Errorf("visibilitySeconds(%s) = %d, want %d", d, got, want)
		}
	}
}

// TestClosingHandsBackWhatReceivesInFlightBring: a rolling restart. A
// closes while its long polls wait; commands sent just then reach those
// polls, and must come back to the queue at once for B, not after the
// 60 s visibility timeout.
func TestClosingHandsBackWhatReceivesInFlightBring(t *testing.T) {
	onEachEmulator(t, closingHandsBack)
}

func closingHandsBack(t *testing.T) {
	url, _ := newQueue(t, map[string]string{"VisibilityTimeout": "60"})
	cfg := SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 5, VisibilityTimeout: 60 * time.Second, MaxMessages: 2}
	a, _ := subscribe(t, cfg)
	time.Sleep(500 * time.Millisecond) // A's receives are waiting on the empty queue

	closed := make(chan time.Duration, 1)
	began := time.Now()
	go func() {
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		closed <- time.Since(began)
	}()
	time.Sleep(200 * time.Millisecond)
	sent := time.Now()
	want := map[string]bool{send(t, url, "one", nil): true, send(t, url, "two", nil): true}

	_, b := subscribe(t, cfg)
	bound := time.Duration(cfg.WaitTimeSeconds)*time.Second + 5*time.Second
	for len(want) > 0 {
		m := next(t, b, bound-time.Since(sent))
		delete(want, m.Metadata.Get(MetaMessageID))
		m.Ack()
	}
	t.Logf("both commands reached B %s after they were sent", time.Since(sent).Round(time.Millisecond))
	if took := <-closed; took > bound {
		t.Errorf("A took %s to close, more than its receives' wait plus 5 s", took)
	}
}

// TestSaturatedDaemonLeavesCommandsInTheQueue: while WaitForRoom blocks, a
// receive loop takes no more commands; they stay in the queue, visible to
// other consumers, until there is room.
func TestSaturatedDaemonLeavesCommandsInTheQueue(t *testing.T) {
	url, _ := newQueue(t, nil)
	send(t, url, "first", nil)
	var saturated atomic.Bool
	room := make(chan struct{})
	_, ch := subscribe(t, SubscriberConfig{CommandQueue: url, WaitTimeSeconds: 1, MaxMessages: 1,
		WaitForRoom: func(ctx context.Context) error {
			if !saturated.Load() {
				return nil
			}
			select {
			case <-room:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}})
	saturated.Store(true)
	next(t, ch, 10*time.Second).Ack()
	send(t, url, "second", nil)
	none(t, ch, 3*time.Second)
	if m := receiveRaw(t, url); aws.ToString(m.Body) != "second" {
		t.Fatalf("another consumer got %q; want the command left in the queue", aws.ToString(m.Body))
	}
	send(t, url, "third", nil)
	close(room)
	if m := next(t, ch, 15*time.Second); string(m.Payload) != "third" {
		t.Errorf("after room came back: got %q", m.Payload)
	} else {
		m.Ack()
	}
}
