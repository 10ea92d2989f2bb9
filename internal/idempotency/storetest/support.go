// Package storetest holds what proves an idempotency store correct: the one
// conformance suite every Store runs, a clock tests can move, and a wrapper
// that counts store round trips.
package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Clock is an idempotency.Clock that only moves when told to.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t.UTC().Truncate(time.Millisecond)} }

// Now implements idempotency.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Counting wraps a Store and counts its calls, the store round trips an
// engine makes. Hooks, when set, run before the call (tests use them to hold
// a call back or make it fail).
type Counting struct {
	idempotency.Store
	Begins, Updates, Gets, Deletes atomic.Int64

	BeforeBegin  func(idempotency.Claim) error
	BeforeUpdate func(idempotency.Update) error
	BeforeDelete func(idempotency.Deletion) error
}

// Calls is the total number of store calls so far.
func (c *Counting) Calls() int64 {
	return c.Begins.Load() + c.Updates.Load() + c.Gets.Load() + c.Deletes.Load()
}

// Begin implements idempotency.Store.
func (c *Counting) Begin(ctx context.Context, claim idempotency.Claim) (idempotency.Record, bool, error) {
	c.Begins.Add(1)
	if c.BeforeBegin != nil {
		if err := c.BeforeBegin(claim); err != nil {
			return idempotency.Record{}, false, err
		}
	}
	return c.Store.Begin(ctx, claim)
}

// Update implements idempotency.Store.
func (c *Counting) Update(ctx context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	c.Updates.Add(1)
	if c.BeforeUpdate != nil {
		if err := c.BeforeUpdate(u); err != nil {
			return idempotency.Record{}, err
		}
	}
	return c.Store.Update(ctx, pk, token, u)
}

// Get implements idempotency.Store.
func (c *Counting) Get(ctx context.Context, pk string) (idempotency.Record, bool, error) {
	c.Gets.Add(1)
	return c.Store.Get(ctx, pk)
}

// DeleteExpired implements idempotency.Store.
func (c *Counting) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	c.Deletes.Add(1)
	return c.Store.DeleteExpired(ctx, now)
}

// Delete implements idempotency.Store.
func (c *Counting) Delete(ctx context.Context, d idempotency.Deletion) (bool, error) {
	c.Deletes.Add(1)
	if c.BeforeDelete != nil {
		if err := c.BeforeDelete(d); err != nil {
			return false, err
		}
	}
	return c.Store.Delete(ctx, d)
}
