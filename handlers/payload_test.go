package handlers

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
)

// TestPayloadRunMatchesEachBody: a run of bodies (what a batch put
// sends) holds, back to back, exactly the bodies next makes one at a
// time, run after run on the same storage, and stops at its byte limit.
func TestPayloadRunMatchesEachBody(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *command.Payload
		size int
	}{
		{"random", &command.Payload{Mode: command.PayloadRandom}, 64},
		{"random shorter than a sequence number", &command.Payload{Mode: command.PayloadRandom}, 3},
		{"fixed", &command.Payload{Mode: command.PayloadFixed, FixedBase64: "aGVsbG8="}, 0},
		{"template", &command.Payload{Mode: command.PayloadTemplate, Template: "n={{seq}};"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			seed := [32]byte{1}
			runs, err := newPayload(c.p, c.size, rand.NewChaCha8(seed))
			if err != nil {
				t.Fatal(err)
			}
			each, err := newPayload(c.p, c.size, rand.NewChaCha8(seed))
			if err != nil {
				t.Fatal(err)
			}
			seq := int64(1)
			for _, n := range []int{5, 2, 7, 7} {
				run, ends := runs.nextRun(seq, n, 1<<20, nil)
				if len(ends) != n {
					t.Fatalf("run of %d from %d: %d bodies", n, seq, len(ends))
				}
				var want []byte
				for i := range n {
					want = append(want, each.next(seq+int64(i))...)
				}
				if !bytes.Equal(run, want) || int(ends[n-1]) != len(want) {
					t.Fatalf("run of %d from %d is %q (ends %v), want %q", n, seq, run, ends, want)
				}
				seq += int64(n)
			}
			body := each.next(seq)
			run, ends := runs.nextRun(seq, 100, 2*len(body)+1, nil)
			if len(ends) != 3 || len(run) != 3*len(body) {
				t.Errorf("run limited to %d bytes holds %d bodies, %d bytes; want 3 (it stops once it reaches the limit)",
					2*len(body)+1, len(ends), len(run))
			}
		})
	}
}
