package handlers

import (
	"context"
	"errors"
	"fmt"
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
	stop  context.CancelCauseFunc
	mu    sync.Mutex
	stats probe.Stats
}

// liveEvery is how fresh the statistics of a running test are.
const liveEvery = 500 * time.Millisecond

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

// Live returns the latest statistics of tenant's running test id.
func (t *Tests) Live(tenant, id string) (probe.Stats, bool) {
	t.mu.Lock()
	r, ok := t.runs[testID{tenant, id}]
	t.mu.Unlock()
	if !ok {
		return probe.Stats{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats, true
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
	r := &testRun{stop: stop}
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
	stats, err := probe.Run(ctx, run.Conns, cfg, func(s probe.Stats) {
		r.mu.Lock()
		r.stats = s
		r.mu.Unlock()
		if run.Report != nil && reportEvery > 0 && time.Since(lastReport) >= reportEvery {
			lastReport = time.Now()
			run.Report(ctx, s)
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
