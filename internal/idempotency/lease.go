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
// retried until the lease would have expired: the work being checkpointed
// is done (committed), so giving up sooner would fail a command that a
// short store outage should only delay.
func (e *Engine) Checkpoint(ctx context.Context, l *Lease, progress string) error {
	backoff := 20 * time.Millisecond
	for {
		err := e.renew(ctx, l, &progress)
		if err == nil || errors.Is(err, ErrLeaseLost) || IsPermanent(err) {
			return err
		}
		wait := min(backoff, time.Until(l.Until()))
		if wait <= 0 || ctx.Err() != nil {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		backoff = min(2*backoff, time.Second)
	}
}

func (e *Engine) renew(ctx context.Context, l *Lease, progress *string) error {
	if l.disabled {
		return nil
	}
	now := e.now()
	u := Update{Kind: UpdateHeartbeat, Now: now, LeaseExpiresAt: now.Add(e.cfg.Lease), Progress: progress}
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
	l.leaseUntil, l.expiresAt = rec.LeaseExpiresAt, rec.ExpiresAt
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

// Release gives the claim up unfinished (for example on shutdown): the lease
// ends now, so another worker can take over at once and resume from the
// last checkpoint.
func (e *Engine) Release(ctx context.Context, l *Lease) error {
	now := e.now()
	_, err := e.finish(ctx, l, "release", Update{Kind: UpdateRelease, Now: now, LeaseExpiresAt: now})
	return err
}

// finish applies a final fenced update. A failing store is retried until
// the lease would have expired anyway: giving up sooner would leave an
// IN_PROGRESS record that a takeover re-executes.
func (e *Engine) finish(ctx context.Context, l *Lease, op string, u Update) (Record, error) {
	if l.disabled {
		return Record{PK: l.pk, Status: statusOf(u.Kind), ResponsePayload: u.ResponsePayload,
			HTTPStatus: u.HTTPStatus, ErrorMessage: u.ErrorMessage, Attempt: 1}, nil
	}
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return Record{}, fmt.Errorf("%s %s: lease already ended: %w", op, l.pk, ErrLeaseLost)
	}
	l.ended = true
	deadline := l.leaseUntil
	l.mu.Unlock()
	if err := e.fits(l, u); err != nil {
		return Record{}, e.refused(l, op, err)
	}
	defer e.flights.end(l.flight)

	backoff := 20 * time.Millisecond
	for {
		rec, err := e.store.Update(ctx, l.pk, l.token, u)
		if err == nil {
			e.remember(rec)
			return rec, nil
		}
		if errors.Is(err, ErrLeaseLost) {
			return Record{}, fmt.Errorf("%s %s: %w", op, l.pk, err)
		}
		if IsPermanent(err) {
			return Record{}, e.refused(l, op, err)
		}
		wait := min(backoff, time.Until(deadline))
		if wait <= 0 || ctx.Err() != nil {
			return Record{}, storeError(op, fmt.Errorf("%s: %w", l.pk, err))
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
		backoff = min(2*backoff, time.Second)
	}
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
// (taken over, or not renewable before it runs out) fn's context is
// cancelled with cause ErrLeaseLost, and Hold returns an error matching
// ErrLeaseLost once fn returns. Otherwise it returns fn's error.
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
	if lostErr := <-lost; lostErr != nil {
		return errors.Join(lostErr, err)
	}
	return err
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
				return e.abandon(l, fmt.Errorf("%w: not renewed before it expired: %w", ErrLeaseLost, err))
			}
			timer.Reset(min(interval/4+time.Millisecond, left))
		}
	}
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
