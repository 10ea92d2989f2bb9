package handlers

import (
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/probe"
)

// TestStartedOnceTheRunCanBeStopped: a TEST says it started only when its
// run is registered, so what the caller does on that news (watch it, stop
// it) finds the run.
func TestStartedOnceTheRunCanBeStopped(t *testing.T) {
	f := newFixture(t)
	tests := newTests(TestLimits{MaxConcurrent: 1, MaxDuration: time.Minute})
	run := f.run(command.Command{OperationType: command.Test, DurationSeconds: 30,
		Batch: &command.Batch{RateLimitPerSec: ptr(100)}})
	run.Key = "probe-1"
	started := 0
	run.Started = func() {
		started++
		if _, live := tests.Live("", "probe-1"); !live || !tests.Stop("", "probe-1") {
			t.Error("Started was called before the run could be watched and stopped")
		}
	}
	res, err := tests.Test(f.ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if stats := res.(probe.Stats); started != 1 || !stats.Stopped {
		t.Errorf("started %d times, result %+v; want once, and stopped by the stop sent then", started, stats)
	}
}
