package handlers

import (
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/probe"
	"github.com/mqprobe/mqprobe/internal/testenv"
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
		if _, live := tests.Live("", "probe-1", 0); !live || !tests.Stop("", "probe-1") {
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

// TestLiveSeriesGrowsWhileTheRunGoesOn: a running test keeps a point every
// liveEvery, numbered from 1, with the interval's rate and latency; after
// leaves out the points the caller already has.
func TestLiveSeriesGrowsWhileTheRunGoesOn(t *testing.T) {
	f := newFixture(t)
	tests := newTests(TestLimits{MaxConcurrent: 1, MaxDuration: time.Minute})
	run := f.run(command.Command{OperationType: command.Test, DurationSeconds: 30,
		Batch: &command.Batch{RateLimitPerSec: ptr(200)}})
	run.Key = "probe-series"
	done := make(chan error, 1)
	go func() {
		_, err := tests.Test(f.ctx, run)
		done <- err
	}()
	var live LiveTest
	if !testenv.Until(10*time.Second, func() bool {
		live, _ = tests.Live("", run.Key, 0)
		return len(live.Series) >= 3
	}) {
		t.Fatalf("%d points after 10 s, want 3", len(live.Series))
	}
	for i, p := range live.Series {
		if p.N != int64(i+1) || p.Sent == 0 || p.P50Ms == nil || *p.P99Ms < *p.P50Ms || p.RatePerSec <= 0 {
			t.Errorf("point %d: %+v (p50 %v p99 %v), want numbered %d with sends, a rate and latency", i, p, p.P50Ms, p.P99Ms, i+1)
		}
		if i > 0 && p.ElapsedMs <= live.Series[i-1].ElapsedMs {
			t.Errorf("point %d at %d ms, not after the previous one's %d ms", i, p.ElapsedMs, live.Series[i-1].ElapsedMs)
		}
	}
	newer, _ := tests.Live("", run.Key, 2)
	if len(newer.Series) == 0 || newer.Series[0].N != 3 {
		t.Errorf("after 2: points %+v, want from n 3", newer.Series)
	}
	if !tests.Stop("", run.Key) {
		t.Fatal("the run was not running")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, ok := tests.Live("", run.Key, 0); ok {
		t.Error("a finished run is still live")
	}
}

// TestSeriesKeepsTheLastTenMinutes: a long run's series drops its oldest
// points, so a live test holds bounded memory however long it runs.
func TestSeriesKeepsTheLastTenMinutes(t *testing.T) {
	r := &testRun{}
	reports := maxTestPoints + 100
	for i := 1; i <= reports; i++ {
		r.record(probe.Progress{Stats: probe.Stats{Elapsed: time.Duration(i) * liveEvery, Received: int64(i)}, Window: probe.Window{Received: 1}})
	}
	if len(r.series) != maxTestPoints || r.series[0].N != 101 || r.series[len(r.series)-1].N != int64(reports) {
		t.Errorf("kept %d points from n %d to %d, want the last %d", len(r.series), r.series[0].N, r.series[len(r.series)-1].N, maxTestPoints)
	}
	if got := r.series[0].RatePerSec; got != 2 {
		t.Errorf("1 round trip per %s: rate %v/s, want 2", liveEvery, got)
	}
}
