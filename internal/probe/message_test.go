package probe

import (
	"bytes"
	"testing"
	"time"
)

func TestHeaderLayout(t *testing.T) {
	buf := make([]byte, 32)
	h := header{putter: 3, seq: 0x0102030405060708, sentAt: 1500 * time.Microsecond}
	h.encode(buf)
	want := []byte{'M', 'Q', 'P', 'B', 0, 1, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0x16, 0xe3, 0x60}
	if !bytes.Equal(buf[:HeaderSize], want) {
		t.Fatalf("header bytes % x, want % x", buf[:HeaderSize], want)
	}
	got, ok := decodeHeader(buf)
	if !ok || got != h {
		t.Errorf("decoded %+v ok %v, want %+v", got, ok, h)
	}
}

func TestDecodeHeaderRejectsOtherPayloads(t *testing.T) {
	good := make([]byte, HeaderSize)
	header{seq: 1}.encode(good)
	for name, p := range map[string][]byte{
		"short":         good[:HeaderSize-1],
		"text":          []byte("someone else's message, long enough"),
		"other version": append([]byte("MQPB\x00\x02"), good[6:]...),
		"negative seq":  append(append([]byte{}, good[:8]...), 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
	} {
		if _, ok := decodeHeader(p); ok {
			t.Errorf("%s: decoded as a probe header", name)
		}
	}
}

func TestRunIDsDiffer(t *testing.T) {
	a, b := newRunID(), newRunID()
	if a == b || !bytes.HasPrefix(a[:], []byte("MQPROBE:")) {
		t.Errorf("run ids %s and %s", a, b)
	}
}
