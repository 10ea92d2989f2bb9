package handlers

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
)

func TestNewCoversEveryOperation(t *testing.T) {
	ops, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range command.Operations {
		if ops.Handlers[op] == nil {
			t.Errorf("no handler for %s", op)
		}
	}
}

// TestDescriptions pins what each operation says of itself.
func TestDescriptions(t *testing.T) {
	type traits struct{ target, creates, checkpoints bool }
	want := map[command.Operation]traits{
		command.Produce:        {target: true, creates: true, checkpoints: true},
		command.Consume:        {target: true, checkpoints: true},
		command.Depth:          {target: true},
		command.ConnectionTest: {target: true},
		command.Test:           {target: true},
		command.StopTest:       {},
		command.Redrive:        {target: true, checkpoints: true},
	}
	for _, op := range command.Operations {
		d := Describe(op)
		if got := (traits{d.NeedsTarget, d.Creates, d.Checkpoints()}); got != want[op] {
			t.Errorf("%s: %+v, want %+v", op, got, want[op])
		}
	}
	if len(want) != len(command.Operations) {
		t.Errorf("the test names %d operations, command has %d", len(want), len(command.Operations))
	}
}

func TestNewRejectsNegativeLimits(t *testing.T) {
	_, err := New(Config{Capture: CaptureLimits{MaxBytes: -1}, Tests: TestLimits{MaxConcurrent: -2}})
	if err == nil || !strings.Contains(err.Error(), "consume.captureMaxBytes: must not be negative") || !strings.Contains(err.Error(), "tests.maxConcurrent: must be at least 1") {
		t.Fatalf("got %v", err)
	}
}
