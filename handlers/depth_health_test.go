package handlers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestDepthConsumerStopped is the canary's question: messages wait, the
// consumer that got the first one has gone, and with thresholds set DEPTH
// says critical, with the oldest message's age within a second of the
// truth.
func TestDepthConsumerStopped(t *testing.T) {
	f := newFixture(t)
	c := f.conn()
	out, err := c.OpenQueue(f.ctx, testQueue, mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	var puts []mq.PutResult
	for range 3 {
		res, err := out.Put(f.ctx, &mq.Message{Payload: []byte("order")}, mq.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		puts = append(puts, res)
	}
	out.Close()
	in, err := c.OpenQueue(f.ctx, testQueue, mq.OpenInputShared)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Get(f.ctx, &mq.Message{}, mq.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	in.Close() // the consumer stops
	oldest := puts[1].PutTime

	maxAge := 0.5
	run := f.run(command.Command{OperationType: command.Depth, Thresholds: &command.Thresholds{MaxOldestMessageAgeSeconds: &maxAge}})
	var (
		res           DepthResult
		before, after time.Time
	)
	testenv.Eventually(t, 10*time.Second, "the oldest message older than the threshold", func() bool {
		before = time.Now()
		got, err := depth(f.ctx, run)
		after = time.Now()
		if err != nil {
			t.Fatal(err)
		}
		res = got.(DepthResult)
		return res.OldestMessageAgeSeconds != nil && *res.OldestMessageAgeSeconds > maxAge
	})
	age := time.Duration(*res.OldestMessageAgeSeconds * float64(time.Second))
	if lo, hi := before.Sub(oldest)-time.Second, after.Sub(oldest)+time.Second; age < lo || age > hi {
		t.Errorf("oldest message age %s, want within a second of %s..%s", age, before.Sub(oldest), after.Sub(oldest))
	}
	if res.Verdict != verdictCritical || len(res.Findings) != 1 || res.Findings[0].Figure != "oldestMessageAgeSeconds" ||
		res.Findings[0].Verdict != verdictCritical {
		t.Errorf("verdict %q, findings %+v; want critical on the oldest message's age", res.Verdict, res.Findings)
	}
	if *res.CurrentDepth != 2 || *res.OpenInputCount != 0 || res.LastGetAt == nil || res.QueueTime == nil {
		t.Errorf("the stopped consumer's signs: %s", depthJSON(t, res))
	}
}

func TestDepthVerdict(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name        string
		share, age  *float64
		thresholds  command.Thresholds
		wantVerdict string
	}{
		{"healthy", f64(0.1), f64(10), command.Thresholds{MaxDepthShare: f64(0.8), MaxOldestMessageAgeSeconds: f64(300)}, verdictHealthy},
		{"depth past 80% of its threshold", f64(0.65), f64(10), command.Thresholds{MaxDepthShare: f64(0.8), MaxOldestMessageAgeSeconds: f64(300)}, verdictWarning},
		{"age past its threshold", f64(0.65), f64(301), command.Thresholds{MaxDepthShare: f64(0.8), MaxOldestMessageAgeSeconds: f64(300)}, verdictCritical},
		{"exactly at the threshold is not past it", f64(0.8), nil, command.Thresholds{MaxDepthShare: f64(0.8)}, verdictWarning},
		{"only the thresholded figure counts", f64(1), f64(1), command.Thresholds{MaxOldestMessageAgeSeconds: f64(300)}, verdictHealthy},
		{"a missing figure is unknown", f64(0.1), nil, command.Thresholds{MaxDepthShare: f64(0.8), MaxOldestMessageAgeSeconds: f64(300)}, verdictUnknown},
		{"a missing figure does not hide a critical one", f64(0.9), nil, command.Thresholds{MaxDepthShare: f64(0.8), MaxOldestMessageAgeSeconds: f64(300)}, verdictCritical},
	} {
		verdict, findings := judge(DepthResult{DepthShare: tc.share, OldestMessageAgeSeconds: tc.age}, tc.thresholds)
		if verdict != tc.wantVerdict {
			t.Errorf("%s: verdict %q (findings %+v), want %q", tc.name, verdict, findings, tc.wantVerdict)
		}
	}
}

// statusRefusingBackend is the embedded queue manager behind a command
// server that refuses or does not answer: MQINQ works, INQUIRE_Q_STATUS
// fails with reason.
type statusRefusingBackend struct {
	*embedded.Backend
	reason mq.Reason
}

func (b statusRefusingBackend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	c, err := b.Backend.Connect(ctx, t)
	return statusRefusingConn{c, b.reason}, err
}

type statusRefusingConn struct {
	mq.Conn
	reason mq.Reason
}

func (c statusRefusingConn) InquireChannelStatus(context.Context) (mq.ChannelStatus, error) {
	return mq.ChannelStatus{}, mq.NewError(mq.VerbOpen, "SYSTEM.ADMIN.COMMAND.QUEUE", c.reason)
}

func (c statusRefusingConn) InquireQueueStatus(_ context.Context, name string) (mq.QueueStatus, error) {
	return mq.QueueStatus{}, mq.NewError(mq.VerbOpen, "SYSTEM.ADMIN.COMMAND.QUEUE", c.reason)
}

// TestDepthWithoutQueueStatus: without the command server DEPTH still
// answers its MQINQ figures, names the missing ones and says why; with
// thresholds on a missing figure the verdict is unknown.
func TestDepthWithoutQueueStatus(t *testing.T) {
	for reason, why := range map[mq.Reason]string{
		mq.ReasonNotAuthorized:  "MQRC_NOT_AUTHORIZED",
		mq.ReasonNoMsgAvailable: "did not answer",
	} {
		b := embedded.NewDefault()
		f := newFixtureWith(t, statusRefusingBackend{b, reason}, b)
		f.putN(2)
		maxAge := 300.0
		got, err := depth(f.ctx, f.run(command.Command{OperationType: command.Depth,
			Thresholds: &command.Thresholds{MaxOldestMessageAgeSeconds: &maxAge}}))
		if err != nil {
			t.Fatalf("%s: DEPTH failed for missing extras: %v", reason, err)
		}
		res := got.(DepthResult)
		if res.CurrentDepth == nil || *res.CurrentDepth != 2 || res.OldestMessageAgeSeconds != nil {
			t.Errorf("%s: %s", reason, depthJSON(t, res))
		}
		for _, figure := range statusFigures {
			if !strings.Contains(res.Missing[figure], why) {
				t.Errorf("%s: missing[%s] = %q, want it to say %q", reason, figure, res.Missing[figure], why)
			}
		}
		if res.Verdict != verdictUnknown {
			t.Errorf("%s: verdict %q, want unknown", reason, res.Verdict)
		}
	}
}
