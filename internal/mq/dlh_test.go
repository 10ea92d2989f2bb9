package mq_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// ibmHeader is an MQDLH laid out field by field as cmqc.h declares it,
// independently of the codec under test.
func ibmHeader(order binary.ByteOrder) []byte {
	var b bytes.Buffer
	pad := func(s string, n int) { b.WriteString(s + string(bytes.Repeat([]byte(" "), n-len(s)))) }
	long := func(v int32) { _ = binary.Write(&b, order, v) }
	pad("DLH ", 4)
	long(1)    // Version
	long(2053) // Reason: MQRC_Q_FULL
	pad("DEV.QUEUE.1", 48)
	pad("QM1", 48)
	long(546)  // Encoding
	long(1208) // CodedCharSetId
	pad("MQSTR", 8)
	long(6) // MQAT_UNIX
	pad("amqsdlh", 28)
	pad("20261127", 8)
	pad("02150342", 8)
	return b.Bytes()
}

func TestDecodeDeadLetterHeaderBothByteOrders(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw := append(ibmHeader(order), "hello"...)
		if len(raw) != mq.DeadLetterHeaderLength+5 {
			t.Fatalf("fixture is %d bytes", len(raw))
		}
		h, body, err := mq.DecodeDeadLetterHeader(raw)
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		want := mq.DeadLetterHeader{Reason: 2053, DestQueue: "DEV.QUEUE.1", DestQMgr: "QM1", Encoding: 546, CCSID: 1208,
			Format: "MQSTR", PutApplType: 6, PutApplName: "amqsdlh",
			PutTime: time.Date(2026, 11, 27, 2, 15, 3, 420*int(time.Millisecond), time.UTC), BigEndian: order == binary.BigEndian}
		if h != want {
			t.Errorf("%v: decoded %+v, want %+v", order, h, want)
		}
		if string(body) != "hello" {
			t.Errorf("%v: body %q", order, body)
		}
		if h.Reason.Name() != "MQRC_Q_FULL" {
			t.Errorf("reason name %q", h.Reason.Name())
		}
		again, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, raw[:mq.DeadLetterHeaderLength]) {
			t.Errorf("%v: Encode differs from IBM's layout:\n got %q\nwant %q", order, again, raw[:mq.DeadLetterHeaderLength])
		}
	}
}

func TestDecodeDeadLetterHeaderRefusesOtherData(t *testing.T) {
	good := ibmHeader(binary.LittleEndian)
	wrongVersion := bytes.Clone(good)
	binary.LittleEndian.PutUint32(wrongVersion[4:], 2)
	for name, data := range map[string][]byte{
		"short":         good[:100],
		"other StrucId": append([]byte("MD  "), good[4:]...),
		"version 2":     wrongVersion,
		"plain text":    bytes.Repeat([]byte("x"), 200),
	} {
		if _, _, err := mq.DecodeDeadLetterHeader(data); !errors.Is(err, mq.ErrNotDeadLetterHeader) {
			t.Errorf("%s: err = %v, want ErrNotDeadLetterHeader", name, err)
		}
	}
}

func TestEncodeDeadLetterHeaderRefusesLongNames(t *testing.T) {
	_, err := mq.DeadLetterHeader{DestQueue: string(bytes.Repeat([]byte("Q"), 49))}.Encode()
	if err == nil {
		t.Fatal("a 49-character DestQName encoded")
	}
}
