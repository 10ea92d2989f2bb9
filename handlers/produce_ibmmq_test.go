//go:build ibmmq

package handlers

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// newIBMMQFixture is a fixture whose commands reach a simulator server
// through IBM's MQI (the ibmmq backend), and whose checks read the
// server's queue manager directly.
func newIBMMQFixture(t *testing.T) (*fixture, mq.Target) {
	t.Helper()
	srv := mqsimtest.Start(t)
	return newFixtureWith(t, ibmmq.New(), srv.Backend()), srv.Target()
}

// TestIBMMQProducePutsInBatches: on IBM MQ an unpaced PRODUCE puts each
// unit of work's messages with one call into the client library, and they
// arrive whole and in order, each with its sequence number and the
// command's properties, the sampled puts timed.
func TestIBMMQProducePutsInBatches(t *testing.T) {
	for _, async := range []bool{false, true} {
		t.Run("async="+strconv.FormatBool(async), func(t *testing.T) {
			f, target := newIBMMQFixture(t)
			conn, err := f.pool.Acquire(f.ctx, target)
			if err != nil {
				t.Fatal(err)
			}
			q, err := conn.OpenQueue(f.ctx, testQueue, mq.OpenOutput)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := q.(mq.BatchPutter); !ok {
				t.Fatalf("a pooled IBM MQ queue is a %T, not an mq.BatchPutter: PRODUCE would put one message per call", q)
			}
			conn.Close()

			cmd := produceCmd(300, 0, true, 100)
			cmd.Payload = &command.Payload{Mode: command.PayloadTemplate, Template: "message {{seq}}"}
			cmd.Headers = map[string]string{"origin": "batch"}
			run := f.run(cmd)
			run.Target, run.AsyncPut = target, async
			r := runProduce(t, f, run)
			if r.Enqueued != 300 || r.Transactions != 3 || r.LatencyMs.Max <= 0 || r.FirstMsgID == "" || r.LastMsgID == r.FirstMsgID {
				t.Fatalf("result %+v, want 300 enqueued in 3 transactions, timed puts and distinct first and last MsgIds", r)
			}
			got := f.drain()
			if len(got) != 300 {
				t.Fatalf("queue held %d messages, want 300", len(got))
			}
			for i, m := range got {
				if string(m.Payload) != "message "+strconv.Itoa(i+1) {
					t.Fatalf("message %d is %q: repeated, skipped or cut", i+1, m.Payload)
				}
				if m.Properties["origin"] != "batch" {
					t.Fatalf("message %d has properties %v, want the command's headers", i+1, m.Properties)
				}
			}
			if encodeID(got[0].MsgID) != r.FirstMsgID || encodeID(got[299].MsgID) != r.LastMsgID {
				t.Errorf("first and last MsgIds %s, %s; the queue's are %s, %s", r.FirstMsgID, r.LastMsgID,
					encodeID(got[0].MsgID), encodeID(got[299].MsgID))
			}
		})
	}
}

// TestIBMMQProduceFailureMidBatch: a put failing in the middle of a unit
// of work's batch fails the command; the units before it stay committed
// and counted, its own are backed out — whether the failure is answered at
// once (synchronous puts) or by the MQSTAT before the commit (asynchronous).
func TestIBMMQProduceFailureMidBatch(t *testing.T) {
	for _, c := range []struct {
		async   bool
		message string
	}{
		{false, "put message 150 of 300"},
		{true, "commit after 200 messages"},
	} {
		t.Run("async="+strconv.FormatBool(c.async), func(t *testing.T) {
			f, target := newIBMMQFixture(t)
			f.backend.Faults().FailNth(mq.VerbPut, 150, mq.ReasonQFull)
			run := f.run(produceCmd(300, 32, true, 100))
			run.Target, run.AsyncPut = target, c.async
			_, err := produce(f.ctx, run)
			mqtest.WantReason(t, err, mq.ReasonQFull)
			if !strings.Contains(err.Error(), c.message) {
				t.Errorf("error %q, want it to say %q", err, c.message)
			}
			f.wantDepth(100)
			if p := decodeProduceProgress(t, f.lastProgress()); p.Committed != 100 || p.Transactions != 1 {
				t.Fatalf("progress %+v, want the first transaction's 100 messages", p)
			}
		})
	}
}
