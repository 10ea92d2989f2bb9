package main

import (
	"runtime/debug"
	"testing"
)

// TestDefaultGCPercent: `mqprobe run` collects at 50% heap growth unless
// GOGC is set, which keeps its meaning.
func TestDefaultGCPercent(t *testing.T) {
	original := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(original) })

	setDefaultGCPercent(func(string) (string, bool) { return "", false })
	if got := debug.SetGCPercent(100); got != defaultGCPercent || defaultGCPercent != 50 {
		t.Errorf("GOGC unset: GC percent %d, want 50", got)
	}

	setDefaultGCPercent(func(name string) (string, bool) { return "200", name == "GOGC" })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent changed to %d, want it left as the runtime set it (100 here)", got)
	}
}
