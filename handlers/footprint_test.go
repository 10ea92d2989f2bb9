package handlers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
)

func TestFootprint(t *testing.T) {
	ops, err := New(Config{Capture: CaptureLimits{MaxBytes: 1000, MaxMessageBytes: 100}})
	if err != nil {
		t.Fatal(err)
	}
	batch := func(count, size int) *command.Batch { return &command.Batch{Count: count, MessageSizeBytes: size} }
	for _, c := range []struct {
		name string
		cmd  command.Command
		want int64
	}{
		{"PRODUCE holds one body whatever its count", command.Command{OperationType: command.Produce, Batch: batch(1_000_000, 4096)}, 4096},
		{"PRODUCE fixed, sized by its base", command.Command{OperationType: command.Produce, Batch: batch(10, 0),
			Payload: &command.Payload{Mode: command.PayloadFixed, FixedBase64: "aGVsbG8gd29ybGQh"}}, 12},
		{"TEST holds the body it puts and the one it gets", command.Command{OperationType: command.Test, Batch: batch(0, 1024)}, 2048},
		{"CONSUME holds its capture", command.Command{OperationType: command.Consume, MaxMessages: 5000}, 1000},
		{"DEPTH moves no payload", command.Command{OperationType: command.Depth}, 0},
	} {
		if got := ops.Footprint(c.cmd); got != c.want {
			t.Errorf("%s: Footprint = %d, want %d", c.name, got, c.want)
		}
	}

	// A template's bound covers its longest rendering.
	tmpl := "id={{seq}} u={{ uuid }} at={{timestamp}} {{unknown}}"
	p, err := newPayload(&command.Payload{Mode: command.PayloadTemplate, Template: tmpl}, 0, rand.NewChaCha8([32]byte{}))
	if err != nil {
		t.Fatal(err)
	}
	rendered := len(p.next(math.MaxInt64))
	bound := ops.Footprint(command.Command{OperationType: command.Produce, Batch: batch(1, 0), Payload: &command.Payload{Mode: command.PayloadTemplate, Template: tmpl}})
	if bound < int64(rendered) || bound > int64(rendered)+20 {
		t.Errorf("template bound %d for a %d-byte rendering; want at least it and close to it", bound, rendered)
	}
}
