package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

// durableHarness runs the conformance suite on a queue manager that
// journals its persistent messages: the journal must change nothing a
// client sees.
type durableHarness struct{ harnessWithQueueTypes }

func (durableHarness) New(tb testing.TB) mqtest.Env {
	env := harness.New(tb)
	b, err := NewDurable(Config{QueueManagers: []QueueManagerConfig{{Name: DefaultQueueManager,
		Queues:  []QueueConfig{{Name: "DEV.QUEUE.1"}, {Name: "DEV.QUEUE.2"}, {Name: "DEV.QUEUE.3"}, {Name: "DEV.DEAD.LETTER.QUEUE"}},
		Aliases: []AliasQueueConfig{{Name: "DEV.ALIAS.1", Target: "DEV.QUEUE.1"}},
		Remotes: []RemoteQueueConfig{{Name: "DEV.REMOTE.1", RemoteQueue: "APP.IN", RemoteQueueManager: "QM2", TransmissionQueue: "DEV.QUEUE.2"}},
	}}}, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	env.Backend, env.Faults = b, b.Faults()
	return env
}

func TestDurableBackendSuite(t *testing.T) { mqtest.RunBackendSuite(t, durableHarness{}) }

// restart opens a second backend on dir, as a restarted process would,
// without closing the first: a killed process closes nothing.
func restart(t *testing.T, dir string) *env {
	t.Helper()
	b, err := NewDurable(Config{}, dir)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return &env{t: t, b: b, ctx: context.Background()}
}

func (e *env) putText(q mq.Queue, text string, persistent, syncpoint bool) {
	e.t.Helper()
	if _, err := q.Put(e.ctx, &mq.Message{Payload: []byte(text), Persistent: persistent}, mq.PutOptions{Syncpoint: syncpoint}); err != nil {
		e.t.Fatalf("put %q: %v", text, err)
	}
}

// drain gets every message of queue, in delivery order.
func (e *env) drain(queue string) []string {
	e.t.Helper()
	c := e.connect()
	defer c.Close()
	q := e.open(c, queue, mq.OpenInputShared)
	var got []string
	for {
		var m mq.Message
		err := q.Get(e.ctx, &m, mq.GetOptions{})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return got
		}
		if err != nil {
			e.t.Fatalf("get from %s: %v", queue, err)
		}
		got = append(got, string(m.Payload))
	}
}

func TestCommittedPersistentMessagesSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	e := restart(t, dir)
	c := e.connect()
	q := e.open(c, "DEV.QUEUE.1", mq.OpenOutput|mq.OpenInputShared)
	var m mq.Message
	e.putText(q, "got", true, false)
	if err := q.Get(e.ctx, &m, mq.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	e.putText(q, "got in a committed unit of work", true, false)
	if err := q.Get(e.ctx, &m, mq.GetOptions{Syncpoint: true}); err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.putText(q, "persistent", true, false)
	e.putText(q, "non-persistent", false, false)
	e.putText(q, "committed", true, true)
	if err := c.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.putText(q, "uncommitted", true, true)
	// A get in flight: its message is still the queue's.
	q2 := e.open(c, "DEV.QUEUE.2", mq.OpenOutput|mq.OpenInputShared)
	e.putText(q2, "got in flight", true, false)
	if err := q2.Get(e.ctx, &m, mq.GetOptions{Syncpoint: true}); err != nil {
		t.Fatal(err)
	}

	after := restart(t, dir)
	if got, want := after.drain("DEV.QUEUE.1"), []string{"persistent", "committed"}; !equalStrings(got, want) {
		t.Fatalf("after a restart DEV.QUEUE.1 holds %q, want %q", got, want)
	}
	if got, want := after.drain("DEV.QUEUE.2"), []string{"got in flight"}; !equalStrings(got, want) {
		t.Fatalf("after a restart DEV.QUEUE.2 holds %q, want %q", got, want)
	}
	again := restart(t, dir)
	for _, queue := range []string{"DEV.QUEUE.1", "DEV.QUEUE.2"} {
		if got := again.drain(queue); len(got) != 0 {
			t.Fatalf("messages got from %s before the second restart came back: %q", queue, got)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRecoveredMessageKeepsItsDescriptorAndProperties(t *testing.T) {
	dir := t.TempDir()
	e := restart(t, dir)
	mc, err := e.b.ConnectMQI("")
	if err != nil {
		t.Fatal(err)
	}
	q, err := mc.Open("DEV.QUEUE.2", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	props := mq.Properties{"s": "text", "b": true, "i8": int8(-8), "i16": int16(-16), "i32": int32(-32),
		"i64": int64(-64), "f32": float32(1.5), "f64": 2.25, "bytes": []byte{0, 1, 2}, "nothing": nil}
	desc := Descriptor{Report: 7, MsgType: 8, Encoding: 273, CodedCharSetID: 1208, Priority: 4,
		GroupID: mq.ID{1, 2, 3}, MsgSeqNumber: 2, MsgFlags: 8}
	copy(desc.UserIdentifier[:], "app         ")
	msg := &mq.Message{Payload: []byte("body"), Persistent: true, Priority: 4, Format: "MQSTR",
		CorrelID: mq.ID{9}, ReplyToQ: "DEV.QUEUE.3", ReplyToQMgr: "QM1", Expiry: time.Hour, Properties: props}
	put, err := q.Put(msg, PutOptions{Descriptor: desc, PropertyOrder: []string{"s", "b", "i8"}})
	if err != nil {
		t.Fatal(err)
	}

	mc2, err := restart(t, dir).b.ConnectMQI("")
	if err != nil {
		t.Fatal(err)
	}
	q2, err := mc2.Open("DEV.QUEUE.2", mq.OpenInputShared)
	if err != nil {
		t.Fatal(err)
	}
	var got mq.Message
	res, err := q2.Get(context.Background(), &got, GetOptions{BufferLength: 100})
	if err != nil {
		t.Fatal(err)
	}
	desc.Valid = true
	switch {
	case got.MsgID != put.MsgID || got.CorrelID != msg.CorrelID || string(got.Payload) != "body":
		t.Errorf("ids or body changed: %+v", got)
	case got.Format != "MQSTR" || got.Priority != 4 || !got.Persistent || got.ReplyToQ != "DEV.QUEUE.3" || got.ReplyToQMgr != "QM1":
		t.Errorf("MQMD fields changed: %+v", got)
	case !got.PutTime.Equal(put.PutTime) || got.Expiry <= 0 || got.Expiry > time.Hour:
		t.Errorf("put time %v (want %v) or expiry %v changed", got.PutTime, put.PutTime, got.Expiry)
	case res.Descriptor != desc:
		t.Errorf("descriptor = %+v, want %+v", res.Descriptor, desc)
	case !equalStrings(res.PropertyOrder, []string{"s", "b", "i8"}):
		t.Errorf("property order = %q", res.PropertyOrder)
	}
	if len(got.Properties) != len(props) {
		t.Fatalf("properties = %v, want %v", got.Properties, props)
	}
	for name, want := range props {
		if v, ok := got.Properties[name]; !ok || !mq.SamePropertyValue(v, want) {
			t.Errorf("property %s = %#v, want %#v", name, v, want)
		}
	}
}

func TestRecoveredMessageKeepsItsCCSIDAndEncoding(t *testing.T) {
	dir := t.TempDir()
	e := restart(t, dir)
	q := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenOutput)
	for _, m := range []*mq.Message{
		{Payload: []byte("ebcdic"), Persistent: true, CCSID: 37, Encoding: mq.EncodingNativeBig},
		{Payload: []byte("defaults"), Persistent: true},
	} {
		if _, err := q.Put(e.ctx, m, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	after := restart(t, dir)
	in := after.open(after.connect(), "DEV.QUEUE.1", mq.OpenInputShared)
	for _, want := range []struct {
		body            string
		ccsid, encoding int32
	}{{"ebcdic", 37, mq.EncodingNativeBig}, {"defaults", utf8CCSID, mq.EncodingNative}} {
		var got mq.Message
		if err := in.Get(after.ctx, &got, mq.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		if string(got.Payload) != want.body || got.CCSID != want.ccsid || got.Encoding != want.encoding {
			t.Errorf("after a restart: %q CCSID %d Encoding %d, want %q %d %d",
				got.Payload, got.CCSID, got.Encoding, want.body, want.ccsid, want.encoding)
		}
	}
}

// A journal written before put records carried CCSID and Encoding is
// still read: a message put through the port gets the defaults it was
// put with, one put through the MQI its descriptor's.
func TestVersion1PutRecordsAreRecovered(t *testing.T) {
	dir := t.TempDir()
	version1 := func(id uint64, m *message) []byte {
		body := encodePut(id, "DEV.QUEUE.1", m)
		body[0] = recordPutV1
		return frame(body[:len(body)-8]) // without CCSID and Encoding
	}
	mqi := &message{payload: []byte("mqi"), desc: &Descriptor{Valid: true, CodedCharSetID: 850, Encoding: mq.EncodingNativeBig}}
	log := append(version1(1, &message{payload: []byte("port")}), version1(2, mqi)...)
	if err := os.MkdirAll(filepath.Dir(journalFile(dir, DefaultQueueManager)), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journalFile(dir, DefaultQueueManager), log, 0o640); err != nil {
		t.Fatal(err)
	}

	e := restart(t, dir)
	in := e.open(e.connect(), "DEV.QUEUE.1", mq.OpenInputShared)
	for _, want := range []struct {
		body            string
		ccsid, encoding int32
	}{{"port", utf8CCSID, mq.EncodingNative}, {"mqi", 850, mq.EncodingNativeBig}} {
		var got mq.Message
		if err := in.Get(e.ctx, &got, mq.GetOptions{}); err != nil {
			t.Fatalf("get %q: %v", want.body, err)
		}
		if string(got.Payload) != want.body || got.CCSID != want.ccsid || got.Encoding != want.encoding {
			t.Errorf("recovered %q CCSID %d Encoding %d, want %q %d %d",
				got.Payload, got.CCSID, got.Encoding, want.body, want.ccsid, want.encoding)
		}
	}
}

func TestJournalIsCompactedAndATornTailIgnored(t *testing.T) {
	dir := t.TempDir()
	e := restart(t, dir)
	c := e.connect()
	q := e.open(c, "DEV.QUEUE.1", mq.OpenOutput|mq.OpenInputShared)
	e.putText(q, "kept", true, false)
	body := make([]byte, 64*1024)
	var m mq.Message
	for range 4 * compactMinBytes / len(body) {
		if _, err := q.Put(e.ctx, &mq.Message{Payload: body, Persistent: true}, mq.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := q.Get(e.ctx, &m, mq.GetOptions{MsgID: mustLastID(t, e.b)}); err != nil {
			t.Fatal(err)
		}
	}
	path := journalFile(dir, DefaultQueueManager)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// 64 messages of 64 KiB went through: without compaction the log
	// would hold 4 MiB; with it, at most compactMinBytes and a record.
	if limit := int64(compactMinBytes + 2*len(body)); info.Size() > limit {
		t.Fatalf("journal is %d bytes after its messages were got, over %d", info.Size(), limit)
	}
	// A crash in mid-write leaves part of a record.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{40, 0, 0, 0, 1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := restart(t, dir).drain("DEV.QUEUE.1"); !equalStrings(got, []string{"kept"}) {
		t.Fatalf("after a restart DEV.QUEUE.1 holds %q, want [kept]", got)
	}
	var names []string
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !equalStrings(names, []string{"messages.log", "qmid"}) {
		t.Fatalf("data directory holds %q, want the journal and the QMID only", names)
	}
}

// mustLastID is the MsgId of the newest message on DEV.QUEUE.1.
func mustLastID(t *testing.T, b *Backend) mq.ID {
	t.Helper()
	q := b.defaultQM.queues["DEV.QUEUE.1"]
	q.mu.Lock()
	defer q.mu.Unlock()
	live := q.levels[0].live()
	return live[len(live)-1].msgID
}

func TestNewDurableNeedsADirectory(t *testing.T) {
	if _, err := NewDurable(Config{}, ""); err == nil {
		t.Fatal("NewDurable without a directory succeeded")
	}
}

func TestQueueManagerKeepsItsIdentifierInItsDataDirectory(t *testing.T) {
	dir := t.TempDir()
	first := restart(t, dir).b.defaultQM.identifier
	if again := restart(t, dir).b.defaultQM.identifier; again != first {
		t.Errorf("QMID after a restart = %q, want %q", again, first)
	}
	if other := restart(t, t.TempDir()).b.defaultQM.identifier; other == "" {
		t.Error("a new data directory gave an empty QMID")
	}
}
