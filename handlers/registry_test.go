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
	if err == nil || !strings.Contains(err.Error(), "capture max bytes") || !strings.Contains(err.Error(), "tests max concurrent") {
		t.Fatalf("got %v", err)
	}
}
