package handlers

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

func wantCounters(t *testing.T, c *inflight.Counters, total, done, committed int64) {
	t.Helper()
	if gt, gd, gc := c.Values(); gt != total || gd != done || gc != committed {
		t.Fatalf("counters total %d done %d committed %d, want %d %d %d", gt, gd, gc, total, done, committed)
	}
}

// TestProduceReportsLiveProgress: a failure part way leaves done at the
// messages put and committed at those checkpointed; a resumed attempt
// starts both at the checkpoint and ends at the count.
func TestProduceReportsLiveProgress(t *testing.T) {
	for _, tx := range []bool{true, false} {
		t.Run(map[bool]string{true: "syncpoint", false: "no syncpoint"}[tx], func(t *testing.T) {
			f := newFixture(t)
			cmd := produceCmd(300, 16, tx, 100)
			f.backend.Faults().FailNth(mq.VerbPut, 250, mq.ReasonQFull)
			run := f.run(cmd)
			run.Live = new(inflight.Counters)
			_, err := produce(f.ctx, run)
			mqtest.WantReason(t, err, mq.ReasonQFull)
			wantCounters(t, run.Live, 300, 249, 200)

			resumed := f.run(cmd)
			resumed.Progress = f.lastProgress()
			resumed.Live = new(inflight.Counters)
			runProduce(t, f, resumed)
			wantCounters(t, resumed.Live, 300, 300, 300)
		})
	}
}

func TestConsumeReportsLiveProgress(t *testing.T) {
	t.Run("commit", func(t *testing.T) {
		f := newFixture(t)
		f.putN(150)
		run := f.run(withTx(consumeCmd(200, 0), 100))
		run.Live = new(inflight.Counters)
		runConsume(t, f, run)
		wantCounters(t, run.Live, 200, 150, 150)
	})
	t.Run("rollback commits nothing", func(t *testing.T) {
		f := newFixture(t)
		f.putN(20)
		cmd := consumeCmd(50, 0)
		cmd.Ack = command.AckRollback
		run := f.run(cmd)
		run.Live = new(inflight.Counters)
		runConsume(t, f, run)
		wantCounters(t, run.Live, 50, 20, 0)
	})
}

func TestReadCheckpoint(t *testing.T) {
	f := newFixture(t)
	f.backend.Faults().FailNth(mq.VerbPut, 150, mq.ReasonQFull)
	if _, err := produce(f.ctx, f.run(produceCmd(300, 16, true, 100))); !mq.IsReason(err, mq.ReasonQFull) {
		t.Fatalf("produce: %v", err)
	}
	got := f.drain()
	cp, ok := ReadCheckpoint(command.Produce, f.lastProgress())
	if !ok || cp.Committed != 100 || !cp.Resumable || cp.FirstMsgID != encodeID(got[0].MsgID) || cp.LastMsgID != encodeID(got[99].MsgID) {
		t.Fatalf("PRODUCE checkpoint = %+v, %v; want 100 committed, first and last of the queue's 100, resumable", cp, ok)
	}

	c := newFixture(t)
	ids := consumeInterrupted(t, c) // checkpoint 2: 100 committed, 100 in doubt
	cp, ok = ReadCheckpoint(command.Consume, c.checkpointCalls()[1])
	if !ok || cp.Committed != 100 || !cp.Resumable || cp.FirstMsgID != encodeID(ids[0]) || cp.LastMsgID != encodeID(ids[99]) {
		t.Fatalf("CONSUME checkpoint = %+v, %v; want 100 committed, ids[0] and ids[99], resumable", cp, ok)
	}

	for _, tc := range []struct {
		op       command.Operation
		progress string
		ok       bool
	}{
		{command.Produce, "", false},
		{command.Produce, "not json", false},
		{command.Produce, `{"committed":0}`, true},
		{command.Consume, `{"committed":0,"messages":[]}`, true},
		{command.Depth, `{"committed":5}`, false},
	} {
		cp, ok := ReadCheckpoint(tc.op, tc.progress)
		if ok != tc.ok || cp.Resumable || cp.Committed != 0 {
			t.Errorf("ReadCheckpoint(%s, %q) = %+v, %v; want ok %v, nothing committed, not resumable", tc.op, tc.progress, cp, ok, tc.ok)
		}
	}
}
