package mqtest

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// RunBackendSuite runs every case against the backend h provides. Cases run
// one after another: backends such as the client stub share state. A
// harness whose SupportsFaults reports false gets every case except those
// that inject faults; one without QueueTypeSupport gets none of the cases
// about alias queues and remote definitions.
func RunBackendSuite(t *testing.T, h Harness) {
	cases := []struct {
		name   string
		run    func(*fixture)
		faults bool // uses Env.Faults
	}{
		{"PutGetRoundTrip", testPutGetRoundTrip, false},
		{"CCSIDAndEncoding", testCCSIDAndEncoding, false},
		{"PriorityThenFIFO", testPriorityOrder, false},
		{"ExpiredNeverReturned", testExpiry, false},
		{"BrowseLeavesMessages", testBrowse, false},
		{"SelectByMsgIDAndCorrelID", testSelection, false},
		{"CommitAndBackout", testCommitBackout, false},
		{"DisconnectBacksOut", testDisconnectBacksOut, false},
		{"GetWait", testGetWait, false},
		{"UnknownQueue", testUnknownQueue, false},
		{"QueueFull", testQueueFull, true},
		{"MessageTooBig", testMessageTooBig, false},
		{"InquireDepthAndOpenCounts", testInquireQueue, false},
		{"InquireQueueManager", testInquireQueueManager, false},
		{"InquireQueueStatus", testInquireQueueStatus, false},
		{"ConnectRefused", testConnectRefused, true},
		{"PoolReconnectsAfterBreak", testPoolReconnect, true},
		{"FailNthPut", testFailNthPut, true},
		{"PutBatch", testPutBatch, false},
		{"FailNthPutInBatch", testFailNthPutInBatch, true},
		{"FailNthGet", testFailNthGet, true},
		{"FailNthCommit", testFailNthCommit, true},
		{"DropNthPut", testDropNthPut, true},
		{"DuplicateNthPut", testDuplicateNthPut, true},
	}
	if definesAliasAndRemote(h) {
		cases = append(cases, []struct {
			name   string
			run    func(*fixture)
			faults bool
		}{
			{"AliasResolvesToItsTarget", testAliasQueue, false},
			{"RemoteDefinitionPutsToTransmissionQueue", testRemoteQueue, false},
		}...)
	}
	faults := supportsFaults(h)
	for _, c := range cases {
		if c.faults && !faults {
			continue
		}
		t.Run(c.name, func(t *testing.T) { c.run(newFixture(t, h)) })
	}
}

func testPutGetRoundTrip(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)

	props := mq.Properties{
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"flag":        true,
		"count":       int64(-42),
		"ratio":       0.25,
		"blob":        []byte{0, 1, 2, 255},
	}
	sent := &mq.Message{
		CorrelID:   id("corr-1"),
		Format:     mq.FormatString,
		Persistent: true,
		Priority:   7,
		Expiry:     60 * time.Second,
		ReplyToQ:   f.env.OtherQueue,
		Properties: props,
		Payload:    []byte("hello, queue"),
	}
	res, err := out.Put(f.ctx, sent, mq.PutOptions{})
	if err != nil {
		f.t.Fatalf("put: %v", err)
	}
	if res.MsgID.IsZero() {
		f.t.Fatal("put returned no MsgId")
	}
	if res.PutTime.IsZero() {
		f.t.Fatal("put returned no put time")
	}

	var got mq.Message
	if err := in.Get(f.ctx, &got, mq.GetOptions{}); err != nil {
		f.t.Fatalf("get: %v", err)
	}
	if got.MsgID != res.MsgID {
		f.t.Errorf("MsgId = %s, put returned %s", got.MsgID, res.MsgID)
	}
	if got.CorrelID != sent.CorrelID {
		f.t.Errorf("CorrelId = %s, want %s", got.CorrelID, sent.CorrelID)
	}
	if got.Format != mq.FormatString || !got.Persistent || got.Priority != 7 || got.ReplyToQ != f.env.OtherQueue {
		f.t.Errorf("MQMD = format %q persistent %v priority %d replyToQ %q; want %q true 7 %q",
			got.Format, got.Persistent, got.Priority, got.ReplyToQ, mq.FormatString, f.env.OtherQueue)
	}
	if got.Expiry <= 50*time.Second || got.Expiry > 60*time.Second {
		f.t.Errorf("Expiry left = %s, want within (50s, 60s]", got.Expiry)
	}
	if d := got.PutTime.Sub(res.PutTime).Abs(); d > time.Second {
		f.t.Errorf("PutTime = %s, put returned %s", got.PutTime, res.PutTime)
	}
	if got.BackoutCount != 0 {
		f.t.Errorf("BackoutCount = %d, want 0", got.BackoutCount)
	}
	if !bytes.Equal(got.Payload, sent.Payload) {
		f.t.Errorf("payload = %q, want %q", got.Payload, sent.Payload)
	}
	if len(got.Properties) != len(props) {
		f.t.Errorf("properties = %v, want %v", got.Properties, props)
	}
	for k, want := range props {
		v := got.Properties[k]
		if wb, ok := want.([]byte); ok {
			if gb, ok := v.([]byte); !ok || !bytes.Equal(gb, wb) {
				f.t.Errorf("property %s = %#v, want %#v", k, v, want)
			}
		} else if v != want {
			f.t.Errorf("property %s = %#v (%T), want %#v (%T)", k, v, v, want, want)
		}
	}

	// A caller-chosen MsgId is kept; a plain message comes back plain into
	// the same Message, whose old properties are gone.
	mine := id("my-own-msg-id")
	res = f.put(out, "plain", mq.PutOptions{}, func(m *mq.Message) { m.MsgID = mine })
	if res.MsgID != mine {
		f.t.Errorf("put with MsgId %s returned %s", mine, res.MsgID)
	}
	if err := in.Get(f.ctx, &got, mq.GetOptions{}); err != nil {
		f.t.Fatalf("get: %v", err)
	}
	if got.MsgID != mine || got.Persistent || got.Priority != 0 || got.Expiry != 0 ||
		len(got.Properties) != 0 || string(got.Payload) != "plain" || !got.CorrelID.IsZero() {
		f.t.Errorf("plain message came back as %+v", got)
	}
}

// testCCSIDAndEncoding puts a message with another CCSID and Encoding
// than the defaults (EBCDIC, big-endian) and one with the defaults: the
// first comes back as put, the second with the queue manager's CCSID (for
// MQCCSI_Q_MGR) and MQENC_NATIVE.
func testCCSIDAndEncoding(f *fixture) {
	c := f.connect()
	info, err := c.InquireQueueManager(f.ctx)
	if err != nil {
		f.t.Fatalf("inquire queue manager: %v", err)
	}
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	f.put(out, "ebcdic", mq.PutOptions{}, func(m *mq.Message) { m.CCSID, m.Encoding = 37, mq.EncodingNativeBig })
	f.put(out, "defaults", mq.PutOptions{}, nil)
	for _, want := range []struct {
		text            string
		ccsid, encoding int32
	}{{"ebcdic", 37, mq.EncodingNativeBig}, {"defaults", int32(info.CCSID), mq.EncodingNative}} {
		if m := f.getText(in, mq.GetOptions{}, want.text); m.CCSID != want.ccsid || m.Encoding != want.encoding {
			f.t.Errorf("%s: CCSID %d Encoding %d, want %d and %d", want.text, m.CCSID, m.Encoding, want.ccsid, want.encoding)
		}
	}
}

func testPriorityOrder(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	for _, p := range []struct {
		text     string
		priority int32
	}{{"0a", 0}, {"5a", 5}, {"9", 9}, {"5b", 5}, {"0b", 0}, {"1", 1}} {
		f.put(out, p.text, mq.PutOptions{}, func(m *mq.Message) { m.Priority = p.priority })
	}
	for _, want := range []string{"9", "5a", "5b", "1", "0a", "0b"} {
		f.getText(in, mq.GetOptions{}, want)
	}
	f.noMessage(in, mq.GetOptions{})
}

func testExpiry(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared|mq.OpenBrowse)
	f.put(out, "short-lived", mq.PutOptions{}, func(m *mq.Message) { m.Expiry = 100 * time.Millisecond })
	f.put(out, "durable", mq.PutOptions{}, nil)
	time.Sleep(300 * time.Millisecond) // MQ expiry is wall-clock time; nothing to synchronize on
	f.getText(in, mq.GetOptions{Browse: mq.BrowseFirst}, "durable")
	f.getText(in, mq.GetOptions{}, "durable")
	f.noMessage(in, mq.GetOptions{})
	f.wantDepth(c, f.env.Queue, 0)
}

func testBrowse(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	for _, s := range []string{"m1", "m2", "m3"} {
		f.put(out, s, mq.PutOptions{}, nil)
	}
	br := f.open(c, f.env.Queue, mq.OpenBrowse|mq.OpenInputShared)
	f.getText(br, mq.GetOptions{Browse: mq.BrowseFirst}, "m1")
	f.getText(br, mq.GetOptions{Browse: mq.BrowseNext}, "m2")
	f.getText(br, mq.GetOptions{Browse: mq.BrowseNext}, "m3")
	f.noMessage(br, mq.GetOptions{Browse: mq.BrowseNext})
	f.wantDepth(c, f.env.Queue, 3)

	// Each handle has its own cursor.
	other := f.open(c, f.env.Queue, mq.OpenBrowse)
	f.getText(other, mq.GetOptions{Browse: mq.BrowseNext}, "m1") // unpositioned next = first
	f.getText(br, mq.GetOptions{Browse: mq.BrowseFirst}, "m1")
	f.getText(br, mq.GetOptions{}, "m1")
	f.wantDepth(c, f.env.Queue, 2)
	f.getText(other, mq.GetOptions{Browse: mq.BrowseNext}, "m2")

	var msg mq.Message
	err := out.Get(f.ctx, &msg, mq.GetOptions{Browse: mq.BrowseFirst})
	WantReason(f.t, err, mq.ReasonNotOpenForBrowse)
}

func testSelection(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared|mq.OpenBrowse)
	f.put(out, "a", mq.PutOptions{}, func(m *mq.Message) { m.CorrelID = id("c1") })
	b := f.put(out, "b", mq.PutOptions{}, func(m *mq.Message) { m.CorrelID = id("c2") })
	f.put(out, "c", mq.PutOptions{}, func(m *mq.Message) { m.CorrelID = id("c1") })

	f.getText(in, mq.GetOptions{Browse: mq.BrowseFirst, CorrelID: id("c2")}, "b")
	f.noMessage(in, mq.GetOptions{Browse: mq.BrowseNext, CorrelID: id("c2")})
	f.getText(in, mq.GetOptions{MsgID: b.MsgID}, "b")
	f.noMessage(in, mq.GetOptions{MsgID: b.MsgID})
	f.noMessage(in, mq.GetOptions{CorrelID: id("nobody")})
	f.noMessage(in, mq.GetOptions{MsgID: b.MsgID, CorrelID: id("c1")})
	f.getText(in, mq.GetOptions{CorrelID: id("c1")}, "a")
	f.getText(in, mq.GetOptions{CorrelID: id("c1")}, "c")
	f.wantDepth(c, f.env.Queue, 0)
}

func testCommitBackout(f *fixture) {
	a, b := f.connect(), f.connect()
	aOut := f.open(a, f.env.Queue, mq.OpenOutput)
	aIn := f.open(a, f.env.Queue, mq.OpenInputShared)
	bIn := f.open(b, f.env.Queue, mq.OpenInputShared)
	inUOW := mq.PutOptions{Syncpoint: true}

	// Uncommitted puts count in CURDEPTH but nobody can get them.
	f.put(aOut, "u1", inUOW, nil)
	f.put(aOut, "u2", inUOW, nil)
	f.noMessage(bIn, mq.GetOptions{})
	f.noMessage(aIn, mq.GetOptions{})
	f.wantDepth(b, f.env.Queue, 2)
	f.backout(a)
	f.wantDepth(b, f.env.Queue, 0)
	f.noMessage(bIn, mq.GetOptions{})

	f.put(aOut, "c1", inUOW, nil)
	f.put(aOut, "c2", inUOW, nil)
	f.commit(a)
	f.getText(bIn, mq.GetOptions{}, "c1")
	f.getText(bIn, mq.GetOptions{}, "c2")

	// Backed-out gets reappear where they were, with BackoutCount+1.
	for _, s := range []string{"p1", "p2", "p3"} {
		f.put(aOut, s, mq.PutOptions{}, nil)
	}
	f.getText(aIn, mq.GetOptions{Syncpoint: true}, "p1")
	f.getText(aIn, mq.GetOptions{Syncpoint: true}, "p2")
	f.wantDepth(b, f.env.Queue, 1)
	f.getText(bIn, mq.GetOptions{}, "p3")
	f.put(aOut, "p4", mq.PutOptions{}, nil)
	f.backout(a)
	f.wantDepth(b, f.env.Queue, 3)
	if m := f.getText(bIn, mq.GetOptions{Syncpoint: true}, "p1"); m.BackoutCount != 1 {
		f.t.Errorf("p1 BackoutCount = %d, want 1", m.BackoutCount)
	}
	f.commit(b)
	if m := f.getText(bIn, mq.GetOptions{}, "p2"); m.BackoutCount != 1 {
		f.t.Errorf("p2 BackoutCount = %d, want 1", m.BackoutCount)
	}
	if m := f.getText(bIn, mq.GetOptions{}, "p4"); m.BackoutCount != 0 {
		f.t.Errorf("p4 BackoutCount = %d, want 0", m.BackoutCount)
	}
	f.wantDepth(a, f.env.Queue, 0)
}

func testDisconnectBacksOut(f *fixture) {
	a, b := f.connect(), f.connect()
	aOut := f.open(a, f.env.Queue, mq.OpenOutput)
	f.put(aOut, "kept", mq.PutOptions{}, nil)
	f.put(aOut, "dropped", mq.PutOptions{Syncpoint: true}, nil)
	aIn := f.open(a, f.env.Queue, mq.OpenInputShared)
	f.getText(aIn, mq.GetOptions{Syncpoint: true}, "kept")
	if err := a.Close(); err != nil {
		f.t.Fatalf("disconnect: %v", err)
	}
	f.wantDepth(b, f.env.Queue, 1)
	bIn := f.open(b, f.env.Queue, mq.OpenInputShared)
	if m := f.getText(bIn, mq.GetOptions{}, "kept"); m.BackoutCount != 1 {
		f.t.Errorf("BackoutCount = %d, want 1", m.BackoutCount)
	}
	f.noMessage(bIn, mq.GetOptions{})
}

func testGetWait(f *fixture) {
	a, b := f.connect(), f.connect()
	in := f.open(b, f.env.Queue, mq.OpenInputShared)

	const wait = 200 * time.Millisecond
	start := time.Now()
	f.noMessage(in, mq.GetOptions{Wait: wait})
	if elapsed := time.Since(start); elapsed < wait-20*time.Millisecond {
		f.t.Errorf("get with %s wait gave up after %s", wait, elapsed)
	}

	// A put wakes a waiting get long before its wait ends. Whether the put
	// lands before or during the wait, the get must return it.
	type result struct {
		msg     mq.Message
		err     error
		elapsed time.Duration
	}
	done := make(chan result, 1)
	go func() {
		var r result
		start := time.Now()
		r.err = in.Get(f.ctx, &r.msg, mq.GetOptions{Wait: 15 * time.Second})
		r.elapsed = time.Since(start)
		done <- r
	}()
	out := f.open(a, f.env.Queue, mq.OpenOutput)
	f.put(out, "wake up", mq.PutOptions{}, nil)
	select {
	case r := <-done:
		if r.err != nil {
			f.t.Fatalf("waiting get: %v", r.err)
		}
		if string(r.msg.Payload) != "wake up" {
			f.t.Fatalf("waiting get returned %q", r.msg.Payload)
		}
		if r.elapsed > 5*time.Second {
			f.t.Errorf("waiting get took %s; the put did not wake it", r.elapsed)
		}
	case <-f.ctx.Done():
		f.t.Fatal("waiting get never returned")
	}
}

func testUnknownQueue(f *fixture) {
	c := f.connect()
	_, err := c.OpenQueue(f.ctx, f.env.MissingQueue, mq.OpenOutput)
	e := WantReason(f.t, err, mq.ReasonUnknownObjectName)
	if e.Transient() || mq.IsTransient(err) {
		f.t.Error("2085 classified transient")
	}
	if e.Verb != mq.VerbOpen {
		f.t.Errorf("verb = %s, want %s", e.Verb, mq.VerbOpen)
	}
	if want := "MQRC_UNKNOWN_OBJECT_NAME (2085)"; !bytes.Contains([]byte(err.Error()), []byte(want)) {
		f.t.Errorf("error %q does not name %s", err, want)
	}
}

func testQueueFull(f *fixture) {
	a, b := f.connect(), f.connect()
	aOut := f.open(a, f.env.Queue, mq.OpenOutput)
	bOut := f.open(b, f.env.Queue, mq.OpenOutput)
	f.env.Faults.CapDepth(3)
	defer f.env.Faults.CapDepth(0)
	for i := range 3 {
		f.put(aOut, fmt.Sprint(i), mq.PutOptions{}, nil)
	}
	_, err := aOut.Put(f.ctx, &mq.Message{Payload: []byte("x")}, mq.PutOptions{})
	if e := WantReason(f.t, err, mq.ReasonQFull); e.Transient() {
		f.t.Error("2053 classified transient: a full queue is reported, not retried")
	}
	f.wantDepth(a, f.env.Queue, 3)

	// Uncommitted puts count toward MAXDEPTH.
	in := f.open(a, f.env.Queue, mq.OpenInputShared)
	for range 3 {
		f.get(in, mq.GetOptions{})
	}
	f.env.Faults.CapDepth(2)
	f.put(aOut, "u1", mq.PutOptions{Syncpoint: true}, nil)
	f.put(aOut, "u2", mq.PutOptions{Syncpoint: true}, nil)
	_, err = bOut.Put(f.ctx, &mq.Message{Payload: []byte("x")}, mq.PutOptions{})
	WantReason(f.t, err, mq.ReasonQFull)
	f.backout(a)
	f.put(bOut, "fits", mq.PutOptions{}, nil)
}

func testMessageTooBig(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	big := bytes.Repeat([]byte{'x'}, f.env.MaxMsgLength+1)
	_, err := out.Put(f.ctx, &mq.Message{Payload: big}, mq.PutOptions{})
	if e := WantReason(f.t, err, f.env.OversizeReason); e.Transient() {
		f.t.Errorf("%s classified transient", e.Reason)
	}
	f.wantDepth(c, f.env.Queue, 0)

	// Exactly MAXMSGL fits, and a get grows a small buffer to hold it.
	exact := big[:f.env.MaxMsgLength]
	if _, err := out.Put(f.ctx, &mq.Message{Payload: exact}, mq.PutOptions{}); err != nil {
		f.t.Fatalf("put of exactly MAXMSGL: %v", err)
	}
	got := mq.Message{Payload: make([]byte, 0, 16)}
	if err := in.Get(f.ctx, &got, mq.GetOptions{}); err != nil {
		f.t.Fatalf("get: %v", err)
	}
	if !bytes.Equal(got.Payload, exact) {
		f.t.Errorf("got %d bytes back, want %d", len(got.Payload), len(exact))
	}
}

func testInquireQueue(f *fixture) {
	c := f.connect()
	info := f.inquire(c, f.env.Queue)
	if info.CurrentDepth != 0 || info.OpenInputCount != 0 || info.OpenOutputCount != 0 {
		f.t.Fatalf("fresh queue: %+v", info)
	}
	if info.MaxDepth <= 0 || info.MaxMsgLength != f.env.MaxMsgLength {
		f.t.Errorf("limits: %+v, want MaxMsgLength %d", info, f.env.MaxMsgLength)
	}
	in1 := f.open(c, f.env.Queue, mq.OpenInputShared)
	in2 := f.open(c, f.env.Queue, mq.OpenInputShared|mq.OpenBrowse)
	out := f.open(c, f.env.Queue, mq.OpenOutput|mq.OpenInquire)
	f.open(c, f.env.Queue, mq.OpenBrowse) // browse alone is not input
	for range 4 {
		f.put(out, "x", mq.PutOptions{}, nil)
	}
	info, err := out.Inquire(f.ctx)
	if err != nil {
		f.t.Fatalf("inquire: %v", err)
	}
	if info.CurrentDepth != 4 || info.OpenInputCount != 2 || info.OpenOutputCount != 1 {
		f.t.Errorf("got depth %d, input %d, output %d; want 4, 2, 1",
			info.CurrentDepth, info.OpenInputCount, info.OpenOutputCount)
	}
	if err := in1.Close(); err != nil {
		f.t.Fatalf("close: %v", err)
	}
	if err := in2.Close(); err != nil {
		f.t.Fatalf("close: %v", err)
	}
	f.get(f.open(c, f.env.Queue, mq.OpenInputExclusive), mq.GetOptions{})
	info = f.inquire(c, f.env.Queue)
	if info.CurrentDepth != 3 || info.OpenInputCount != 1 || info.OpenOutputCount != 1 {
		f.t.Errorf("got depth %d, input %d, output %d; want 3, 1, 1",
			info.CurrentDepth, info.OpenInputCount, info.OpenOutputCount)
	}
	_, err = in1.Inquire(f.ctx)
	WantReason(f.t, err, mq.ReasonHobjError)
}

func testInquireQueueManager(f *fixture) {
	c := f.connect()
	info, err := c.InquireQueueManager(f.ctx)
	if err != nil {
		f.t.Fatalf("inquire queue manager: %v", err)
	}
	if want := f.env.Target.QueueManager; info.Name == "" || (want != "" && info.Name != want) {
		f.t.Errorf("name = %q, want %q", info.Name, want)
	}
	if info.CommandLevel < 700 || info.Platform == 0 || info.CCSID <= 0 {
		f.t.Errorf("command level %d, platform %s, CCSID %d", info.CommandLevel, info.Platform, info.CCSID)
	}
	if info.DeadLetterQueue != "" {
		f.inquire(c, info.DeadLetterQueue) // it names a queue that is there
	}
	// The channel instance this connection runs on, when it has one: the
	// one the target names.
	st, err := c.InquireChannelStatus(f.ctx)
	if err != nil {
		f.t.Fatalf("channel status: %v", err)
	}
	if st.Channel != f.env.Target.Channel || (st.Channel != "" && st.Instances < 1) {
		f.t.Errorf("channel status %+v, want channel %q with an instance", st, f.env.Target.Channel)
	}
}

// testInquireQueueStatus reads a queue's status from another connection
// than the one with an open unit of work. A backend that does not monitor
// the queue (IBM MQ with MONQ(OFF)) says so and leaves the monitored
// figures zero; one that does reports an oldest age no older than the
// first put and a last put no earlier than a second before it (IBM MQ
// keeps whole seconds).
func testInquireQueueStatus(f *fixture) {
	reader := f.connect()
	st, err := reader.InquireQueueStatus(f.ctx, f.env.Queue)
	if err != nil {
		f.t.Fatalf("status of a fresh queue: %v", err)
	}
	if st.Name != f.env.Queue || st.CurrentDepth != 0 || st.Uncommitted != 0 || st.OldestMessageAge != 0 {
		f.t.Errorf("fresh queue: %+v", st)
	}

	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	f.open(c, f.env.Queue, mq.OpenInputShared)
	firstPut := time.Now()
	f.put(out, "a", mq.PutOptions{}, nil)
	f.put(out, "b", mq.PutOptions{}, nil)
	f.put(out, "uncommitted", mq.PutOptions{Syncpoint: true}, nil)
	st, err = reader.InquireQueueStatus(f.ctx, f.env.Queue)
	read := time.Now()
	if err != nil {
		f.t.Fatalf("status: %v", err)
	}
	if st.CurrentDepth != 3 || st.Uncommitted != 1 || st.OpenInputCount != 1 || st.OpenOutputCount != 1 {
		f.t.Errorf("got depth %d, uncommitted %d, input %d, output %d; want 3, 1, 1, 1",
			st.CurrentDepth, st.Uncommitted, st.OpenInputCount, st.OpenOutputCount)
	}
	if !st.Monitored {
		if st.OldestMessageAge != 0 || !st.LastPut.IsZero() || st.QueueTimeKnown {
			f.t.Errorf("unmonitored queue reports monitored figures: %+v", st)
		}
	} else {
		if st.OldestMessageAge < 0 || st.OldestMessageAge > read.Sub(firstPut) {
			f.t.Errorf("oldest message age %s, want between 0 and %s", st.OldestMessageAge, read.Sub(firstPut))
		}
		if st.LastPut.Before(firstPut.Add(-time.Second).Truncate(time.Second)) || st.LastPut.After(read) {
			f.t.Errorf("last put %s, want between %s and %s", st.LastPut, firstPut, read)
		}
		if st.QueueTimeKnown || !st.LastGet.IsZero() {
			f.t.Errorf("queue time or last get before any get: %+v", st)
		}
	}

	_, err = reader.InquireQueueStatus(f.ctx, f.env.MissingQueue)
	WantReason(f.t, err, mq.ReasonUnknownObjectName)
}

func testConnectRefused(f *fixture) {
	for _, rc := range []mq.Reason{mq.ReasonHostNotAvailable, mq.ReasonQMgrNotAvailable} {
		f.env.Faults.RefuseConnect(rc)
		_, err := f.env.Backend.Connect(f.ctx, f.env.Target)
		if e := WantReason(f.t, err, rc); !e.Transient() || !mq.IsConnectionBroken(err) {
			f.t.Errorf("%s not classified transient connection failure", rc)
		}
	}

	// The pool retries with backoff, then reports the last reason.
	var retries int
	pool := f.fastPool(f.env.Backend, func(mq.Target, int, time.Duration, error) { retries++ })
	_, err := pool.Acquire(f.ctx, f.env.Target)
	WantReason(f.t, err, mq.ReasonQMgrNotAvailable)
	if retries != 2 {
		f.t.Errorf("pool retried %d times, want 2 (3 attempts)", retries)
	}

	// A queue manager that comes back during the backoff is reached.
	pool = f.fastPool(f.env.Backend, func(mq.Target, int, time.Duration, error) { f.env.Faults.RefuseConnect(0) })
	pc, err := pool.Acquire(f.ctx, f.env.Target)
	if err != nil {
		f.t.Fatalf("acquire after the queue manager came back: %v", err)
	}
	pc.Close()

	// An unknown queue manager name: IBM's client answers 2059 when the
	// listener belongs to another queue manager and 2058 when the name
	// resolves to nothing (a CCDT without it; the embedded backend). 2058 is
	// a mistake, not an outage: the pool does not retry it.
	unknown := f.env.Target
	unknown.QueueManager = "NOSUCHQM"
	_, err = f.env.Backend.Connect(f.ctx, unknown)
	e, ok := mq.AsError(err)
	if !ok || (e.Reason != mq.ReasonQMgrNotAvailable && e.Reason != mq.ReasonQMgrNameError) {
		f.t.Fatalf("unknown queue manager: %v, want 2058 or 2059", err)
	}
	if e.Reason == mq.ReasonQMgrNameError {
		retries = 0
		pool = f.fastPool(f.env.Backend, func(mq.Target, int, time.Duration, error) { retries++ })
		_, err = pool.Acquire(f.ctx, unknown)
		if WantReason(f.t, err, mq.ReasonQMgrNameError); e.Transient() || retries != 0 {
			f.t.Errorf("2058: transient %v, retried %d times; want permanent, no retry", e.Transient(), retries)
		}
	}
}

func testPoolReconnect(f *fixture) {
	counter := &CountingBackend{Backend: f.env.Backend}
	var retried []error
	pool := f.fastPool(counter, func(_ mq.Target, _ int, _ time.Duration, err error) {
		retried = append(retried, err)
		f.env.Faults.RefuseConnect(0) // the queue manager is back
	})
	// putOne puts and commits on a pooled connection, as handlers do.
	putOne := func(text string) (broken bool, err error) {
		pc, err := pool.Acquire(f.ctx, f.env.Target)
		if err != nil {
			return false, err
		}
		defer pc.Close()
		q, err := pc.OpenQueue(f.ctx, f.env.Queue, mq.OpenOutput)
		if err == nil {
			_, err = q.Put(f.ctx, &mq.Message{Payload: []byte(text)}, mq.PutOptions{Syncpoint: true})
		}
		if err == nil {
			err = pc.Commit(f.ctx)
		}
		return pc.Broken(), err
	}
	for i := range 10 {
		if _, err := putOne(fmt.Sprint("before-", i)); err != nil {
			f.t.Fatalf("put through pool: %v", err)
		}
	}
	if n := counter.Connects.Load(); n != 1 {
		f.t.Fatalf("10 operations made %d connections, want 1", n)
	}
	// A second idle connection, to be discarded along with the one that
	// turns out broken.
	a, err := pool.Acquire(f.ctx, f.env.Target)
	if err != nil {
		f.t.Fatalf("acquire: %v", err)
	}
	b, err := pool.Acquire(f.ctx, f.env.Target)
	if err != nil {
		f.t.Fatalf("acquire: %v", err)
	}
	a.Close()
	b.Close()
	if st := pool.Stats(f.env.Target); st.InUse != 0 || st.Idle != 2 {
		f.t.Fatalf("pool stats %+v, want 0 in use, 2 idle", st)
	}

	// The queue manager restarts: connections break, and it refuses
	// connections until the pool's first backoff.
	f.env.Faults.BreakConnections()
	f.env.Faults.RefuseConnect(mq.ReasonQMgrNotAvailable)
	broken, err := putOne("lost")
	WantReason(f.t, err, mq.ReasonConnectionBroken)
	if !broken {
		f.t.Error("2009 did not mark the pooled connection broken")
	}
	if st := pool.Stats(f.env.Target); st.InUse != 0 || st.Idle != 0 {
		f.t.Errorf("pool stats %+v after a broken connection, want its idle ones discarded too", st)
	}
	if n := counter.Connects.Load(); n != 2 || len(retried) != 0 {
		f.t.Errorf("%d connections and retries %v before reconnecting, want 2 and none", n, retried)
	}
	if _, err := putOne("after"); err != nil {
		f.t.Fatalf("put through pool after break: %v", err)
	}
	if len(retried) != 1 || !mq.IsReason(retried[0], mq.ReasonQMgrNotAvailable) {
		f.t.Errorf("pool retried on %v, want one MQRC_Q_MGR_NOT_AVAILABLE", retried)
	}
	if n := counter.Connects.Load(); n != 4 {
		f.t.Errorf("connection attempts after break = %d, want 4 (2, a refused one, a new one)", n)
	}
	if st := pool.Stats(f.env.Target); st.InUse != 0 || st.Idle != 1 {
		f.t.Errorf("pool stats %+v, want 0 in use, 1 idle", st)
	}

	// A connection held across the break reports 2009.
	pc, err := pool.Acquire(f.ctx, f.env.Target)
	if err != nil {
		f.t.Fatalf("acquire: %v", err)
	}
	f.env.Faults.BreakConnections()
	_, err = pc.OpenQueue(f.ctx, f.env.Queue, mq.OpenOutput)
	if e := WantReason(f.t, err, mq.ReasonConnectionBroken); !e.Transient() || !pc.Broken() {
		f.t.Error("2009 not classified as a transient broken connection")
	}
	pc.Close()

	c := f.connect()
	f.wantDepth(c, f.env.Queue, 11)
}

func testFailNthPut(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	f.env.Faults.FailNth(OpPut, 2, mq.ReasonResourceProblem)
	f.put(out, "1", mq.PutOptions{}, nil)
	_, err := out.Put(f.ctx, &mq.Message{Payload: []byte("2")}, mq.PutOptions{})
	WantReason(f.t, err, mq.ReasonResourceProblem)
	f.put(out, "3", mq.PutOptions{}, nil)
	f.wantDepth(c, f.env.Queue, 2)
	f.getText(in, mq.GetOptions{}, "1")
	f.getText(in, mq.GetOptions{}, "3")
}

// batchOf is a batch of msg's descriptor and properties with bodies.
func batchOf(msg *mq.Message, bodies ...string) *mq.Batch {
	b := &mq.Batch{Message: msg}
	for _, body := range bodies {
		b.Bodies = append(b.Bodies, body...)
		b.Ends = append(b.Ends, int32(len(b.Bodies)))
	}
	return b
}

// testPutBatch: mq.PutBatch puts a batch's messages in order, each with
// its own body and the descriptor and properties they share, under
// syncpoint until the commit, and reports the first and the last; each
// timed put gets its duration.
func testPutBatch(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	bodies := []string{"one", "", "three", "four"}
	b := batchOf(&mq.Message{Format: mq.FormatString, Priority: 3, Properties: mq.Properties{"k": "v"}}, bodies...)
	b.Timed, b.Elapsed = []int32{0, 3}, make([]time.Duration, 2)
	res, err := mq.PutBatch(f.ctx, out, b, mq.PutOptions{Syncpoint: true})
	if err != nil || res.Put != len(bodies) {
		f.t.Fatalf("PutBatch: %+v, %v; want %d put", res, err, len(bodies))
	}
	f.noMessage(in, mq.GetOptions{})
	if err := c.Commit(f.ctx); err != nil {
		f.t.Fatal(err)
	}
	for i, want := range bodies {
		m := f.getText(in, mq.GetOptions{}, want)
		if m.Format != mq.FormatString || m.Priority != 3 || m.Properties["k"] != "v" {
			f.t.Errorf("message %d: Format %q Priority %d properties %v; want the batch's MQSTR, 3, k=v", i, m.Format, m.Priority, m.Properties)
		}
		if (i == 0 && m.MsgID != res.First.MsgID) || (i == len(bodies)-1 && m.MsgID != res.Last.MsgID) {
			f.t.Errorf("message %d has MsgId %s; the batch reported first %s, last %s", i, m.MsgID, res.First.MsgID, res.Last.MsgID)
		}
	}
	if b.Elapsed[0] <= 0 || b.Elapsed[1] <= 0 {
		f.t.Errorf("timed puts took %v, want durations", b.Elapsed)
	}
}

// testFailNthPutInBatch: a batch stops at the put that fails, reporting
// how many went before it, which are on the queue.
func testFailNthPutInBatch(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	f.env.Faults.FailNth(OpPut, 3, mq.ReasonResourceProblem)
	res, err := mq.PutBatch(f.ctx, out, batchOf(&mq.Message{}, "1", "2", "3", "4"), mq.PutOptions{})
	WantReason(f.t, err, mq.ReasonResourceProblem)
	if res.Put != 2 {
		f.t.Errorf("PutBatch reported %d put, want the 2 before the failure", res.Put)
	}
	f.wantDepth(c, f.env.Queue, 2)
	f.getText(in, mq.GetOptions{}, "1")
	f.getText(in, mq.GetOptions{}, "2")
}

func testFailNthGet(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	f.put(out, "only", mq.PutOptions{}, nil)
	f.env.Faults.FailNth(OpGet, 1, mq.ReasonUnexpectedError)
	var msg mq.Message
	err := in.Get(f.ctx, &msg, mq.GetOptions{})
	WantReason(f.t, err, mq.ReasonUnexpectedError)
	f.wantDepth(c, f.env.Queue, 1)
	f.getText(in, mq.GetOptions{}, "only")
}

func testFailNthCommit(f *fixture) {
	a, b := f.connect(), f.connect()
	out := f.open(a, f.env.Queue, mq.OpenOutput)
	bIn := f.open(b, f.env.Queue, mq.OpenInputShared)
	f.put(out, "before", mq.PutOptions{}, nil)
	aIn := f.open(a, f.env.Queue, mq.OpenInputShared)
	f.getText(aIn, mq.GetOptions{Syncpoint: true}, "before")

	f.env.Faults.FailNth(OpCommit, 1, mq.ReasonBackedOut)
	f.put(out, "lost-1", mq.PutOptions{Syncpoint: true}, nil)
	f.put(out, "lost-2", mq.PutOptions{Syncpoint: true}, nil)
	err := a.Commit(f.ctx)
	if e := WantReason(f.t, err, mq.ReasonBackedOut); !e.Transient() {
		f.t.Error("2003 classified permanent")
	}
	// The failed commit backed out: the puts vanished, the get came back.
	f.wantDepth(b, f.env.Queue, 1)
	if m := f.getText(bIn, mq.GetOptions{}, "before"); m.BackoutCount != 1 {
		f.t.Errorf("BackoutCount = %d, want 1", m.BackoutCount)
	}
	f.noMessage(bIn, mq.GetOptions{})

	f.put(out, "kept", mq.PutOptions{Syncpoint: true}, nil)
	f.commit(a)
	f.getText(bIn, mq.GetOptions{}, "kept")
}

func testDropNthPut(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	f.env.Faults.DropNth(2)
	f.put(out, "1", mq.PutOptions{}, nil)
	if res := f.put(out, "2", mq.PutOptions{}, nil); res.MsgID.IsZero() {
		f.t.Error("dropped put returned no MsgId; it must look successful")
	}
	f.put(out, "3", mq.PutOptions{}, nil)
	f.wantDepth(c, f.env.Queue, 2)
	f.getText(in, mq.GetOptions{}, "1")
	f.getText(in, mq.GetOptions{}, "3")
	f.noMessage(in, mq.GetOptions{})

	// Under syncpoint the message is held until the commit discards it.
	f.env.Faults.DropNth(1)
	f.put(out, "tx", mq.PutOptions{Syncpoint: true}, nil)
	f.put(out, "kept", mq.PutOptions{Syncpoint: true}, nil)
	f.wantDepth(c, f.env.Queue, 2)
	f.commit(c)
	f.wantDepth(c, f.env.Queue, 1)
	f.getText(in, mq.GetOptions{}, "kept")
	f.noMessage(in, mq.GetOptions{})
}

func testDuplicateNthPut(f *fixture) {
	c := f.connect()
	out := f.open(c, f.env.Queue, mq.OpenOutput)
	in := f.open(c, f.env.Queue, mq.OpenInputShared)
	f.env.Faults.DuplicateNth(2)
	f.put(out, "1", mq.PutOptions{}, nil)
	res := f.put(out, "2", mq.PutOptions{}, func(m *mq.Message) {
		m.CorrelID = id("dup-correl")
		m.Properties = mq.Properties{"seq": int64(2)}
	})
	f.put(out, "3", mq.PutOptions{}, nil)
	f.wantDepth(c, f.env.Queue, 4)
	f.getText(in, mq.GetOptions{}, "1")
	for i := range 2 {
		m := f.getText(in, mq.GetOptions{}, "2")
		if m.MsgID != res.MsgID || m.CorrelID != id("dup-correl") || m.Properties["seq"] != int64(2) {
			f.t.Errorf("copy %d: MsgId %s CorrelId %s properties %v; want %s, the correlId and seq=2",
				i, m.MsgID, m.CorrelID, m.Properties, res.MsgID)
		}
	}
	f.getText(in, mq.GetOptions{}, "3")
	f.noMessage(in, mq.GetOptions{})

	// Under syncpoint the copy appears at commit; a backout leaves neither.
	f.env.Faults.DuplicateNth(1)
	f.put(out, "tx", mq.PutOptions{Syncpoint: true}, nil)
	f.wantDepth(c, f.env.Queue, 1)
	f.commit(c)
	f.wantDepth(c, f.env.Queue, 2)
	f.getText(in, mq.GetOptions{}, "tx")
	f.getText(in, mq.GetOptions{}, "tx")
	f.env.Faults.DuplicateNth(1)
	f.put(out, "undone", mq.PutOptions{Syncpoint: true}, nil)
	f.backout(c)
	f.wantDepth(c, f.env.Queue, 0)
}

// aliasAndRemote returns the alias and remote definition the harness
// promised.
func (f *fixture) aliasAndRemote() (alias, remote string) {
	if f.env.AliasQueue == "" || f.env.RemoteQueue == "" {
		f.t.Fatalf("the harness defines alias and remote queues but Env names alias %q and remote %q", f.env.AliasQueue, f.env.RemoteQueue)
	}
	return f.env.AliasQueue, f.env.RemoteQueue
}

func testAliasQueue(f *fixture) {
	alias, _ := f.aliasAndRemote()
	c := f.connect()
	info := f.inquire(c, alias)
	if want := (mq.QueueInfo{Name: alias, Type: mq.QueueAlias, BaseQueue: f.env.Queue}); info != want {
		f.t.Errorf("inquire alias: %+v, want %+v (depths and limits are the base queue's)", info, want)
	}
	q := f.open(c, alias, mq.OpenOutput|mq.OpenInputShared|mq.OpenBrowse)
	if q.Name() != alias {
		f.t.Errorf("handle name %q, want the alias as opened", q.Name())
	}
	f.put(q, "through the alias", mq.PutOptions{}, nil)
	f.wantDepth(c, f.env.Queue, 1)
	f.getText(q, mq.GetOptions{Browse: mq.BrowseFirst}, "through the alias")
	f.getText(f.open(c, f.env.Queue, mq.OpenInputShared), mq.GetOptions{}, "through the alias")
}

// reasonOptionNotValidForType is MQRC_OPTION_NOT_VALID_FOR_TYPE.
const reasonOptionNotValidForType mq.Reason = 2045

func testRemoteQueue(f *fixture) {
	_, remote := f.aliasAndRemote()
	c := f.connect()
	info := f.inquire(c, remote)
	if info.Type != mq.QueueRemote || info.Name != remote || info.RemoteQueue == "" || info.RemoteQueueManager == "" || info.CurrentDepth != 0 {
		f.t.Errorf("inquire remote definition: %+v", info)
	}
	for _, opts := range []mq.OpenOption{mq.OpenInputShared, mq.OpenBrowse} {
		_, err := c.OpenQueue(f.ctx, remote, opts)
		WantReason(f.t, err, reasonOptionNotValidForType)
	}
	f.put(f.open(c, remote, mq.OpenOutput), "for the remote queue manager", mq.PutOptions{}, nil)
	f.wantDepth(c, f.env.OtherQueue, 1)
	f.getText(f.open(c, f.env.OtherQueue, mq.OpenInputShared), mq.GetOptions{}, "for the remote queue manager")
}
