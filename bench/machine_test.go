package main

import (
	"strconv"
	"strings"
	"testing"
)

func TestStealShare(t *testing.T) {
	start := parseCPUTimes("cpu  100 0 50 800 10 0 5 35 0 0\ncpu0 50 0 25 400 5 0 2 18 0 0\n")
	end := parseCPUTimes("cpu  300 0 100 1300 10 0 5 85 0 0\n")
	// 800 ticks passed, 50 of them stolen.
	if got := start.stealShare(end); got != "6.2%" {
		t.Errorf("steal share %q, want 6.2%%", got)
	}
	for _, stat := range []string{"", "intr 1 2 3\n", "cpu 1 2 3\n", "cpu 1 2 3 4 5 6 7 x 0 0\n"} {
		bad := parseCPUTimes(stat)
		if got := bad.stealShare(end); !strings.HasPrefix(got, "unknown: ") {
			t.Errorf("stat %q: steal share %q, want unknown with why", stat, got)
		}
	}
	if got := end.stealShare(end); got != "unknown: no CPU time passed" {
		t.Errorf("no time passed: %q", got)
	}
}

func TestReferenceMs(t *testing.T) {
	ms, err := strconv.ParseFloat(referenceMs(), 64)
	if err != nil || ms <= 0 {
		t.Errorf("reference %v ms (%v), want a positive duration", ms, err)
	}
}
