package handlers

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

func TestDepthReportsQueueAttributes(t *testing.T) {
	f := newFixture(t)
	f.putN(3)
	if _, err := f.conn().OpenQueue(f.ctx, testQueue, mq.OpenInputShared); err != nil {
		t.Fatal(err)
	}
	got, err := depth(f.ctx, f.run(command.Command{OperationType: command.Depth}))
	if err != nil {
		t.Fatal(err)
	}
	res := got.(DepthResult)
	if res.UncommittedMessages == nil || *res.UncommittedMessages != 0 || res.OldestMessageAgeSeconds == nil ||
		res.LastPutAt == nil || res.LastGetAt != nil || res.QueueTime != nil || res.Missing != nil || res.Verdict != "" {
		t.Errorf("health figures: %s", depthJSON(t, res))
	}
	want := DepthResult{CurrentDepth: ptr(3), MaxDepth: ptr(embedded.DefaultMaxDepth), OpenInputCount: ptr(1), OpenOutputCount: ptr(0),
		QueueType: "local", DepthShare: ptrFloat(0.0006)}
	if res = countsOnly(res); !reflect.DeepEqual(res, want) {
		t.Fatalf("got %s, want %s", depthJSON(t, res), depthJSON(t, want))
	}
	keys := jsonKeys(t, res)
	for _, k := range []string{"currentDepth", "maxDepth", "openInputCount", "openOutputCount", "queueType"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("result JSON lacks %q", k)
		}
	}
}

func TestDepthUnknownQueue(t *testing.T) {
	f := newFixture(t)
	run := f.run(command.Command{OperationType: command.Depth})
	run.Queue = "NO.SUCH.QUEUE"
	_, err := depth(f.ctx, run)
	mqtest.WantReason(t, err, mq.ReasonUnknownObjectName)
}

// TestDepthFollowsDefinitions: an alias reports its base queue's counts, a
// remote definition its transmission queue's, and a queue no local queue
// stands for reports its type without counts, as a queue manager that
// answers 2068 for the counts of those types leaves DEPTH nothing else.
func TestDepthFollowsDefinitions(t *testing.T) {
	local := mq.QueueInfo{Type: mq.QueueLocal, CurrentDepth: 7, MaxDepth: 5000, OpenInputCount: 1, OpenOutputCount: 2}
	xmitq := mq.QueueInfo{Type: mq.QueueLocal, CurrentDepth: 4, MaxDepth: 9000}
	defs := definitions{
		"APP.LOCAL":    local,
		"APP.ALIAS":    {Type: mq.QueueAlias, BaseQueue: "APP.LOCAL"},
		"APP.REMOTE":   {Type: mq.QueueRemote, RemoteQueue: "IN.Q", RemoteQueueManager: "QM2", TransmissionQueue: "QM2.XMITQ"},
		"QM2.XMITQ":    xmitq,
		"APP.IMPLIED":  {Type: mq.QueueRemote, RemoteQueue: "IN.Q", RemoteQueueManager: "QM2.XMITQ"},
		"APP.NOXMITQ":  {Type: mq.QueueRemote, RemoteQueue: "IN.Q", RemoteQueueManager: "QM3"},
		"APP.ALIASREM": {Type: mq.QueueAlias, BaseQueue: "APP.REMOTE"},
		"APP.CLUSTER":  {Type: mq.QueueCluster},
		"QM.ALIAS":     {Type: mq.QueueRemote, RemoteQueueManager: ""},
		"APP.BADXMITQ": {Type: mq.QueueRemote, RemoteQueue: "IN.Q", RemoteQueueManager: "QM2", TransmissionQueue: "NO.SUCH.XMITQ"},
		"APP.DANGLING": {Type: mq.QueueAlias, BaseQueue: "NO.SUCH.BASE"},
	}
	counts := func(info mq.QueueInfo, res DepthResult) DepthResult {
		res.CurrentDepth, res.MaxDepth = &info.CurrentDepth, &info.MaxDepth
		res.OpenInputCount, res.OpenOutputCount = &info.OpenInputCount, &info.OpenOutputCount
		res.DepthShare = ptrFloat(math.Round(float64(info.CurrentDepth)/float64(info.MaxDepth)*1e4) / 1e4)
		return res
	}
	for _, tc := range []struct {
		queue   string
		want    DepthResult
		counted string
	}{
		{"APP.LOCAL", counts(local, DepthResult{QueueType: "local"}), "APP.LOCAL"},
		{"APP.ALIAS", counts(local, DepthResult{QueueType: "alias", BaseQueue: "APP.LOCAL"}), "APP.LOCAL"},
		{"APP.REMOTE", counts(xmitq, DepthResult{QueueType: "remote", RemoteQueue: "IN.Q", RemoteQueueManager: "QM2",
			TransmissionQueue: "QM2.XMITQ"}), "QM2.XMITQ"},
		{"APP.IMPLIED", counts(xmitq, DepthResult{QueueType: "remote", RemoteQueue: "IN.Q", RemoteQueueManager: "QM2.XMITQ",
			TransmissionQueue: "QM2.XMITQ"}), "QM2.XMITQ"},
		{"APP.ALIASREM", counts(xmitq, DepthResult{QueueType: "alias", BaseQueue: "APP.REMOTE", RemoteQueue: "IN.Q",
			RemoteQueueManager: "QM2", TransmissionQueue: "QM2.XMITQ"}), "QM2.XMITQ"},
		{"APP.NOXMITQ", DepthResult{QueueType: "remote", RemoteQueue: "IN.Q", RemoteQueueManager: "QM3"}, ""},
		{"APP.CLUSTER", DepthResult{QueueType: "cluster"}, ""},
		{"QM.ALIAS", DepthResult{QueueType: "remote"}, ""},
	} {
		res, counted, err := inquireDepth(context.Background(), defs, tc.queue)
		if err != nil {
			t.Errorf("%s: %v", tc.queue, err)
			continue
		}
		if !reflect.DeepEqual(res, tc.want) || counted != tc.counted {
			t.Errorf("%s: got %s counting %q, want %s counting %q", tc.queue, depthJSON(t, res), counted, depthJSON(t, tc.want), tc.counted)
		}
	}
	// A definition pointing at a queue that is not there is a mistake to
	// report, naming both.
	for queue, want := range map[string]string{
		"APP.BADXMITQ": "remote queue APP.BADXMITQ: transmission queue NO.SUCH.XMITQ: ",
		"APP.DANGLING": "alias APP.DANGLING: base queue NO.SUCH.BASE: ",
	} {
		_, _, err := inquireDepth(context.Background(), defs, queue)
		if e := mqtest.WantReason(t, err, mq.ReasonUnknownObjectName); e != nil && err.Error()[:len(want)] != want {
			t.Errorf("%s: error %q, want it to start %q", queue, err, want)
		}
	}
}

// TestDepthOnAliasAndRemoteQueues: on the queue manager's own alias and
// remote definitions, a put through each lands on the local queue behind
// it, and DEPTH of the definition counts that queue and names it.
func TestDepthOnAliasAndRemoteQueues(t *testing.T) {
	b, err := embedded.New(embedded.Config{QueueManagers: []embedded.QueueManagerConfig{{
		Name:    embedded.DefaultQueueManager,
		Queues:  []embedded.QueueConfig{{Name: testQueue}, {Name: "QM2.XMITQ", MaxDepth: 9000}},
		Aliases: []embedded.AliasQueueConfig{{Name: "APP.ALIAS", Target: testQueue}},
		Remotes: []embedded.RemoteQueueConfig{{Name: "APP.REMOTE", RemoteQueue: "IN.Q", RemoteQueueManager: "QM2", TransmissionQueue: "QM2.XMITQ"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, b)
	c := f.conn()
	for queue, n := range map[string]int{"APP.ALIAS": 2, "APP.REMOTE": 3} {
		q, err := c.OpenQueue(f.ctx, queue, mq.OpenOutput)
		if err != nil {
			t.Fatalf("open %s: %v", queue, err)
		}
		for range n {
			if _, err := q.Put(f.ctx, &mq.Message{Payload: []byte("m")}, mq.PutOptions{}); err != nil {
				t.Fatalf("put to %s: %v", queue, err)
			}
		}
	}
	for queue, want := range map[string]DepthResult{
		"APP.ALIAS": {QueueType: "alias", BaseQueue: testQueue, CurrentDepth: ptr(2), MaxDepth: ptr(embedded.DefaultMaxDepth),
			OpenInputCount: ptr(0), OpenOutputCount: ptr(1), DepthShare: ptrFloat(0.0004)},
		"APP.REMOTE": {QueueType: "remote", RemoteQueue: "IN.Q", RemoteQueueManager: "QM2", TransmissionQueue: "QM2.XMITQ",
			CurrentDepth: ptr(3), MaxDepth: ptr(9000), OpenInputCount: ptr(0), OpenOutputCount: ptr(1), DepthShare: ptrFloat(0.0003)},
	} {
		run := f.run(command.Command{OperationType: command.Depth})
		run.Queue = queue
		got, err := depth(f.ctx, run)
		if err != nil {
			t.Fatalf("DEPTH %s: %v", queue, err)
		}
		res := got.(DepthResult)
		// The base or transmission queue's status: its messages' age.
		if res.OldestMessageAgeSeconds == nil || res.LastPutAt == nil {
			t.Errorf("DEPTH %s lacks the counted queue's status: %s", queue, depthJSON(t, res))
		}
		if res = countsOnly(res); !reflect.DeepEqual(res, want) {
			t.Errorf("DEPTH %s = %s, want %s", queue, depthJSON(t, res), depthJSON(t, want))
		}
	}
}

// countsOnly is res without the figures of the queue's status, which
// depend on when the test ran.
func countsOnly(res DepthResult) DepthResult {
	res.UncommittedMessages, res.OldestMessageAgeSeconds, res.LastPutAt, res.LastGetAt, res.QueueTime = nil, nil, nil, nil, nil
	return res
}

func ptrFloat(f float64) *float64 { return &f }

func depthJSON(t *testing.T, res DepthResult) string {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// definitions is an mq.Conn whose queues answer Inquire with fixed
// attributes: the queue types the embedded queue manager's local queues
// do not cover.
type definitions map[string]mq.QueueInfo

func (d definitions) OpenQueue(_ context.Context, name string, opts mq.OpenOption) (mq.Queue, error) {
	info, ok := d[name]
	if !ok {
		return nil, mq.NewError(mq.VerbOpen, name, mq.ReasonUnknownObjectName)
	}
	if opts != mq.OpenInquire {
		return nil, mq.NewError(mq.VerbOpen, name, mq.ReasonOptionsError)
	}
	info.Name = name
	return definition{info}, nil
}

func (definitions) InquireQueueManager(context.Context) (mq.QueueManagerInfo, error) {
	return mq.QueueManagerInfo{}, nil
}
func (definitions) InquireQueueStatus(_ context.Context, name string) (mq.QueueStatus, error) {
	return mq.QueueStatus{}, mq.NewError(mq.VerbInquire, name, mq.ReasonNotAuthorized)
}
func (definitions) InquireChannelStatus(context.Context) (mq.ChannelStatus, error) {
	return mq.ChannelStatus{}, nil
}
func (definitions) Commit(context.Context) error  { return nil }
func (definitions) Backout(context.Context) error { return nil }
func (definitions) Close() error                  { return nil }

type definition struct{ info mq.QueueInfo }

func (q definition) Name() string { return q.info.Name }
func (q definition) Put(context.Context, *mq.Message, mq.PutOptions) (mq.PutResult, error) {
	return mq.PutResult{}, mq.NewError(mq.VerbPut, q.info.Name, mq.ReasonNotOpenForOutput)
}
func (q definition) Get(context.Context, *mq.Message, mq.GetOptions) error {
	return mq.NewError(mq.VerbGet, q.info.Name, mq.ReasonNotOpenForInput)
}
func (q definition) Inquire(context.Context) (mq.QueueInfo, error) { return q.info, nil }
func (definition) Close() error                                    { return nil }
