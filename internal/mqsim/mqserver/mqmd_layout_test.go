package mqserver

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// The MQMD copied as memory (mdIsWireLayout) reads and writes exactly what
// encoding/binary does field by field, little-endian, as cmqc.h lays it out.
func TestMDCopyMatchesFieldByField(t *testing.T) {
	if !mdIsWireLayout {
		t.Fatalf("md is not the wire's layout on this machine (size %d): the copy path is not used here", mdLength)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		wire := make([]byte, mdLength)
		for i := range wire {
			wire[i] = byte(rng.Uint32())
		}
		var want md
		if _, err := binary.Decode(wire, binary.LittleEndian, &want); err != nil {
			t.Fatal(err)
		}
		got := decodeMD(&decoder{b: wire})
		if got != want {
			t.Fatalf("decodeMD = %+v, want %+v", got, want)
		}
		var e encoder
		e.md(&got)
		if !bytes.Equal(e.buf, wire) {
			t.Fatalf("encoded MQMD differs from the bytes it was decoded from")
		}
	}
}
