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

func TestNewRejectsNegativeLimits(t *testing.T) {
	_, err := New(Config{Capture: CaptureLimits{MaxBytes: -1}, Tests: TestLimits{MaxConcurrent: -2}})
	if err == nil || !strings.Contains(err.Error(), "consume.captureMaxBytes: must not be negative") || !strings.Contains(err.Error(), "tests.maxConcurrent: must be at least 1") {
		t.Fatalf("got %v", err)
	}
}
