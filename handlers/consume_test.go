package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

func consumeCmd(maxMessages, waitSeconds int) command.Command {
	return command.Command{
		OperationType: command.Consume,
		MaxMessages:   maxMessages,
		WaitSeconds:   &waitSeconds,
		Ack:           command.AckCommit,
	}
}

func withTx(cmd command.Command, txSize int) command.Command {
	cmd.Transaction = &command.Transaction{Enabled: true, TxSize: txSize}
	return cmd
}

func runConsume(t *testing.T, f *fixture, run Run) ConsumeResult {
	t.Helper()
	res, err := consume(f.ctx, run, defaultCapture())
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	return res.(ConsumeResult)
}

func decodeConsumeProgress(t *testing.T, s string) consumeProgress {
	t.Helper()
	var p consumeProgress
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		t.Fatalf("progress %q: %v", s, err)
	}
	return p
}

func msgIDs(msgs []CapturedMessage) []string {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.MsgIDBase64
	}
	return ids
}

func encodeIDs(ids []mq.ID) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = encodeID(id)
	}
	return s
}

func TestConsumeGetsUpToMaxAndCaptures(t *testing.T) {
	f := newFixture(t)
	correl := mq.ID{1, 2, 3}
	ids := f.put(&mq.Message{Payload: []byte("first"), Format: mq.FormatString, Persistent: true, Priority: 4, CorrelID: correl})
	ids = append(ids, f.putN(9)...)

	r := runConsume(t, f, f.run(withTx(consumeCmd(7, 0), 3)))
	if r.Received != 7 || r.Browsed != 0 || len(r.Messages) != 7 || r.Truncated {
		t.Fatalf("result %+v", r)
	}
	f.wantDepth(3)
	m := r.Messages[0]
	putTime, err := time.Parse(time.RFC3339Nano, m.PutTime)
	if m.MsgIDBase64 != encodeID(ids[0]) || m.CorrelIDBase64 != encodeID(correl) || err != nil || time.Since(putTime) > time.Minute ||
		m.Priority != 4 || m.Persistence != "persistent" || m.Format != "MQSTR" || m.SizeBytes != 5 ||
		m.PayloadBase64 != base64.StdEncoding.EncodeToString([]byte("first")) {
		t.Fatalf("captured %+v (%v)", m, err)
	}
	if r.Messages[1].Persistence != "nonpersistent" {
		t.Fatalf("captured %+v", r.Messages[1])
	}
	keys := jsonKeys(t, r)
	for _, k := range []string{"received", "browsed", "messages", "truncated"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("result JSON lacks %q", k)
		}
	}
	var msgs []map[string]any
	if err := json.Unmarshal(keys["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"msgIdBase64", "correlIdBase64", "putTime", "priority", "persistence", "format", "sizeBytes", "payloadBase64"} {
		if _, ok := msgs[0][k]; !ok {
			t.Errorf("message JSON lacks %q", k)
		}
	}
}

func TestConsumeBrowseLeavesMessages(t *testing.T) {
	f := newFixture(t)
	ids := f.putN(5)
	cmd := consumeCmd(10, 0)
	cmd.BrowseOnly = true
	r := runConsume(t, f, f.run(cmd))
	if r.Browsed != 5 || r.Received != 0 || !slices.Equal(msgIDs(r.Messages), encodeIDs(ids)) {
		t.Fatalf("result %+v", r)
	}
	f.wantDepth(5)
	if len(f.progress()) != 0 {
		t.Fatal("a browse checkpointed")
	}
}

func TestConsumeSelectsByCorrelID(t *testing.T) {
	f := newFixture(t)
	want := mq.ID{9, 9}
	var msgs []*mq.Message
	for i := range 6 {
		m := &mq.Message{Payload: []byte(strconv.Itoa(i)), CorrelID: mq.ID{byte(i % 3)}}
		if i%3 == 0 {
			m.CorrelID = want
		}
		msgs = append(msgs, m)
	}
	f.put(msgs...)
	cmd := consumeCmd(10, 0)
	cmd.Selector = &command.Selector{CorrelIDBase64: base64.StdEncoding.EncodeToString(want[:])}
	r := runConsume(t, f, f.run(cmd))
	if r.Received != 2 {
		t.Fatalf("received %d, want 2", r.Received)
	}
	for _, m := range r.Messages {
		if m.CorrelIDBase64 != encodeID(want) {
			t.Fatalf("got %+v", m)
		}
	}
	f.wantDepth(4)
}

func TestConsumeSelectsByMsgID(t *testing.T) {
	f := newFixture(t)
	ids := f.putN(3)
	cmd := consumeCmd(5, 0)
	cmd.Selector = &command.Selector{MsgIDBase64: encodeID(ids[1])}
	r := runConsume(t, f, f.run(cmd))
	if r.Received != 1 || r.Messages[0].MsgIDBase64 != encodeID(ids[1]) {
		t.Fatalf("result %+v", r)
	}
}

// TestConsumeWaitsForTheFirstMessageOnly: the first get waits for a late
// put; the later ones do not wait, so an almost empty queue returns early.
func TestConsumeWaitsForTheFirstMessageOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		go func() {
			synctest.Wait() // the CONSUME waits on the empty queue
			f.putN(1)
		}()
		start := time.Now()
		r := runConsume(t, f, f.run(consumeCmd(5, 10)))
		if r.Received != 1 {
			t.Fatalf("received %d, want 1", r.Received)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %s: waited after the first message", d)
		}
	})
}

func TestConsumeEmptyQueueIsNotAnError(t *testing.T) {
	f := newFixture(t)
	r := runConsume(t, f, f.run(withTx(consumeCmd(5, 0), 2)))
	if r.Received != 0 || len(r.Messages) != 0 {
		t.Fatalf("result %+v", r)
	}
	if b, _ := json.Marshal(r); !bytes.Contains(b, []byte(`"messages":[]`)) {
		t.Fatalf("JSON %s", b)
	}
}

func TestConsumeAckRollbackLeavesMessages(t *testing.T) {
	for _, tx := range []bool{false, true} {
		t.Run("transaction="+strconv.FormatBool(tx), func(t *testing.T) {
			f := newFixture(t)
			ids := f.putN(5)
			cmd := consumeCmd(5, 0)
			cmd.Ack = command.AckRollback
			if tx {
				cmd = withTx(cmd, 2)
			}
			r := runConsume(t, f, f.run(cmd))
			if r.Received != 5 || !slices.Equal(msgIDs(r.Messages), encodeIDs(ids)) {
				t.Fatalf("result %+v", r)
			}
			got := f.drain()
			if len(got) != 5 || got[0].BackoutCount != 1 {
				t.Fatalf("after rollback: %d messages, backout count %d", len(got), got[0].BackoutCount)
			}
		})
	}
}

func TestConsumeAckNoneGetsOutsideSyncpoint(t *testing.T) {
	f := newFixture(t)
	f.putN(5)
	cmd := withTx(consumeCmd(5, 0), 2)
	cmd.Ack = command.AckNone
	f.failCheckpoint = failOnCall(2, idempotency.ErrLeaseLost)
	_, err := consume(f.ctx, f.run(cmd), defaultCapture())
	if !errors.Is(err, idempotency.ErrLeaseLost) {
		t.Fatalf("got %v", err)
	}
	f.wantDepth(1) // four gets were final when they returned
}

func TestConsumeCapsCapture(t *testing.T) {
	f := newFixture(t)
	for range 4 {
		f.put(&mq.Message{Payload: bytes.Repeat([]byte("x"), 20)})
	}
	res, err := consume(f.ctx, f.run(consumeCmd(4, 0)), CaptureLimits{MaxMessageBytes: 10, MaxBytes: 25})
	if err != nil {
		t.Fatal(err)
	}
	r := res.(ConsumeResult)
	if r.Received != 4 || !r.Truncated {
		t.Fatalf("result %+v", r)
	}
	for i, want := range []int{10, 10, 5, 0} {
		m := r.Messages[i]
		payload, _ := base64.StdEncoding.DecodeString(m.PayloadBase64)
		if len(payload) != want || m.SizeBytes != 20 {
			t.Fatalf("message %d: kept %d of %d bytes, want %d", i, len(payload), m.SizeBytes, want)
		}
	}
}

func TestConsumeDefaultCaptureLimits(t *testing.T) {
	f := newFixture(t)
	f.put(&mq.Message{Payload: make([]byte, 5000)})
	r := runConsume(t, f, f.run(consumeCmd(1, 0)))
	if payload, _ := base64.StdEncoding.DecodeString(r.Messages[0].PayloadBase64); len(payload) != 4096 || !r.Truncated {
		t.Fatalf("kept %d bytes, truncated %v", len(payload), r.Truncated)
	}
}

func TestConsumeReceivesInPriorityOrder(t *testing.T) {
	f := newFixture(t)
	for _, p := range []int32{1, 5, 9, 5} {
		f.put(&mq.Message{Priority: p})
	}
	r := runConsume(t, f, f.run(consumeCmd(4, 0)))
	var got []int32
	for _, m := range r.Messages {
		got = append(got, m.Priority)
	}
	if want := []int32{9, 5, 5, 1}; !slices.Equal(got, want) {
		t.Fatalf("priorities %v, want %v", got, want)
	}
}

// consumeInterrupted puts 250 messages and consumes them in units of 100
// with a checkpoint that loses the lease on its second call, i.e. before
// the second commit. It returns the put MsgIds.
func consumeInterrupted(t *testing.T, f *fixture) []mq.ID {
	t.Helper()
	ids := f.putN(250)
	f.failCheckpoint = failOnCall(2, idempotency.ErrLeaseLost)
	_, err := consume(f.ctx, f.run(withTx(consumeCmd(250, 0), 100)), defaultCapture())
	if !errors.Is(err, idempotency.ErrLeaseLost) {
		t.Fatalf("got %v, want lease lost", err)
	}
	f.failCheckpoint = nil
	return ids
}

// TestConsumeCheckpointsBeforeCommit: when the checkpoint before the second
// commit fails, the second unit is backed out, so the checkpoint came first.
func TestConsumeCheckpointsBeforeCommit(t *testing.T) {
	f := newFixture(t)
	ids := consumeInterrupted(t, f)
	f.wantDepth(150)
	calls := f.checkpointCalls()
	if len(calls) != 2 {
		t.Fatalf("%d checkpoint calls", len(calls))
	}
	for i, want := range []struct{ committed, messages int }{{0, 100}, {100, 200}} {
		p := decodeConsumeProgress(t, calls[i])
		if p.Committed != want.committed || !slices.Equal(msgIDs(p.Messages), encodeIDs(ids[:want.messages])) {
			t.Fatalf("checkpoint %d: committed %d, %d messages", i+1, p.Committed, len(p.Messages))
		}
	}
}

// TestConsumeResumes covers both crash points around the first commit's
// neighbour: after checkpoint 1 and commit 1 (the in-doubt unit committed)
// and after checkpoint 2 but before commit 2 (it was backed out). Either
// way the resumed result lists every message once.
func TestConsumeResumes(t *testing.T) {
	for _, from := range []int{1, 2} {
		t.Run("from checkpoint "+strconv.Itoa(from), func(t *testing.T) {
			f := newFixture(t)
			ids := consumeInterrupted(t, f)
			run := f.run(withTx(consumeCmd(250, 0), 100))
			run.Progress = f.checkpointCalls()[from-1]
			r := runConsume(t, f, run)
			if r.Received != 250 || !slices.Equal(msgIDs(r.Messages), encodeIDs(ids)) {
				t.Fatalf("received %d: %v", r.Received, msgIDs(r.Messages))
			}
			f.wantDepth(0)
		})
	}
}

func TestConsumeStopsWhenLeaseIsLostDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		ctx, cancel := context.WithCancelCause(f.ctx)
		time.AfterFunc(50*time.Millisecond, func() { cancel(idempotency.ErrLeaseLost) })
		start := time.Now()
		_, err := consume(ctx, f.run(withTx(consumeCmd(5, 30), 2)), defaultCapture())
		if !errors.Is(err, idempotency.ErrLeaseLost) {
			t.Fatalf("got %v, want lease lost", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("returned after %s", d)
		}
	})
}

func TestConsumeGetFailureBacksOut(t *testing.T) {
	f := newFixture(t)
	f.putN(5)
	f.backend.Faults().FailNth(mq.VerbGet, 3, mq.ReasonGetInhibited)
	_, err := consume(f.ctx, f.run(withTx(consumeCmd(5, 0), 5)), defaultCapture())
	mqtest.WantReason(t, err, mq.ReasonGetInhibited)
	f.wantDepth(5)
}

func TestConsumeUnknownQueue(t *testing.T) {
	f := newFixture(t)
	run := f.run(consumeCmd(1, 0))
	run.Queue = "NO.SUCH.QUEUE"
	_, err := consume(f.ctx, run, defaultCapture())
	mqtest.WantReason(t, err, mq.ReasonUnknownObjectName)
}

func TestCaptureRestoreChargesTheBudget(t *testing.T) {
	c := newCapture(CaptureLimits{MaxBytes: 10, MaxMessageBytes: 10})
	for _, n := range []int{0, 1, 2, 3, 7} {
		c.restore([]CapturedMessage{{PayloadBase64: base64.StdEncoding.EncodeToString(make([]byte, n))}}, false, 0, "")
	}
	if c.used != 13 {
		t.Fatalf("used %d, want 13", c.used)
	}
	c.add(&mq.Message{Payload: []byte("abc")})
	if got := c.messages[len(c.messages)-1].PayloadBase64; got != "" || !c.truncated {
		t.Fatalf("captured %q past the budget", got)
	}
}

// defaultCapture is the daemon's capture limits when none are configured.
func defaultCapture() CaptureLimits {
	var c Config
	c.setDefaults()
	return c.Capture
}

// TestConsumeWithoutPayloads: includePayloads false lists every message
// with its ids and size but no payload, says so, and is no truncation;
// true and absent keep the payloads.
func TestConsumeWithoutPayloads(t *testing.T) {
	for _, include := range []*bool{new(false), new(true), nil} {
		f := newFixture(t)
		ids := f.put(&mq.Message{Payload: []byte("first payload")}, &mq.Message{Payload: []byte("second")})
		cmd := withTx(consumeCmd(10, 0), 1)
		cmd.IncludePayloads = include
		r := runConsume(t, f, f.run(cmd))
		omitted := include != nil && !*include
		if r.Received != 2 || r.Truncated || r.PayloadsOmitted != omitted || !slices.Equal(msgIDs(r.Messages), encodeIDs(ids)) {
			t.Fatalf("includePayloads %v: result %+v", include, r)
		}
		for i, want := range []string{"first payload", "second"} {
			m := r.Messages[i]
			payload, _ := base64.StdEncoding.DecodeString(m.PayloadBase64)
			if m.SizeBytes != len(want) || (omitted && m.PayloadBase64 != "") || (!omitted && string(payload) != want) {
				t.Errorf("includePayloads %v: message %d %+v", include, i, m)
			}
		}
	}
}
