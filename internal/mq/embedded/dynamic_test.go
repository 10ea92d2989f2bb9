package embedded

import (
	"context"
	"slices"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
)

func wantReason(t *testing.T, what string, err error, reason mq.Reason) {
	t.Helper()
	e, ok := mq.AsError(err)
	if reason == 0 && err != nil || reason != 0 && (!ok || e.Reason != reason) {
		t.Fatalf("%s: %v, want reason %d", what, err, reason)
	}
}

func TestDefinedQueueLifecycle(t *testing.T) {
	b := NewDefault()
	wantReason(t, "define", b.DefineQueue("", QueueConfig{Name: "AMQ.TEMP"}, TemporaryDynamic), 0)
	wantReason(t, "define it again", b.DefineQueue("QM1", QueueConfig{Name: "AMQ.TEMP"}, TemporaryDynamic), reasonObjectAlreadyExist)
	wantReason(t, "define over a configured queue", b.DefineQueue("QM1", QueueConfig{Name: "DEV.QUEUE.1"}, TemporaryDynamic), reasonObjectAlreadyExist)
	wantReason(t, "define on an unknown queue manager", b.DefineQueue("QM9", QueueConfig{Name: "X"}, TemporaryDynamic), mq.ReasonQMgrNameError)

	creator, err := b.ConnectMQI("QM1")
	if err != nil {
		t.Fatal(err)
	}
	defer creator.Disconnect()
	q, err := creator.Open("AMQ.TEMP", mq.OpenInputShared|mq.OpenOutput)
	if err != nil {
		t.Fatalf("open the defined queue: %v", err)
	}
	for range 2 {
		if _, err := q.Put(&mq.Message{Payload: []byte("body")}, PutOptions{}); err != nil {
			t.Fatalf("put: %v", err)
		}
	}
	// One got under syncpoint: it is uncommitted when the queue goes.
	var msg mq.Message
	if _, err := q.Get(context.Background(), &msg, GetOptions{Syncpoint: true, BufferLength: 100}); err != nil {
		t.Fatalf("get: %v", err)
	}
	defs, _ := b.QueueDefinitions("QM1")
	if i := slices.IndexFunc(defs, func(d QueueDefinition) bool { return d.Name == "AMQ.TEMP" }); i < 0 ||
		defs[i].DefinitionType != TemporaryDynamic || defs[i].Type != mq.QueueLocal {
		t.Fatalf("definitions %+v: want AMQ.TEMP, local and temporary dynamic", defs)
	}
	st, err := b.QueueStatus("QM1", "AMQ.TEMP")
	if err != nil || st.Depth != 1 || st.Uncommitted != 1 || st.MaxDepth != DefaultMaxDepth ||
		st.OpenInputCount != 1 || st.OldestPut.IsZero() || st.LastGet.IsZero() || !st.QueueTimeKnown {
		t.Fatalf("status %+v, %v", st, err)
	}

	wantReason(t, "delete", b.DeleteQueue("QM1", "AMQ.TEMP"), 0)
	wantReason(t, "delete it again", b.DeleteQueue("QM1", "AMQ.TEMP"), mq.ReasonUnknownObjectName)
	wantReason(t, "delete a configured queue", b.DeleteQueue("QM1", "DEV.QUEUE.1"), mq.ReasonUnknownObjectName)
	_, err = q.Put(&mq.Message{Payload: []byte("late")}, PutOptions{})
	wantReason(t, "put through a handle of the deleted queue", err, reasonQDeleted)
	_, err = b.QueueStatus("QM1", "AMQ.TEMP")
	wantReason(t, "status of the deleted queue", err, mq.ReasonUnknownObjectName)
	// The backed-out get goes nowhere and gives its body back.
	if err := creator.Backout(); err != nil {
		t.Fatalf("backout: %v", err)
	}
	if err := q.Close(); err != nil {
		t.Errorf("close a handle of the deleted queue: %v", err)
	}
	if n := b.defaultQM.bodyBytes.Load(); n != 0 {
		t.Errorf("%d body bytes held after the queue and its unit of work are gone, want 0", n)
	}
}

func TestResetQueueStatistics(t *testing.T) {
	b := NewDefault()
	c, _ := b.ConnectMQI("")
	defer c.Disconnect()
	q, _ := c.Open("DEV.QUEUE.1", mq.OpenInputShared|mq.OpenOutput)
	for range 3 {
		if _, err := q.Put(&mq.Message{Payload: []byte("x")}, PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var msg mq.Message
	if _, err := q.Get(context.Background(), &msg, GetOptions{BufferLength: 10}); err != nil {
		t.Fatal(err)
	}
	st, err := b.ResetQueueStatistics("", "DEV.QUEUE.1")
	if err != nil || st.Enqueued != 3 || st.Dequeued != 1 || st.HighDepth != 3 {
		t.Fatalf("first reset %+v, %v; want 3 put, 1 got, high depth 3", st, err)
	}
	if st, _ = b.ResetQueueStatistics("", "DEV.QUEUE.1"); st.Enqueued != 0 || st.Dequeued != 0 || st.HighDepth != 2 {
		t.Fatalf("second reset %+v; want nothing since, high depth the current 2", st)
	}
}
