package responder_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/probe"
	"github.com/mqprobe/mqprobe/internal/responder"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// env is one case's queue manager: DEV.QUEUE.1-3 and DEV.DEAD.LETTER.QUEUE
// (its DEADQ), empty.
type env struct {
	backend mq.Backend
	target  mq.Target
	// model is a model queue to open dynamic reply queues from; "" when
	// the queue manager has none (the embedded one).
	model string
}

const (
	requestQueue = "DEV.QUEUE.1"
	replyQueue   = "DEV.QUEUE.2"
	refusedQueue = "DEV.QUEUE.3" // not in the profile's allowedQueues
	deadLetters  = "DEV.DEAD.LETTER.QUEUE"
	missingQueue = "DEV.NO.SUCH.QUEUE" // allowed, but not defined
	caseTimeout  = 30 * time.Second
)

func newEmbeddedEnv(*testing.T) env {
	return env{backend: embedded.NewDefault(), target: mq.Target{QueueManager: embedded.DefaultQueueManager}}
}

func TestResponderEmbedded(t *testing.T) { runCases(t, newEmbeddedEnv) }

// fixture is a case: a pool on the env's backend and a responder serving
// requestQueue through the profile "lab", which admits replyQueue,
// missingQueue and dynamic queues (AMQ.*) as reply queues.
type fixture struct {
	t    *testing.T
	env  env
	pool *mq.Pool
	ctx  context.Context
	set  *responder.Set
}

func runCases(t *testing.T, newEnv func(*testing.T) env) {
	cases := []struct {
		name string
		run  func(*fixture)
	}{
		{"RepliesWithHops", testRepliesWithHops},
		{"LeavesOtherMessagesAlone", testLeavesOtherMessagesAlone},
		{"DeadLettersRefusedRequests", testDeadLettersRefusedRequests},
		{"CloseStopsServing", testCloseStopsServing},
	}
	if newEnv(t).model != "" {
		cases = append(cases, struct {
			name string
			run  func(*fixture)
		}{"DynamicReplyQueue", testDynamicReplyQueue})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(newFixture(t, newEnv(t))) })
	}
}

func newFixture(t *testing.T, e env) *fixture {
	pool, err := mq.NewPool(e.backend, mq.PoolConfig{MaxConnsPerTarget: 16})
	if err != nil {
		t.Fatalf("new pool: %v", err)
	}
	t.Cleanup(func() { pool.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	t.Cleanup(cancel)
	resolver := targets.NewResolver(targets.Config{Profiles: map[string]targets.Profile{"lab": {
		QueueManager: e.target.QueueManager, Channel: e.target.Channel, ConnName: e.target.ConnName, User: e.target.User,
		Queue: requestQueue, AllowedQueues: []string{replyQueue, missingQueue, "AMQ.*"},
	}}})
	set, err := responder.New(ctx, []responder.Config{{Name: "echo", TargetRef: "lab", Concurrency: 2}},
		responder.Deps{Conns: pool, Targets: resolver})
	if err != nil {
		t.Fatalf("responder.New: %v", err)
	}
	set.Start()
	t.Cleanup(func() { set.Close(errors.New("test over")) })
	return &fixture{t: t, env: e, pool: pool, ctx: ctx, set: set}
}

// probe runs a requestReply TEST of count probes through the responder.
func (f *fixture) probe(reply string, count int) probe.Stats {
	f.t.Helper()
	st, err := probe.Run(f.ctx, f.pool, probe.Config{Target: f.env.target, Queue: requestQueue, ReplyQueue: reply,
		Mode: probe.ModeRequestReply, Count: count, Rate: 200, MessageSize: 128, LossTimeout: 10 * time.Second}, nil)
	if err != nil {
		f.t.Fatalf("probe run: %v (stats %+v)", err, st)
	}
	return st
}

// wantReplies asserts every request was answered once, and that the hops
// split every round trip: each probe's three hops sum to its round trip
// (splitHops makes it so), hence the means too.
func (f *fixture) wantReplies(st probe.Stats, count int64) {
	f.t.Helper()
	if st.Sent != count || st.Received != count || st.Lost != 0 || st.Duplicated != 0 {
		f.t.Fatalf("stats %+v: want %d sent and received, none lost or duplicated", st, count)
	}
	if st.Mode != probe.ModeRequestReply {
		f.t.Errorf("mode = %q, want %q", st.Mode, probe.ModeRequestReply)
	}
	h := st.Hops
	if h == nil || h.Probes != count {
		f.t.Fatalf("hops = %+v, want %d probes split", h, count)
	}
	// One host, one clock: no outbound hop needs adjusting.
	if h.ClockAdjusted != 0 {
		f.t.Errorf("clockAdjusted = %d, want 0 on one host", h.ClockAdjusted)
	}
	sum := h.OutboundMs.Mean + h.ResponderMs.Mean + h.ReturnMs.Mean
	if math.Abs(sum-h.RoundTripMs.Mean) > 1e-6 {
		f.t.Errorf("mean hops %.6f + %.6f + %.6f = %.6f ms, want the mean round trip %.6f ms",
			h.OutboundMs.Mean, h.ResponderMs.Mean, h.ReturnMs.Mean, sum, h.RoundTripMs.Mean)
	}
	for name, hop := range map[string]probe.HopMs{"roundTrip": h.RoundTripMs, "outbound": h.OutboundMs,
		"responder": h.ResponderMs, "return": h.ReturnMs} {
		if hop.P50 > hop.P95 || hop.P95 > hop.P99 || hop.Mean < 0 {
			f.t.Errorf("%s hop %+v: percentiles not ordered or mean negative", name, hop)
		}
	}
	if h.RoundTripMs.Mean <= 0 || h.ResponderMs.Mean >= h.RoundTripMs.Mean {
		f.t.Errorf("hops %+v: want a positive round trip longer than the responder's part", h)
	}
}

func testRepliesWithHops(f *fixture) {
	st := f.probe(replyQueue, 200)
	f.wantReplies(st, 200)
	f.t.Logf("hops: %+v", *st.Hops)
	if st.ReplyQueue != replyQueue {
		f.t.Errorf("replyQueue = %q, want %q", st.ReplyQueue, replyQueue)
	}
	f.wantDepth(replyQueue, 0)
	f.wantDepth(deadLetters, 0)
}

// A fixed reply queue is shared: the run takes its replies and nothing
// else.
func testLeavesOtherMessagesAlone(f *fixture) {
	f.put(replyQueue, &mq.Message{CorrelID: mq.ID{1, 2, 3}, Format: mq.FormatString, Payload: []byte("someone else's")})
	f.wantReplies(f.probe(replyQueue, 50), 50)
	f.wantDepth(replyQueue, 1)
}

func testDynamicReplyQueue(f *fixture) {
	st := f.probe(f.env.model, 100)
	f.wantReplies(st, 100)
	if !strings.HasPrefix(st.ReplyQueue, "AMQ.") {
		f.t.Errorf("replyQueue = %q, want the dynamic queue AMQ.* made from %s", st.ReplyQueue, f.env.model)
	}
}

// Requests the responder may not answer are dead-lettered with the
// reason; a reply it cannot deliver too, as the reply.
func testDeadLettersRefusedRequests(f *fixture) {
	qm := f.env.target.QueueManager
	requests := []struct {
		replyToQ, replyToQMgr string
		want                  mq.Reason
	}{
		{"SYSTEM.ADMIN.COMMAND.QUEUE", "", mq.ReasonNotAuthorized},
		{refusedQueue, qm, mq.ReasonNotAuthorized},
		{"", "", 2027}, // MQRC_MISSING_REPLY_TO_Q
		{replyQueue, "QM.ELSEWHERE", mq.ReasonUnknownObjectQMgr},
		{missingQueue, "", mq.ReasonUnknownObjectName},
	}
	for i, r := range requests {
		f.put(requestQueue, &mq.Message{MsgID: mq.ID{9, byte(i)}, Format: mq.FormatString, ReplyToQ: r.replyToQ,
			ReplyToQMgr: r.replyToQMgr, CCSID: 819, Encoding: mq.EncodingNativeBig, Payload: []byte("request")})
	}
	// Two workers: the dead letters come in either order. Each is known by
	// its request's MsgId: its own, or its CorrelId when it is the reply.
	byRequest := map[mq.ID]mq.Message{}
	for _, m := range f.drain(deadLetters, len(requests)) {
		id := m.MsgID
		if !m.CorrelID.IsZero() {
			id = m.CorrelID
		}
		byRequest[id] = m
	}
	for i, r := range requests {
		m, ok := byRequest[mq.ID{9, byte(i)}]
		if !ok {
			f.t.Errorf("request %d (ReplyToQ %q): not dead-lettered; dead letters %v", i, r.replyToQ, byRequest)
			continue
		}
		h, body, err := mq.DecodeDeadLetterHeader(m.Payload)
		if err != nil {
			f.t.Fatalf("dead letter %d: %v", i, err)
		}
		wantQMgr := r.replyToQMgr
		if wantQMgr == "" {
			wantQMgr = qm
		}
		// The header keeps the request's CCSID and Encoding; the message's
		// are the header's.
		if h.CCSID != 819 || h.Encoding != mq.EncodingNativeBig || m.CCSID != 1208 || m.Encoding != mq.EncodingNativeLittle {
			f.t.Errorf("dead letter %d: header CCSID %d Encoding %d, message CCSID %d Encoding %d; want 819, 273, 1208, 546",
				i, h.CCSID, h.Encoding, m.CCSID, m.Encoding)
		}
		if h.Reason != r.want || h.DestQueue != r.replyToQ || h.DestQMgr != wantQMgr || h.Format != mq.FormatString ||
			h.PutApplName != "mqprobe responder" || string(body) != "request" || m.Format != mq.FormatDeadLetterHeader {
			f.t.Errorf("dead letter %d: header %+v body %q format %q; want reason %s for %s on %s, the request's body",
				i, h, body, m.Format, r.want, r.replyToQ, wantQMgr)
		}
		// Refused requests go as they came; an undeliverable reply as the reply.
		wantMsgID, wantCorrelID := mq.ID{9, byte(i)}, mq.ID{}
		if r.want == mq.ReasonUnknownObjectName {
			wantMsgID, wantCorrelID = m.MsgID, mq.ID{9, byte(i)}
		}
		if m.MsgID != wantMsgID || m.CorrelID != wantCorrelID {
			f.t.Errorf("dead letter %d: MsgId %s CorrelId %s, want %s and %s", i, m.MsgID, m.CorrelID, wantMsgID, wantCorrelID)
		}
	}
	f.wantDepth(requestQueue, 0)
	f.wantDepth(refusedQueue, 0)
}

// After Close the responder takes no more requests.
func testCloseStopsServing(f *fixture) {
	f.set.Close(errors.New("test closes it"))
	f.put(requestQueue, &mq.Message{Format: mq.FormatString, ReplyToQ: replyQueue, Payload: []byte("late")})
	f.wantDepth(requestQueue, 1)
	f.wantDepth(replyQueue, 0)
}

func (f *fixture) put(queue string, m *mq.Message) {
	f.t.Helper()
	c := f.conn()
	defer c.Close()
	q, err := c.OpenQueue(f.ctx, queue, mq.OpenOutput)
	if err != nil {
		f.t.Fatalf("open %s: %v", queue, err)
	}
	if _, err := q.Put(f.ctx, m, mq.PutOptions{}); err != nil {
		f.t.Fatalf("put on %s: %v", queue, err)
	}
}

// drain gets n messages from queue, waiting for each as long as the case
// may run.
func (f *fixture) drain(queue string, n int) []mq.Message {
	f.t.Helper()
	c := f.conn()
	defer c.Close()
	q, err := c.OpenQueue(f.ctx, queue, mq.OpenInputShared)
	if err != nil {
		f.t.Fatalf("open %s: %v", queue, err)
	}
	var got []mq.Message
	for len(got) < n {
		var m mq.Message
		err := q.Get(f.ctx, &m, mq.GetOptions{Wait: 100 * time.Millisecond})
		switch {
		case err == nil:
			got = append(got, m)
		case mq.IsReason(err, mq.ReasonNoMsgAvailable) && f.ctx.Err() == nil:
		default:
			f.t.Fatalf("get from %s after %d of %d messages: %v", queue, len(got), n, err)
		}
	}
	return got
}

func (f *fixture) wantDepth(queue string, want int) {
	f.t.Helper()
	c := f.conn()
	defer c.Close()
	info, err := mq.InquireQueue(f.ctx, c, queue)
	if err != nil {
		f.t.Fatalf("inquire %s: %v", queue, err)
	}
	if info.CurrentDepth != want {
		f.t.Errorf("depth of %s = %d, want %d", queue, info.CurrentDepth, want)
	}
}

func (f *fixture) conn() mq.Conn {
	f.t.Helper()
	c, err := f.env.backend.Connect(f.ctx, f.env.target)
	if err != nil {
		f.t.Fatalf("connect: %v", err)
	}
	return c
}
