//go:build ibmmq

package ibmmq_test

import (
	"testing"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// TestDeadLetterHeaderMatchesIBMs: the MQDLH IBM's Go binding writes (as
// its amqsdlh sample does) decodes field for field, and the one mq encodes
// reads back through IBM's GetHeader.
func TestDeadLetterHeaderMatchesIBMs(t *testing.T) {
	md := mqi.NewMQMD()
	md.Format = mqi.MQFMT_STRING
	dlh := mqi.NewMQDLH(md)
	dlh.Reason = mqi.MQRC_NOT_AUTHORIZED
	dlh.DestQName = "DEST.QUEUE"
	dlh.DestQMgrName = "DEST.QMGR"
	dlh.PutApplName = "amqsdlh"
	dlh.PutDate, dlh.PutTime = "20261127", "02533107"
	ibms := append(dlh.Bytes(), "Hello"...)
	if md.Format != mqi.MQFMT_DEAD_LETTER_HEADER {
		t.Fatalf("NewMQDLH left the MQMD format %q", md.Format)
	}

	h, body, err := mq.DecodeDeadLetterHeader(ibms)
	if err != nil {
		t.Fatal(err)
	}
	if h.Reason != mq.Reason(mqi.MQRC_NOT_AUTHORIZED) || h.Reason.Name() != "MQRC_NOT_AUTHORIZED" || h.DestQueue != "DEST.QUEUE" ||
		h.DestQMgr != "DEST.QMGR" || h.Format != "MQSTR" || h.CCSID != dlh.CodedCharSetId || h.Encoding != dlh.Encoding ||
		h.PutApplName != "amqsdlh" || !h.PutTime.Equal(time.Date(2026, 11, 27, 2, 53, 31, 70*int(time.Millisecond), time.UTC)) ||
		string(body) != "Hello" {
		t.Errorf("decoded IBM's header as %+v, body %q", h, body)
	}

	ours, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	header, n, err := mqi.GetHeader(&mqi.MQMD{Format: mqi.MQFMT_DEAD_LETTER_HEADER, Encoding: dlh.Encoding}, append(ours, "Hello"...))
	if err != nil {
		t.Fatal(err)
	}
	back, ok := header.(*mqi.MQDLH)
	if !ok || n != mq.DeadLetterHeaderLength || back.Reason != dlh.Reason || back.DestQName != dlh.DestQName ||
		back.DestQMgrName != dlh.DestQMgrName || back.Format != dlh.Format || back.PutApplName != dlh.PutApplName ||
		back.PutDate != dlh.PutDate || back.PutTime != dlh.PutTime || back.CodedCharSetId != dlh.CodedCharSetId {
		t.Errorf("IBM reads our header (%d bytes) as %+v, want %+v", n, header, dlh)
	}
	// IBM's Go binding pads names with NULs, the queue manager with blanks
	// (as Encode does): the decoder takes both, so the bytes differ there.
}
