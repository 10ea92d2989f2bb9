package idempotency

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Lease is an Acquired claim. Its holder renews it (Heartbeat, or Hold does
// it), may checkpoint progress, and ends it with Complete, Fail or Release.
// Every one of those writes is fenced by the lease token: once another
// worker has taken the record over, they fail with ErrLeaseLost.
type Lease struct {
	engine    *Engine
	flight    *flight
	disabled  bool
	pk        string
	token     string
	attempt   int
	progress  string
	ttl       time.Duration
	startedAt time.Time

	mu         sync.Mutex
	leaseUntil time.Time // last lease expiry the store confirmed
	written    Record    // the record as last written, for Engine.fits
	expiresAt  time.Time // record expiry as last written
	ended      bool
}

// PK is the record key the lease holds.
func (l *Lease) PK() string { return l.pk }

// Attempt is 1 for a first run, more after a takeover or a retry.
func (l *Lease) Attempt() int { return l.attempt }

// Progress is the checkpoint a previous attempt left, empty on a first run.
func (l *Lease) Progress() string { return l.progress }

// Until is the lease expiry the store last confirmed.
func (l *Lease) Until() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.leaseUntil
}

// Heartbeat extends the lease by the engine's lease period.
func (e *Engine) Heartbeat(ctx context.Context, l *Lease) error {
	return e.renew(ctx, l, nil)
}

// Checkpoint extends the lease and stores progress, which a takeover or a
// retry of the same command receives as Lease.Progress. A failing store is
// retried for up to Config.CheckpointWait (or until ctx ends): the work
// being checkpointed is done (committed), so giving up at once would fail a
// command that a short store outage should only delay, while its caller
// commits nothing more until the checkpoint has landed.
func (e *Engine) Checkpoint(ctx context.Context, l *Lease, progress string) error {
	giveUp := time.Now().Add(e.cfg.CheckpointWait)
	backoff := 20 * time.Millisecond
	for {
		err := e.renew(ctx, l, &progress)
		if err == nil || errors.Is(err, ErrLeaseLost) || IsPermanent(err) {
			return err
		}
		wait := min(backoff, time.Until(giveUp))
		if wait <= 0 || ctx.Err() != nil {
			return fmt.Errorf("checkpoint not stored within idempotency.checkpointWait (%s): %w", e.cfg.CheckpointWait, err)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		backoff = min(2*backoff, time.Second)
	}
}

// The takeover grace. A claim's record says its lease ends one grace after
// the holder itself stops working (holderLeaseEnd), so an instance takes an
// expired lease over only once it has been expired for a whole Lease more:
// a holder whose store came back within that time lands its outcome first.
// Writing the later time into the record needs no store change; a
// store-side condition ("expired for a grace") would have to be built into
// every store's conditional Begin and its conformance suite, for the same
// effect. Records an older version wrote carry no grace, which only makes
// their takeover as early as that version made it.
func (e *Engine) recordedLeaseEnd(now time.Time) time.Time { return now.Add(2 * e.cfg.Lease) }

// holderLeaseEnd is when the holder of rec stops working unless it renews.
func (e *Engine) holderLeaseEnd(rec Record) time.Time { return rec.LeaseExpiresAt.Add(-e.cfg.Lease) }

func (e *Engine) renew(ctx context.Context, l *Lease, progress *string) error {
	if l.disabled {
		return nil
	}
	now := e.now()
	u := Update{Kind: UpdateHeartbeat, Now: now, LeaseExpiresAt: e.recordedLeaseEnd(now), Progress: progress}
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return fmt.Errorf("heartbeat %s: lease already ended: %w", l.pk, ErrLeaseLost)
	}
	if !u.LeaseExpiresAt.Before(l.expiresAt) {
		// Never let the record expire while its holder lives.
		u.ExpiresAt = u.LeaseExpiresAt.Add(e.cfg.Lease)
	}
	l.mu.Unlock()
	if err := e.fits(l, u); err != nil {
		return storeError("heartbeat", fmt.Errorf("%s: %w", l.pk, err))
	}
	rec, err := e.store.Update(ctx, l.pk, l.token, u)
	if err != nil {
		return storeError("heartbeat", fmt.Errorf("%s: %w", l.pk, err))
	}
	l.wrote(u)
	l.mu.Lock()
	l.leaseUntil, l.expiresAt = e.holderLeaseEnd(rec), rec.ExpiresAt
	l.mu.Unlock()
	return nil
}

// Complete stores the command's response and ends the lease; later
// duplicates replay it until the record expires (TTL counted from now).
func (e *Engine) Complete(ctx context.Context, l *Lease, resp Response) (Record, error) {
	now := e.now()
	return e.finish(ctx, l, "complete", Update{Kind: UpdateComplete, Now: now, ExpiresAt: now.Add(l.ttl),
		ResponsePayload: resp.Payload, HTTPStatus: resp.HTTPStatus, DurationMs: now.Sub(l.startedAt).Milliseconds()})
}

// Fail records that the command failed and ends the lease; a later copy with
// the same request hash may retry it, receiving the last checkpoint. resp,
// when given, is the failure's answer (the body its caller got), kept for
// readers of the record: it is never replayed.
func (e *Engine) Fail(ctx context.Context, l *Lease, message string, resp Response) (Record, error) {
	now := e.now()
	return e.finish(ctx, l, "fail", Update{Kind: UpdateFail, Now: now, ExpiresAt: now.Add(l.ttl),
		ErrorMessage: message, ResponsePayload: resp.Payload, HTTPStatus: resp.HTTPStatus,
		DurationMs: now.Sub(l.startedAt).Milliseconds()})
}

// FailAt is Fail for a command whose last checkpoint, progress, may not
// have been stored (its store failed): the record gets progress first, so
// a retry resumes from what the attempt committed, then the failure.
func (e *Engine) FailAt(ctx context.Context, l *Lease, progress, message string, resp Response) (Record, error) {
	now := e.now()
	return e.finish(ctx, l, "fail", Update{Kind: UpdateHeartbeat, Progress: &progress},
		Update{Kind: UpdateFail, Now: now, ExpiresAt: now.Add(l.ttl), ErrorMessage: message,
			ResponsePayload: resp.Payload, HTTPStatus: resp.HTTPStatus, DurationMs: now.Sub(l.startedAt).Milliseconds()})
}

// Release gives the claim up unfinished (for example on shutdown): the lease
// ends now, so another worker can take over at once and resume from the
// last checkpoint.
func (e *Engine) Release(ctx context.Context, l *Lease) error {
	now := e.now()
	_, err := e.finish(ctx, l, "release", Update{Kind: UpdateRelease, Now: now, LeaseExpiresAt: now})
	return err
}

type storeRetryNoticeKey struct{}

// WithStoreRetryNotice returns ctx that makes Complete, Fail and FailAt
// call notice once, with the store's error, when their first write fails
// and they go on retrying: the caller then knows the outcome is pending.
func WithStoreRetryNotice(ctx context.Context, notice func(error)) context.Context {
	return context.WithValue(ctx, storeRetryNoticeKey{}, notice)
}

// finish applies the final fenced updates, in order. The outcome is known
// (the handler has returned), so a failing store is retried with backoff
// for as long as ctx lives, past the lease's end: the fencing token still
// decides, so the write lands unless another worker took the record over
// (ErrLeaseLost), which the takeover grace makes wait for a holder whose
// store came back. Until it returns, this process keeps the pk in flight:
// duplicates here get InProgress, as elsewhere the IN_PROGRESS record.
func (e *Engine) finish(ctx context.Context, l *Lease, op string, updates ...Update) (Record, error) {
	last := updates[len(updates)-1]
	if l.disabled {
		return Record{PK: l.pk, Status: statusOf(last.Kind), ResponsePayload: last.ResponsePayload,
			HTTPStatus: last.HTTPStatus, ErrorMessage: last.ErrorMessage, Attempt: 1}, nil
	}
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return Record{}, fmt.Errorf("%s %s: lease already ended: %w", op, l.pk, ErrLeaseLost)
	}
	l.ended = true
	l.mu.Unlock()
	for _, u := range updates {
		if err := e.fits(l, u); err != nil {
			return Record{}, e.refused(l, op, err)
		}
	}
	defer e.flights.end(l.flight)

	notice, _ := ctx.Value(storeRetryNoticeKey{}).(func(error))
	backoff, failures := 20*time.Millisecond, 0
	finalFailed := false // an attempt of the final write failed: it may have landed
	var rec Record
	for i := 0; i < len(updates); {
		u := updates[i]
		if u.Kind == UpdateHeartbeat {
			// A checkpoint ahead of the final write: keep others off meanwhile.
			u.Now = e.now()
			u.LeaseExpiresAt = e.recordedLeaseEnd(u.Now)
			if keep := u.LeaseExpiresAt.Add(e.cfg.Lease); keep.After(l.expiresAt) {
				u.ExpiresAt = keep
			}
		}
		var err error
		rec, err = e.store.Update(ctx, l.pk, l.token, u)
		if err == nil {
			l.wrote(u)
			i++
			continue
		}
		if errors.Is(err, ErrLeaseLost) && finalFailed {
			// An earlier attempt may have landed unanswered: the record
			// then carries our token and the status we wrote.
			var landed bool
			if rec, landed, err = e.landedUnanswered(ctx, l, u); landed {
				l.wrote(u)
				break
			}
		}
		if errors.Is(err, ErrLeaseLost) {
			return Record{}, fmt.Errorf("%s %s: %w", op, l.pk, err)
		}
		if IsPermanent(err) {
			return Record{}, e.refused(l, op, err)
		}
		if ctx.Err() != nil {
			return Record{}, storeError(op, fmt.Errorf("%s: %w (gave up: %w)", l.pk, err, context.Cause(ctx)))
		}
		finalFailed = finalFailed || i == len(updates)-1
		if failures++; failures == 1 {
			e.log.Warn("idempotency store failed a final write; retrying until it answers",
				"pk", l.pk, "op", op, "attempt", l.attempt, "error", err)
			if notice != nil {
				notice(storeError(op, fmt.Errorf("%s: %w", l.pk, err)))
			}
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
		}
		backoff = min(2*backoff, 2*time.Second)
	}
	if failures > 0 {
		e.log.Info("idempotency store took the final write after retrying", "pk", l.pk, "op", op, "failed_writes", failures)
	}
	e.remember(rec)
	return rec, nil
}

// landedUnanswered reads the record after final write u failed its fence
// on a retry: landed reports that an earlier, unanswered attempt of u had
// written it (the record, ours, is returned). Otherwise err is
// ErrLeaseLost, or the read's error, to retry.
func (e *Engine) landedUnanswered(ctx context.Context, l *Lease, u Update) (rec Record, landed bool, err error) {
	rec, found, err := e.store.Get(ctx, l.pk)
	switch {
	case err != nil:
		return Record{}, false, err
	case found && rec.LeaseToken == l.token && rec.Status == statusOf(u.Kind):
		e.log.Info("idempotency store had taken a final write it did not answer", "pk", l.pk, "attempt", l.attempt, "status", rec.Status)
		return rec, true, nil
	}
	return Record{}, false, ErrLeaseLost
}

func statusOf(k UpdateKind) Status {
	switch k {
	case UpdateComplete:
		return StatusCompleted
	case UpdateFail:
		return StatusFailed
	}
	return StatusInProgress
}

// Hold runs fn while renewing l every lease/3. The moment the lease is lost
// (taken over) fn's context is cancelled with cause ErrLeaseLost, and Hold
// returns an error matching ErrLeaseLost once fn returns. When it could not
// be renewed before it ran out, fn's context is cancelled with cause
// ErrLeaseExpired and Hold returns fn's error joined with that one (nil if
// fn succeeded anyway); the lease may still be finished. Otherwise it
// returns fn's error.
func (e *Engine) Hold(ctx context.Context, l *Lease, fn func(ctx context.Context) error) error {
	if l.disabled {
		return fn(ctx)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := make(chan struct{})
	lost := make(chan error, 1)
	go func() {
		err := e.keepAlive(runCtx, l, stop)
		if err != nil {
			cancel(err)
		}
		lost <- err
	}()
	err := fn(runCtx)
	close(stop)
	lostErr := <-lost
	switch {
	case lostErr == nil:
		return err
	case errors.Is(lostErr, ErrLeaseExpired) && err == nil:
		return nil // fn finished anyway: its outcome is known
	}
	return errors.Join(lostErr, err)
}

// keepAlive heartbeats until stop closes. It returns nil when stopped, or
// the reason the lease is gone.
func (e *Engine) keepAlive(ctx context.Context, l *Lease, stop <-chan struct{}) error {
	interval := e.cfg.Lease / 3
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		err := e.Heartbeat(ctx, l)
		switch {
		case err == nil:
			timer.Reset(interval)
		case errors.Is(err, ErrLeaseLost):
			return e.abandon(l, err)
		default:
			// Store trouble: retry sooner, but once the lease we last
			// confirmed has run out another worker may hold it.
			left := time.Until(l.Until())
			if left <= 0 {
				return e.expire(l, err)
			}
			timer.Reset(min(interval/4+time.Millisecond, left))
		}
	}
}

// expire stops the holder's work once its lease ran out unrenewed. Unlike
// a lost lease, l stays ours to finish: nobody may take the record over for
// the takeover grace, so a fenced Complete or Fail may still land.
func (e *Engine) expire(l *Lease, cause error) error {
	err := fmt.Errorf("%w: %w", ErrLeaseExpired, cause)
	e.log.Warn("idempotency lease not renewed before it ran out; stopping the command", "pk", l.pk, "attempt", l.attempt, "error", cause)
	return err
}

// abandon marks l ended without a store write (the store no longer has it
// for us) and wakes fn's context.
func (e *Engine) abandon(l *Lease, cause error) error {
	l.mu.Lock()
	l.ended = true
	l.mu.Unlock()
	e.flights.end(l.flight)
	e.log.Warn("idempotency lease lost; stopping the command", "pk", l.pk, "attempt", l.attempt, "error", cause)
	return cause
}
