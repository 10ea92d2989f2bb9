package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
)

const deadLetterQueue = "DEV.DEAD.LETTER.QUEUE"

// deadLetter is one message to dead-letter: why, and where it was going.
type deadLetter struct {
	reason mq.Reason
	queue  string
	body   string
	age    time.Duration
}

// putDead puts messages on the dead-letter queue as a queue manager does:
// an MQDLH (little-endian, as on x86) before the original data, Format
// MQDEAD, and returns their MsgIds. The original data's CCSID and Encoding
// (ISO 8859-1 from a big-endian sender) are not the defaults, so that a
// redrive that fails to restore them shows.
// The CCSID and Encoding of the data after the dead-letter headers putDead
// writes.
const (
	originalCCSID    = 819
	originalEncoding = mq.EncodingNativeBig
)

func (f *fixture) putDead(msgs ...deadLetter) []mq.ID {
	f.t.Helper()
	q, err := f.conn().OpenQueue(f.ctx, deadLetterQueue, mq.OpenOutput)
	if err != nil {
		f.t.Fatal(err)
	}
	defer q.Close()
	ids := make([]mq.ID, len(msgs))
	for i, d := range msgs {
		h := mq.DeadLetterHeader{Reason: d.reason, DestQueue: d.queue, DestQMgr: "QM1", Encoding: originalEncoding,
			CCSID: originalCCSID, Format: mq.FormatString, PutApplType: 6, PutApplName: "amqrmppa", PutTime: time.Now().Add(-d.age)}
		raw, err := h.Encode()
		if err != nil {
			f.t.Fatal(err)
		}
		res, err := q.Put(f.ctx, &mq.Message{Format: mq.FormatDeadLetterHeader, Persistent: true,
			Payload: append(raw, d.body...), Properties: mq.Properties{"app.seq": int32(i)}}, mq.PutOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		ids[i] = res.MsgID
	}
	return ids
}

func (f *fixture) depthOf(queue string) int {
	f.t.Helper()
	info, err := mq.InquireQueue(f.ctx, f.conn(), queue)
	if err != nil {
		f.t.Fatal(err)
	}
	return info.CurrentDepth
}

// redriveRun is a Run of a REDRIVE of the dead-letter queue.
func (f *fixture) redriveRun(cmd command.Command) Run {
	cmd.OperationType = command.Redrive
	run := f.run(cmd)
	run.Queue = deadLetterQueue
	return run
}

func (f *fixture) redrive(run Run) RedriveResult {
	f.t.Helper()
	res, err := redrive(f.ctx, run)
	if err != nil {
		f.t.Fatal(err)
	}
	return res.(RedriveResult)
}

func fullAndUnknown(full, unknown int) []deadLetter {
	var msgs []deadLetter
	for i := range full {
		msgs = append(msgs, deadLetter{reason: mq.ReasonQFull, queue: "DEV.QUEUE.1", body: fmt.Sprintf("full %d", i)})
	}
	for i := range unknown {
		msgs = append(msgs, deadLetter{reason: 2085, queue: "DEV.QUEUE.2", body: fmt.Sprintf("unknown %d", i)})
	}
	return msgs
}

func TestRedriveMovesEachMessageToItsOriginalQueue(t *testing.T) {
	f := newFixture(t)
	ids := f.putDead(fullAndUnknown(5, 3)...)
	res := f.redrive(f.redriveRun(command.Command{TxSize: 2}))

	if res.Moved != 8 || res.Transactions != 4 || res.Browsed != 8 || res.Skipped != 0 {
		t.Errorf("result %+v, want 8 moved in 4 transactions", res)
	}
	wantCounts(t, "byReason", res.ByReason, map[string]int{"MQRC_Q_FULL": 5, "MQRC_UNKNOWN_OBJECT_NAME": 3})
	wantCounts(t, "byDestination", res.ByDestination, map[string]int{"DEV.QUEUE.1": 5, "DEV.QUEUE.2": 3})
	if d := f.depthOf(deadLetterQueue); d != 0 {
		t.Errorf("dead-letter queue depth %d after the redrive", d)
	}
	got := f.drainQueue("DEV.QUEUE.1")
	if len(got) != 5 {
		t.Fatalf("DEV.QUEUE.1 holds %d messages, want 5", len(got))
	}
	for i, m := range got {
		if string(m.Payload) != fmt.Sprintf("full %d", i) || m.Format != mq.FormatString ||
			m.CCSID != originalCCSID || m.Encoding != originalEncoding {
			t.Errorf("message %d: payload %q format %q CCSID %d Encoding %d: want the header stripped and MQSTR, %d, %d restored",
				i, m.Payload, m.Format, m.CCSID, m.Encoding, originalCCSID, originalEncoding)
		}
		if m.MsgID != ids[i] || !m.Persistent || m.Properties["app.seq"] != int32(i) {
			t.Errorf("message %d lost its MQMD or properties: %+v", i, m)
		}
	}
	if n := len(f.drainQueue("DEV.QUEUE.2")); n != 3 {
		t.Errorf("DEV.QUEUE.2 holds %d messages, want 3", n)
	}
}

func wantCounts(t *testing.T, name string, got, want map[string]int) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestRedriveDryRunListsAndMovesNothing(t *testing.T) {
	f := newFixture(t)
	f.putDead(fullAndUnknown(2, 1)...)
	res := f.redrive(f.redriveRun(command.Command{DryRun: true}))
	if !res.DryRun || res.Moved != 3 || len(res.Messages) != 3 || res.Complete == nil || !*res.Complete {
		t.Fatalf("dry run %+v, want 3 listed", res)
	}
	m := res.Messages[2]
	if m.ReasonName != "MQRC_UNKNOWN_OBJECT_NAME" || m.Reason != 2085 || m.OriginalQueue != "DEV.QUEUE.2" ||
		m.OriginalQueueManager != "QM1" || m.PutApplName != "amqrmppa" || m.Format != "MQSTR" || m.CCSID != originalCCSID || m.Encoding != originalEncoding ||
		m.Destination != "DEV.QUEUE.2" || m.PayloadBytes != len("unknown 0") || time.Since(m.DeadLetteredAt) > time.Minute {
		t.Errorf("listed %+v", m)
	}
	if d := f.depthOf(deadLetterQueue); d != 3 {
		t.Errorf("a dry run left %d of 3 messages on the dead-letter queue", d)
	}
	if len(f.progress()) != 0 {
		t.Errorf("a dry run checkpointed: %v", f.progress())
	}
}

func TestRedriveFilters(t *testing.T) {
	f := newFixture(t)
	f.putDead(append(fullAndUnknown(3, 3), deadLetter{reason: mq.ReasonQFull, queue: "DEV.QUEUE.3", body: "old", age: time.Hour})...)
	for _, tc := range []struct {
		name   string
		filter command.RedriveFilter
		want   int
	}{
		{"reason by name", command.RedriveFilter{Reasons: []any{"MQRC_Q_FULL"}}, 4},
		{"reason by number", command.RedriveFilter{Reasons: []any{float64(2085)}}, 3},
		{"original queue pattern", command.RedriveFilter{OriginalQueues: []string{"DEV.QUEUE.9", "*.3"}}, 1},
		{"age", command.RedriveFilter{MinAgeSeconds: 1800}, 1},
		{"count", command.RedriveFilter{MaxMessages: 5}, 5},
		{"all together", command.RedriveFilter{Reasons: []any{"MQRC_Q_FULL"}, OriginalQueues: []string{"DEV.QUEUE.1"}, MaxMessages: 2}, 2},
	} {
		res := f.redrive(f.redriveRun(command.Command{DryRun: true, Filter: &tc.filter}))
		if res.Moved != tc.want {
			t.Errorf("%s: %d would move, want %d", tc.name, res.Moved, tc.want)
		}
	}
	res := f.redrive(f.redriveRun(command.Command{Filter: &command.RedriveFilter{MinAgeSeconds: 1800}}))
	if res.Moved != 1 || f.depthOf(deadLetterQueue) != 6 || f.depthOf("DEV.QUEUE.3") != 1 {
		t.Errorf("moved %d by age; dead-letter queue keeps %d of 7", res.Moved, f.depthOf(deadLetterQueue))
	}
	_, err := redrive(f.ctx, f.redriveRun(command.Command{Filter: &command.RedriveFilter{Reasons: []any{"MQRC_NO_SUCH_THING"}}}))
	if err == nil || !strings.Contains(err.Error(), "filter.reasons[0]") {
		t.Errorf("unknown reason name: %v", err)
	}
}

func TestRedriveOfAnEmptyQueueCompletesWithZeroCounts(t *testing.T) {
	f := newFixture(t)
	res := f.redrive(f.redriveRun(command.Command{}))
	if res.Moved != 0 || res.Transactions != 0 || res.ByReason == nil || res.ByDestination == nil {
		t.Errorf("result %+v", res)
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), `"byReason":{}`) {
		t.Errorf("empty counts are not {}: %s", b)
	}
}

func TestRedriveToANamedDestination(t *testing.T) {
	f := newFixture(t)
	f.putDead(fullAndUnknown(2, 2)...)
	res := f.redrive(f.redriveRun(command.Command{Destination: "DEV.QUEUE.3"}))
	if res.Moved != 4 || f.depthOf("DEV.QUEUE.3") != 4 {
		t.Errorf("moved %d, DEV.QUEUE.3 holds %d; want 4", res.Moved, f.depthOf("DEV.QUEUE.3"))
	}
	wantCounts(t, "byDestination", res.ByDestination, map[string]int{"DEV.QUEUE.3": 4})
}

func TestRedriveRefusesSystemAndUnlistedDestinations(t *testing.T) {
	f := newFixture(t)
	f.putDead(deadLetter{reason: mq.ReasonQFull, queue: "SYSTEM.ADMIN.COMMAND.QUEUE", body: "x"},
		deadLetter{reason: mq.ReasonQFull, queue: "DEV.QUEUE.2", body: "y"},
		deadLetter{reason: mq.ReasonQFull, queue: "NO.SUCH.QUEUE", body: "z"},
		deadLetter{reason: mq.ReasonQFull, queue: "DEV.QUEUE.1", body: "w"})
	allowOnly1 := func(queue string) error {
		if queue == "DEV.QUEUE.1" || queue == "NO.SUCH.QUEUE" {
			return nil
		}
		return errors.New("queue " + queue + " matches no pattern of targets.inline.queues")
	}
	for _, dest := range []string{"SYSTEM.DEFAULT.LOCAL.QUEUE", "system.x", "DEV.QUEUE.2"} {
		run := f.redriveRun(command.Command{Destination: dest})
		run.AllowQueue = allowOnly1
		if _, err := redrive(f.ctx, run); err == nil || !strings.Contains(err.Error(), "destination") {
			t.Errorf("destination %s: err = %v, want a refusal", dest, err)
		}
	}
	run := f.redriveRun(command.Command{})
	run.AllowQueue = allowOnly1
	res := f.redrive(run)
	if res.Moved != 1 || res.Skipped != 3 {
		t.Errorf("result %+v, want 1 moved and 3 skipped", res)
	}
	wantCounts(t, "skippedBy", res.SkippedBy, map[string]int{skipSystemQueue: 1, skipNotAllowed: 1, "MQRC_UNKNOWN_OBJECT_NAME": 1})
	if d := f.depthOf(deadLetterQueue); d != 3 {
		t.Errorf("dead-letter queue keeps %d, want the 3 skipped", d)
	}
}

// A crash after a unit's doubt checkpoint and commit, before the next
// unit's: the resume counts the committed unit from the queue and moves
// the rest once.
func TestRedriveResumesWithNoMessageMovedTwice(t *testing.T) {
	f := newFixture(t)
	ids := f.putDead(fullAndUnknown(7, 0)...)
	f.failCheckpoint = failOnCall(3, errors.New("lease lost"))
	if _, err := redrive(f.ctx, f.redriveRun(command.Command{TxSize: 2})); err == nil {
		t.Fatal("the redrive survived its failed checkpoint")
	}
	if d := f.depthOf("DEV.QUEUE.1"); d != 4 {
		t.Fatalf("after the failure DEV.QUEUE.1 holds %d, want the 2 committed units", d)
	}
	if c, ok := ReadCheckpoint(command.Redrive, f.lastProgress()); !ok || c.Committed != 2 || !c.Resumable {
		t.Errorf("checkpoint reads %+v, want 2 committed and a unit in doubt", c)
	}
	f.failCheckpoint = nil
	run := f.redriveRun(command.Command{TxSize: 2})
	run.Progress = f.lastProgress()
	res := f.redrive(run)
	if res.Moved != 7 || res.ResumedFrom == nil || *res.ResumedFrom != 4 {
		t.Errorf("resume %+v, want 7 moved resumed from 4", res)
	}
	got := f.drainQueue("DEV.QUEUE.1")
	if len(got) != 7 {
		t.Fatalf("DEV.QUEUE.1 holds %d, want 7", len(got))
	}
	seen := map[mq.ID]bool{}
	for _, m := range got {
		if seen[m.MsgID] {
			t.Errorf("message %s moved twice", m.MsgID)
		}
		seen[m.MsgID] = true
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("message %s lost", id)
		}
	}
}

// A unit in doubt whose commit never happened (its messages are still on
// the dead-letter queue) is not counted, and its messages move once.
func TestRedriveResumeOfABackedOutUnit(t *testing.T) {
	f := newFixture(t)
	ids := f.putDead(fullAndUnknown(3, 0)...)
	doubt, _ := json.Marshal(redriveProgress{Moved: 0, Doubt: []redriveMove{{MsgID: encodeID(ids[0]), Reason: "MQRC_Q_FULL", Destination: "DEV.QUEUE.1"}}})
	run := f.redriveRun(command.Command{})
	run.Progress = string(doubt)
	res := f.redrive(run)
	if res.Moved != 3 || f.depthOf("DEV.QUEUE.1") != 3 {
		t.Errorf("moved %d, DEV.QUEUE.1 holds %d; want 3", res.Moved, f.depthOf("DEV.QUEUE.1"))
	}
}
