package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/result"
)

// PendingOutcome is a command whose handler has returned, so its outcome
// is known, but whose record the store has not taken yet: the executor
// retries the fenced write until it lands, the lease is lost, or the drain
// abandons it.
type PendingOutcome struct {
	OperationType string        `json:"operationType"`
	Tenant        string        `json:"tenant,omitempty"`
	Key           string        `json:"idempotencyKey"`
	Status        result.Status `json:"status"` // the outcome waiting to be recorded: COMPLETED or FAILED
	Attempt       int           `json:"attempt"`
	Since         time.Time     `json:"since"`
	Cause         string        `json:"cause"` // the store's first error
}

// pendingOutcomes is the executor's set of PendingOutcome, with a signal
// for the drain when it empties.
type pendingOutcomes struct {
	mu      sync.Mutex
	m       map[*PendingOutcome]struct{}
	changed chan struct{} // closed and replaced on every removal
}

func (p *pendingOutcomes) add(o *PendingOutcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[*PendingOutcome]struct{}{}
	}
	p.m[o] = struct{}{}
}

func (p *pendingOutcomes) remove(o *PendingOutcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, o)
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// snapshot returns the pending outcomes, oldest first, and a channel
// closed when one is removed.
func (p *pendingOutcomes) snapshot() ([]PendingOutcome, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PendingOutcome, 0, len(p.m))
	for o := range p.m {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b PendingOutcome) int { return a.Since.Compare(b.Since) })
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return out, p.changed
}

// PendingOutcomes lists the commands whose known outcome waits for the
// store, oldest first.
func (x *Executor) PendingOutcomes() []PendingOutcome {
	out, _ := x.pending.snapshot()
	return out
}

// WaitPending waits until every pending outcome is recorded (or given up
// for a lost lease), or ctx ends; then it returns the ones still pending.
func (x *Executor) WaitPending(ctx context.Context) []PendingOutcome {
	for {
		out, changed := x.pending.snapshot()
		if len(out) == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return out
		}
	}
}

// AbandonPending stops retrying every pending outcome (the process is
// ending; the caller logs each one it abandons), and leaves its command to
// a retry, which finds the record IN_PROGRESS until the
// lease and its grace run out, then takes it over.
func (x *Executor) AbandonPending() { x.stopRecording(errAbandoned) }

var errAbandoned = errors.New("the daemon stopped before the store answered")

// recorded is the end of a fenced final write.
type recorded struct {
	rec idempotency.Record
	err error
}

// record lands a known outcome with write (a fenced Complete or Fail),
// then calls then with the record. A store that fails does not lose the
// outcome: write retries until the store answers (or the lease is lost, or
// AbandonPending), the outcome shows as pending meanwhile, and then runs
// exactly once when it lands. While it is pending, a caller is answered
// OutcomePending at once, unless it waits for the record (AwaitRecord, a
// bus message, which stays invisible meanwhile) as long as ctx lives.
func (x *Executor) record(ctx context.Context, j *job, status result.Status, attempt int,
	write func(context.Context) (idempotency.Record, error), then func(context.Context, idempotency.Record) Outcome) Outcome {
	troubled := make(chan error, 1)
	writeCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(x.recording, func() { cancel(context.Cause(x.recording)) })
	writeCtx = idempotency.WithStoreRetryNotice(writeCtx, func(err error) { troubled <- err })
	landed := make(chan recorded, 1)
	go func() {
		defer cancel(nil)
		defer stop()
		rec, err := write(writeCtx)
		landed <- recorded{rec, err}
	}()
	var cause error
	select {
	case r := <-landed:
		return x.landed(ctx, j, status, r, then)
	case cause = <-troubled:
	}
	p := &PendingOutcome{OperationType: string(j.dec.Command.OperationType), Tenant: j.tenant.Name, Key: j.dec.IdempotencyKey,
		Status: status, Attempt: attempt, Since: time.Now().UTC(), Cause: cause.Error()}
	x.pending.add(p)
	finish := func(ctx context.Context, r recorded) Outcome {
		defer x.pending.remove(p)
		return x.landed(ctx, j, status, r, then)
	}
	pendingErr := fmt.Errorf("%s: %w: %w", j.dec.IdempotencyKey, ErrOutcomePending, cause)
	if j.caller.awaitRecord {
		select {
		case r := <-landed:
			return finish(ctx, r)
		case <-ctx.Done():
		}
	}
	// The caller goes (an HTTP caller at once, a bus message at the drain's
	// deadline); the outcome stays this process's to record.
	go func() {
		publishCtx, release := MergeCancel(ctx, x.recording)
		defer release()
		finish(publishCtx, <-landed)
	}()
	x.Log.Warn("command outcome known but not yet recorded; answering 503 and retrying the store",
		"key", j.dec.IdempotencyKey, "operation", j.dec.Command.OperationType, "status", status, "error", cause)
	return Outcome{Kind: outcome.OutcomePending, RetryAfter: x.cfg.RetryDelay, Err: pendingErr}
}

// ErrOutcomePending explains an OutcomePending outcome.
var ErrOutcomePending = errors.New("outcome known but not yet recorded (the idempotency store is failing; it is retried)")

// landed ends a final write: then on success, else the command is left
// undecided for a retry.
func (x *Executor) landed(ctx context.Context, j *job, status result.Status, r recorded,
	then func(context.Context, idempotency.Record) Outcome) Outcome {
	switch {
	case r.err == nil:
		return then(ctx, r.rec)
	case errors.Is(r.err, idempotency.ErrLeaseLost):
		return x.undecided(j, fmt.Errorf("record %s outcome: another worker took the command over: %w",
			strings.ToLower(string(status)), r.err))
	case errors.Is(r.err, errAbandoned):
		// Logged by the drain that abandoned it.
		return Outcome{Kind: outcome.Undecided, RetryAfter: x.cfg.RetryDelay, Err: r.err}
	}
	return x.undecided(j, fmt.Errorf("record %s outcome: %w", strings.ToLower(string(status)), r.err))
}
