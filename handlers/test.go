package handlers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/probe"
)

// Tests runs TEST commands and keeps what the API shows of
// them while they run: live statistics, and a way to stop them.
type Tests struct {
	limits TestLimits

	mu   sync.Mutex
	runs map[testID]*testRun
}

// testID names a test run: its idempotency key within its tenant ("" for
// the implicit one), so equal keys of two tenants are two runs.
type testID struct{ tenant, key string }

type testRun struct {
	stop   context.CancelCauseFunc
	plan   TestPlan
	mu     sync.Mutex
	stats  probe.Stats
	series []TestPoint // the latest maxTestPoints, oldest first
}

// liveEvery is how fresh the statistics of a running test are, and how
// far apart the points of its series.
const liveEvery = 500 * time.Millisecond

// maxTestPoints bounds a running test's series: its last 10 minutes.
const maxTestPoints = int(10 * time.Minute / liveEvery)

// TestPoint is one moment of a running test: its totals then, and the
// round trips of the interval since the previous point, whose latency
// percentiles are absent when none came back in it.
type TestPoint struct {
	// N numbers the points of a run from 1.
	N         int64 `json:"n"`
	ElapsedMs int64 `json:"elapsedMs"`
	Sent      int64 `json:"sent"`
	Received  int64 `json:"received"`
	Lost      int64 `json:"lost"`
	// RatePerSec is the round trips completed per second in the interval.
	RatePerSec float64  `json:"ratePerSec"`
	P50Ms      *float64 `json:"p50Ms,omitempty"`
	P99Ms      *float64 `json:"p99Ms,omitempty"`
}

// LiveTest is a running test: what it was asked to do, its statistics so
// far and the points of its series asked for.
type LiveTest struct {
	Plan   TestPlan
	Stats  probe.Stats
	Series []TestPoint
}

// record adds a progress report to r as its statistics and next point.
func (r *testRun) record(p probe.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	point := TestPoint{N: 1, ElapsedMs: p.Stats.Elapsed.Milliseconds(), Sent: p.Stats.Sent,
		Received: p.Stats.Received, Lost: p.Stats.Lost}
	interval := p.Stats.Elapsed
	if n := len(r.series); n > 0 {
		point.N = r.series[n-1].N + 1
		interval -= time.Duration(r.series[n-1].ElapsedMs) * time.Millisecond
	}
	if interval > 0 {
		point.RatePerSec = math.Round(float64(p.Window.Received)/interval.Seconds()*10) / 10
	}
	if p.Window.Received > 0 {
		p50, p99 := p.Window.LatencyMs.P50, p.Window.LatencyMs.P99
		point.P50Ms, point.P99Ms = &p50, &p99
	}
	if len(r.series) == maxTestPoints {
		r.series = slices.Delete(r.series, 0, 1)
	}
	r.stats, r.series = p.Stats, append(r.series, point)
}

func newTests(limits TestLimits) *Tests {
	return &Tests{limits: limits, runs: map[testID]*testRun{}}
}

// LimitError refuses a TEST over the configured limits.
type LimitError struct{ Message string }

func (e *LimitError) Error() string { return e.Message }

// Admit says whether cmd may start now: within the concurrency and
// duration limits. Other operations are always admitted.
func (t *Tests) Admit(cmd command.Command) error {
	if cmd.OperationType != command.Test {
		return nil
	}
	if d := time.Duration(cmd.DurationSeconds) * time.Second; d > t.limits.MaxDuration {
		return &LimitError{fmt.Sprintf("durationSeconds %d exceeds tests.maxDuration (%s)", cmd.DurationSeconds, t.limits.MaxDuration)}
	}
	if cmd.DurationSeconds == 0 && cmd.Batch != nil && cmd.Batch.RateLimitPerSec != nil {
		if d := time.Duration(cmd.Count) * time.Second / time.Duration(*cmd.Batch.RateLimitPerSec); d > t.limits.MaxDuration {
			return &LimitError{fmt.Sprintf("count %d at %d/s would run %s, over tests.maxDuration (%s)", cmd.Count, *cmd.Batch.RateLimitPerSec, d, t.limits.MaxDuration)}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.runs) >= t.limits.MaxConcurrent {
		return &LimitError{fmt.Sprintf("%d tests are running, the most tests.maxConcurrent allows", len(t.runs))}
	}
	return nil
}

// Live returns the latest statistics of tenant's running test id, and the
// points of its series numbered above after (of its last 10 minutes).
func (t *Tests) Live(tenant, id string, after int64) (LiveTest, bool) {
	t.mu.Lock()
	r, ok := t.runs[testID{tenant, id}]
	t.mu.Unlock()
	if !ok {
		return LiveTest{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i, _ := slices.BinarySearchFunc(r.series, after+1, func(p TestPoint, n int64) int { return cmp.Compare(p.N, n) })
	return LiveTest{Plan: r.plan, Stats: r.stats, Series: slices.Clone(r.series[i:])}, true
}

// Stop ends tenant's running test id early: putting stops, messages in
// flight are drained or counted lost, and its result says stopped. It
// reports whether the test was running here.
func (t *Tests) Stop(tenant, id string) bool {
	t.mu.Lock()
	r, ok := t.runs[testID{tenant, id}]
	t.mu.Unlock()
	if ok {
		r.stop(probe.ErrStopped)
	}
	return ok
}

// Test is the TEST handler.
func (t *Tests) Test(ctx context.Context, run Run) (any, error) {
	cfg := testConfig(run)
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r := &testRun{stop: stop, plan: testPlan(run)}
	id := testID{run.Tenant, run.Key}
	t.mu.Lock()
	if _, dup := t.runs[id]; dup {
		t.mu.Unlock()
		return nil, fmt.Errorf("test %s is already running here", run.Key)
	}
	t.runs[id] = r
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.runs, id)
		t.mu.Unlock()
	}()
	if run.Started != nil {
		run.Started() // GET /tests/{id} and a stop find it from now on
	}
	qm, queue := run.Target.QueueManager, run.Queue
	cfg.OnRoundTrip = func(d time.Duration) { run.Metrics.ProbeRoundTrip(ctx, qm, queue, d) }
	// GET /tests/{id} sees fresh statistics; progress events go out every
	// progressSeconds.
	reportEvery, lastReport := cfg.ProgressEvery, time.Now()
	cfg.ProgressEvery = liveEvery
	stats, err := probe.Run(ctx, run.Conns, cfg, func(p probe.Progress) {
		r.record(p)
		if run.Report != nil && reportEvery > 0 && time.Since(lastReport) >= reportEvery {
			lastReport = time.Now()
			run.Report(ctx, p.Stats)
		}
	})
	run.Metrics.ProbeSuccess(ctx, qm, queue, err == nil && stats.Lost == 0 && stats.Received > 0)
	if err != nil {
		return nil, fmt.Errorf("test: %w", withCause(ctx, err))
	}
	return stats, nil
}

func testConfig(run Run) probe.Config {
	cmd := run.Command
	cfg := probe.Config{Target: run.Target, Queue: run.Queue, ReplyQueue: cmd.ReplyQueue,
		Duration: time.Duration(cmd.DurationSeconds) * time.Second, Count: cmd.Count,
		ProgressEvery: time.Duration(cmd.ProgressSeconds) * time.Second}
	if cmd.Batch != nil {
		cfg.MessageSize = cmd.Batch.MessageSizeBytes
		if cmd.Batch.RateLimitPerSec != nil {
			cfg.Rate = *cmd.Batch.RateLimitPerSec
		}
	}
	if cmd.MQProps != nil {
		cfg.Persistent = cmd.MQProps.Persistence == "persistent"
	}
	return cfg
}

// StopResult is STOP_TEST's data.result.
type StopResult struct {
	TestID  string `json:"testId"`
	Stopped bool   `json:"stopped"` // false: not running on this instance
}

// StopTest is the STOP_TEST handler.
func (t *Tests) StopTest(_ context.Context, run Run) (any, error) {
	if run.Command.TestID == "" {
		return nil, errors.New("stop test: testId is required")
	}
	return StopResult{TestID: run.Command.TestID, Stopped: t.Stop(run.Tenant, run.Command.TestID)}, nil
}
