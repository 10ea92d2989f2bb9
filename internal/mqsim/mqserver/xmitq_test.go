package mqserver

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestRemotePutCarriesTransmissionHeader(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	remote := c.mustOpen("DEV.REMOTE.1", ooOutput)
	app := defaultMD()
	fixed(app.Format[:], "MQSTR")
	r, put := c.put(remote, pmoNoSyncpoint|pmoNewMsgID, app, nil, []byte("hello"))
	wantRC(t, "put to the remote definition", r, ccOK, rcNone)
	if trimmed(put.md.Format[:]) != "MQSTR" {
		t.Errorf("the put's MQMD Format %q, want the application's MQSTR", put.md.Format)
	}

	got := c.mustGet(c.mustOpen("QM2", ooInputShared), gmoNoSyncpoint)
	data := got.data
	if trimmed(got.md.Format[:]) != fmtXmitQHdr || got.md.MsgID != put.md.MsgID || len(data) != xqhLength+5 {
		t.Fatalf("transmission queue message: Format %q MsgId %x, %d bytes; want MQXMIT, the put's MsgId %x, %d bytes",
			got.md.Format, got.md.MsgID, len(data), put.md.MsgID, xqhLength+5)
	}
	header := data[:xqhLength]
	if string(header[:4]) != xqhStrucID || binary.LittleEndian.Uint32(header[4:8]) != xqhVersion1 ||
		trimmed(header[8:56]) != "DEV.QUEUE.1" || trimmed(header[56:104]) != "QM2" {
		t.Fatalf("MQXQH %q: want XQH version 1 for DEV.QUEUE.1 at QM2", header[:104])
	}
	var inner md
	if _, err := binary.Decode(append(bytes.Clone(header[104:]), make([]byte, mdLength-mdLength1)...), binary.LittleEndian, &inner); err != nil {
		t.Fatal(err)
	}
	if string(inner.StrucID[:]) != "MD  " || inner.Version != mdVersion1 || trimmed(inner.Format[:]) != "MQSTR" ||
		inner.MsgID != put.md.MsgID || trimmed(inner.UserIdentifier[:]) != AppUser {
		t.Fatalf("the MQXQH's MsgDesc: %+v, want the application's MQMD version 1", inner)
	}
	if string(data[xqhLength:]) != "hello" {
		t.Fatalf("data after the MQXQH %q, want hello", data[xqhLength:])
	}
}
