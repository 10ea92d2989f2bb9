package main

import (
	"context"
	"strings"
	"testing"
)

// TestSendDepthPrintsHealth: mqprobe send depth prints the queue's health
// and, with thresholds, the verdict and what decided it; a threshold out
// of range is rejected naming the field and the rule.
func TestSendDepthPrintsHealth(t *testing.T) {
	addr := startDaemon(t)
	if _, stderr, status := runCLI(t, context.Background(), "send", "produce", "--addr", addr, "--count", "3"); status != exitCompleted {
		t.Fatalf("produce: exit %d\n%s", status, stderr)
	}
	out, stderr, status := runCLI(t, context.Background(), "send", "depth", "--addr", addr, "--output", "table",
		"--max-depth-share", "0.8", "--max-oldest-age", "300")
	if status != exitCompleted {
		t.Fatalf("depth: exit %d\n%s", status, stderr)
	}
	for _, want := range []string{"current depth", "depth share", "uncommitted messages", "oldest message age s", "last put",
		"verdict", "healthy", "depthShare", "oldestMessageAgeSeconds"} {
		if !strings.Contains(out, want) {
			t.Errorf("send depth output lacks %q:\n%s", want, out)
		}
	}

	out, stderr, status = runCLI(t, context.Background(), "send", "depth", "--addr", addr, "--max-depth-share", "2")
	if status != exitRejected || !strings.Contains(out+stderr, "/thresholds/maxDepthShare") || !strings.Contains(out+stderr, "maximum") {
		t.Errorf("--max-depth-share 2: exit %d, want %d naming /thresholds/maxDepthShare and its maximum\n%s%s", status, exitRejected, out, stderr)
	}

	out, stderr, status = runCLI(t, context.Background(), "send", "connection-test", "--addr", addr, "--output", "table")
	if status != exitCompleted || !strings.Contains(out, "ccsid") || !strings.Contains(out, "DEV.DEAD.LETTER.QUEUE, depth 0") ||
		!strings.Contains(out, "missing channel") {
		t.Errorf("connection-test: exit %d\n%s%s", status, out, stderr)
	}
}
