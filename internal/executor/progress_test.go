package executor_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/mq"
	kind "github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/result"
)

// produceInTx is a PRODUCE of count messages committed every txSize.
func produceInTx(count, txSize int) command.Input {
	return busMessage(fmt.Sprintf(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":%q},`+
		`"batch":{"count":%d,"messageSizeBytes":16,"transaction":{"enabled":true,"txSize":%d}}}`, queue, count, txSize))
}

// failedBody runs msg to a permanent failure and returns its reply body
// decoded, checking the event says the same.
func (f *fixture) failedBody(msg command.Input) result.Data {
	f.t.Helper()
	out := f.exec.Execute(context.Background(), msg)
	if out.Kind != kind.Failed || out.Unpublished || out.Event == nil {
		f.t.Fatalf("%s: %+v, want a published permanent failure", msg.Body, out)
	}
	var body result.Data
	if err := json.Unmarshal(out.Body, &body); err != nil {
		f.t.Fatalf("reply body %s: %v", out.Body, err)
	}
	event, _ := json.Marshal(out.Event.Data.Progress)
	reply, _ := json.Marshal(body.Progress)
	if string(event) != string(reply) {
		f.t.Fatalf("event progress %s, reply progress %s", event, reply)
	}
	return body
}

// TestFailedProduceSaysHowFarItGotAndResumes: a PRODUCE stopped by
// MQRC_Q_FULL part way reports what it committed and that the same command
// resumes after it; the record keeps that reply; the retry resumes there.
func TestFailedProduceSaysHowFarItGotAndResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		f.qm.Faults().FailNth(mq.VerbPut, 250, mq.ReasonQFull)
		msg := produceInTx(500, 100)
		data := f.failedBody(msg)
		p := data.Progress
		if data.Error == nil || data.Error.Reason != int32(mq.ReasonQFull) || p == nil {
			t.Fatalf("failure %+v with progress %+v, want MQRC_Q_FULL and progress", data.Error, p)
		}
		if p.Total != 500 || p.Done != 249 || p.Committed != 200 || !p.Resumable || p.FirstMsgID == "" || p.LastMsgID == "" || p.FirstMsgID == p.LastMsgID {
			t.Fatalf("progress %+v, want total 500, done 249, committed 200, first and last msgId, resumable", p)
		}
		rec, _ := f.stored(key)
		var recorded result.Data
		if err := json.Unmarshal([]byte(rec.ResponsePayload), &recorded); err != nil || rec.HTTPStatus != 502 ||
			recorded.Progress == nil || *recorded.Progress != *p {
			t.Fatalf("record keeps %q (HTTP %d), want the failure's reply", rec.ResponsePayload, rec.HTTPStatus)
		}
		if cp, _ := handlers.ReadCheckpoint(command.Produce, rec.Progress); cp.Committed != 200 || cp.LastMsgID != p.LastMsgID {
			t.Fatalf("record checkpoint %+v, want the reported 200 committed", cp)
		}

		out := f.exec.Execute(context.Background(), msg)
		var res handlers.ProduceResult
		if out.Kind != kind.Completed || json.Unmarshal(out.Event.Data.Result, &res) != nil {
			t.Fatalf("retry: %+v", out)
		}
		if res.ResumedFrom == nil || *res.ResumedFrom != 200 || res.Enqueued != 500 || res.FirstMsgID != p.FirstMsgID || out.Event.Data.Attempt != 2 {
			t.Fatalf("retry result %+v (attempt %d), want resumed from 200 to 500 with the first msgId kept, attempt 2", res, out.Event.Data.Attempt)
		}
		if f.depth() != 500 {
			t.Fatalf("queue holds %d, want 500", f.depth())
		}
		if n := f.exec.InFlight().Len(); n != 0 {
			t.Fatalf("%d commands still registered in flight", n)
		}
	})
}

// TestFailureWithNothingCommittedIsNotResumable: a retry would start over.
func TestFailureWithNothingCommittedIsNotResumable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		f.qm.Faults().FailNth(mq.VerbPut, 50, mq.ReasonQFull)
		p := f.failedBody(produceInTx(500, 100)).Progress
		if p == nil || p.Total != 500 || p.Done != 49 || p.Committed != 0 || p.Resumable || p.FirstMsgID != "" {
			t.Fatalf("progress %+v, want total 500, done 49, nothing committed, not resumable", p)
		}
	})
}

// TestFailedDepthHasNoProgress: only PRODUCE and CONSUME count messages.
func TestFailedDepthHasNoProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		data := f.failedBody(busMessage(`{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"NO.SUCH.QUEUE"}}`))
		if data.Progress != nil {
			t.Fatalf("DEPTH failure carries progress %+v", data.Progress)
		}
	})
}

// TestInFlightRegistryFollowsTheHandler: a command is registered, with its
// attempt and tenant-free key, while its handler runs and gone after, even
// when the handler panics.
func TestInFlightRegistryFollowsTheHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		var seen bool
		f.exec.Handlers[command.Produce] = func(_ context.Context, run handlers.Run) (any, error) {
			cmd, ok := f.exec.InFlight().Get(string(command.Produce), "", key)
			seen = ok && cmd.Attempt == 1 && run.Live == &cmd.Counters
			run.Live.Start(10, 0)
			run.Live.SetDone(3)
			panic("handler bug")
		}
		out := f.exec.Execute(context.Background(), produceInTx(10, 5))
		if !seen {
			t.Fatal("the running handler was not registered with its counters")
		}
		if out.Event == nil || out.Event.Data.Status != result.StatusFailed || out.Event.Data.Progress == nil || out.Event.Data.Progress.Done != 3 {
			t.Fatalf("panicked command: %+v, want FAILED with done 3", out)
		}
		if n := f.exec.InFlight().Len(); n != 0 {
			t.Fatalf("%d commands still registered after a panic", n)
		}
	})
}

// TestFailedSyncpointConsumeCountsItsLastCommit: a syncpoint CONSUME
// checkpoints each chunk just before its MQCMIT, so after two committed
// chunks its checkpoint says 100; the failure reports the 200 that are
// committed, with the 200th message's msgId last.
func TestFailedSyncpointConsumeCountsItsLastCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		conn, err := f.qm.Connect(context.Background(), mq.Target{QueueManager: "QM1"})
		if err != nil {
			t.Fatal(err)
		}
		q, err := conn.OpenQueue(context.Background(), queue, mq.OpenOutput)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 300 {
			res, err := q.Put(context.Background(), &mq.Message{Payload: []byte(fmt.Sprint("m", i))}, mq.PutOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, base64.StdEncoding.EncodeToString(res.MsgID[:]))
		}
		q.Close()
		conn.Close()
		f.qm.Faults().FailNth(mq.VerbGet, 250, mq.ReasonNotAuthorized)
		p := f.failedBody(busMessage(fmt.Sprintf(`{"operationType":"CONSUME","target":{"queueManager":"QM1","queue":%q},`+
			`"maxMessages":300,"waitSeconds":0,"ack":"commit","transaction":{"enabled":true,"txSize":100}}`, queue))).Progress
		if p == nil || p.Committed != 200 || p.Done != 249 || p.FirstMsgID != ids[0] || p.LastMsgID != ids[199] || !p.Resumable {
			t.Fatalf("progress %+v, want 200 committed of 249 got, msgIds of the 1st and 200th message, resumable", p)
		}
		if f.depth() != 100 {
			t.Fatalf("queue holds %d, want the 100 not committed", f.depth())
		}
	})
}
