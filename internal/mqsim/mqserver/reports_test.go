package mqserver

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// requestingReports is MQMD_DEFAULT asking for report, replies to DEV.QUEUE.2.
func requestingReports(report int32) md {
	m := defaultMD()
	m.Report = report
	fixed(m.ReplyToQ[:], "DEV.QUEUE.2")
	fixed(m.Format[:], "MQSTR")
	return m
}

func TestCOAWithDataOnArrival(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	replies := c.mustOpen("DEV.QUEUE.2", ooInputShared)
	data := bytes.Repeat([]byte("0123456789"), 15)
	r, put := c.put(out, pmoNoSyncpoint|pmoNewMsgID, requestingReports(roCOAWithData), nil, data)
	wantRC(t, "put", r, ccOK, rcNone)

	rep := c.mustGet(replies, gmoNoSyncpoint)
	m := rep.md
	switch {
	case m.MsgType != mtReport || m.Feedback != fbCOA:
		t.Errorf("report MsgType %d Feedback %d, want %d %d", m.MsgType, m.Feedback, mtReport, fbCOA)
	case m.MsgID == put.md.MsgID:
		t.Errorf("report MsgId is the message's: want a new one (MQRO_NEW_MSG_ID)")
	case m.CorrelID != put.md.MsgID:
		t.Errorf("report CorrelId %x, want the message's MsgId %x (MQRO_COPY_MSG_ID_TO_CORREL_ID)", m.CorrelID, put.md.MsgID)
	case !bytes.Equal(rep.data, data[:100]):
		t.Errorf("report data %q, want the first 100 bytes", rep.data)
	case trimmed(m.Format[:]) != "MQSTR" || m.PutApplType != atQMgr || m.Report != 0:
		t.Errorf("report Format %q PutApplType %d Report %d, want MQSTR, %d, 0", m.Format, m.PutApplType, m.Report, atQMgr)
	case trimmed(m.UserIdentifier[:]) != AppUser:
		t.Errorf("report UserIdentifier %q, want the message's %q", m.UserIdentifier, AppUser)
	}
	// No COD until the message is got.
	if d := c.depth("DEV.QUEUE.2"); d != 0 {
		t.Fatalf("reply queue depth %d before the get, want 0", d)
	}
}

func TestCODOnCommittedDestructiveGet(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	in := c.mustOpen("DEV.QUEUE.1", ooInputShared|ooBrowse)
	replies := c.mustOpen("DEV.QUEUE.2", ooInputShared)
	sent := requestingReports(roCODWithFullData | roPassMsgID | roPassCorrelID)
	sent.CorrelID = testID("correl")
	r, put := c.put(out, pmoNoSyncpoint|pmoNewMsgID, sent, nil, []byte(strings.Repeat("x", 150)))
	wantRC(t, "put", r, ccOK, rcNone)

	c.mustGet(in, gmoBrowseFirst)
	if d := c.depth("DEV.QUEUE.2"); d != 0 {
		t.Fatalf("a browse made %d reports, want none", d)
	}
	c.mustGet(in, gmoSyncpoint)
	wantRC(t, "backout", c.simple(opBack), ccOK, rcNone)
	if d := c.depth("DEV.QUEUE.2"); d != 0 {
		t.Fatalf("a backed-out get left %d reports, want none", d)
	}
	c.mustGet(in, gmoSyncpoint)
	if d := c.depth("DEV.QUEUE.2"); d != 1 {
		t.Fatalf("uncommitted COD: depth %d, want 1 (counted, not yet available)", d)
	}
	wantRC(t, "commit", c.simple(opCmit), ccOK, rcNone)

	rep := c.mustGet(replies, gmoNoSyncpoint)
	m := rep.md
	switch {
	case m.Feedback != fbCOD:
		t.Errorf("report Feedback %d, want %d", m.Feedback, fbCOD)
	case m.MsgID != put.md.MsgID || m.CorrelID != testID("correl"):
		t.Errorf("report MsgId %x CorrelId %x, want the message's (MQRO_PASS_MSG_ID, MQRO_PASS_CORREL_ID)", m.MsgID, m.CorrelID)
	case len(rep.data) != 150:
		t.Errorf("report data %d bytes, want all 150 (MQRO_COD_WITH_FULL_DATA)", len(rep.data))
	}
}

func TestReportWithoutDataHasNoFormat(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	replies := c.mustOpen("DEV.QUEUE.2", ooInputShared)
	r, _ := c.put(out, pmoNoSyncpoint, requestingReports(roCOA), nil, []byte("body"))
	wantRC(t, "put", r, ccOK, rcNone)
	rep := c.mustGet(replies, gmoNoSyncpoint)
	if len(rep.data) != 0 || !blankField(rep.md.Format[:]) {
		t.Errorf("MQRO_COA report: data %q Format %q, want neither", rep.data, rep.md.Format)
	}
	// A put to a remote definition is not on its destination yet: no COA.
	remote := c.mustOpen("DEV.REMOTE.1", ooOutput)
	r, _ = c.put(remote, pmoNoSyncpoint, requestingReports(roCOA), nil, []byte("body"))
	wantRC(t, "put to a remote definition", r, ccOK, rcNone)
	if d := c.depth("DEV.QUEUE.2"); d != 0 {
		t.Errorf("a put to the transmission queue made %d COA reports, want none", d)
	}
}

func TestGetLongerThanChannelMaxMsgLength(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	c.mustPut(out, pmoNoSyncpoint, strings.Repeat("y", 64))

	small := dial(t, s.Addr().String())
	r, conn := small.connect(connectArgs{qmgr: "QM1", channel: AppChannel, maxMsgLength: 20})
	wantRC(t, "connect", r, ccOK, rcNone)
	if conn.maxMsgLength != 20 {
		t.Fatalf("negotiated MaxMsgLength %d, want 20", conn.maxMsgLength)
	}
	in := small.mustOpen("DEV.QUEUE.1", ooInputShared)
	for _, gmo := range []int32{gmoNoSyncpoint, gmoNoSyncpoint | gmoAcceptTruncated} {
		r, _ = small.get(in, getArgs{gmo: gmo, bufferLength: 1 << 20})
		wantRC(t, "get of 64 bytes over a channel of 20", r, ccFailed, rcDataLengthError)
	}
	// The message stayed, for a connection that may receive it.
	if got := c.mustGet(c.mustOpen("DEV.QUEUE.1", ooInputShared), gmoNoSyncpoint); len(got.data) != 64 {
		t.Fatalf("got %d bytes, want the 64 left on the queue", len(got.data))
	}
}

func TestExpirationReportWhenDiscarded(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	browse := c.mustOpen("DEV.QUEUE.1", ooBrowse)
	sent := requestingReports(roExpirationWithData)
	sent.Expiry = 1 // a tenth of a second
	r, put := c.put(out, pmoNoSyncpoint|pmoNewMsgID, sent, nil, bytes.Repeat([]byte("e"), 120))
	wantRC(t, "put", r, ccOK, rcNone)
	// The queue manager discards it when a get (a browse here) meets it
	// expired, and the report follows on a connection of the server's own.
	eventually(t, "an expiration report", func() bool {
		r, _ := c.get(browse, getArgs{gmo: gmoBrowseFirst, bufferLength: 1000})
		return r.rc == rcNoMsgAvailableForTest && c.depth("DEV.QUEUE.2") == 1
	})
	rep := c.mustGet(c.mustOpen("DEV.QUEUE.2", ooInputShared), gmoNoSyncpoint)
	if rep.md.Feedback != fbExpiration || rep.md.CorrelID != put.md.MsgID || len(rep.data) != 100 {
		t.Fatalf("report Feedback %d CorrelId %x, %d bytes: want %d, the message's MsgId, 100 bytes",
			rep.md.Feedback, rep.md.CorrelID, len(rep.data), fbExpiration)
	}
}

// rcNoMsgAvailableForTest is MQRC_NO_MSG_AVAILABLE, the queue manager's.
const rcNoMsgAvailableForTest int32 = 2033

func TestReportForAnotherQueueManagerGoesToItsTransmissionQueue(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	sent := requestingReports(roCOA)
	fixed(sent.ReplyToQMgr[:], "QM2")
	r, put := c.put(out, pmoNoSyncpoint|pmoNewMsgID, sent, nil, []byte("body"))
	wantRC(t, "put", r, ccOK, rcNone)
	got := c.mustGet(c.mustOpen("QM2", ooInputShared), gmoNoSyncpoint)
	if trimmed(got.md.Format[:]) != fmtXmitQHdr || len(got.data) != xqhLength {
		t.Fatalf("on the transmission queue: Format %q, %d bytes; want an MQXQH alone", got.md.Format, len(got.data))
	}
	if trimmed(got.data[8:56]) != "DEV.QUEUE.2" || trimmed(got.data[56:104]) != "QM2" {
		t.Fatalf("MQXQH names %q at %q, want DEV.QUEUE.2 at QM2", got.data[8:56], got.data[56:104])
	}
	var inner md
	if _, err := binary.Decode(append(bytes.Clone(got.data[104:]), make([]byte, mdLength-mdLength1)...), binary.LittleEndian, &inner); err != nil {
		t.Fatal(err)
	}
	if inner.MsgType != mtReport || inner.Feedback != fbCOA || inner.CorrelID != put.md.MsgID || inner.MsgID != got.md.MsgID {
		t.Fatalf("the report in the MQXQH: %+v", inner)
	}
}
