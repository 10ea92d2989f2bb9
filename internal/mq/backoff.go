package mq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Backoff is an exponential backoff with jitter for reconnects.
type Backoff struct {
	Initial    time.Duration // first delay; default 200ms
	Max        time.Duration // cap on any delay; default 30s
	Multiplier float64       // growth per attempt; default 2
	// Jitter is the fraction of each delay drawn at random, so a fleet that
	// lost the same queue manager does not reconnect in lockstep: the delay is
	// uniform in [d*(1-Jitter), d]. Default 0.5; must be in [0, 1].
	Jitter float64
	// MaxAttempts bounds the attempts, the first included; default 5.
	// Negative means retry until the context ends.
	MaxAttempts int
}

func (b *Backoff) setDefaults() {
	if b.Initial == 0 {
		b.Initial = 200 * time.Millisecond
	}
	if b.Max == 0 {
		b.Max = 30 * time.Second
	}
	if b.Multiplier == 0 {
		b.Multiplier = 2
	}
	if b.Jitter == 0 {
		b.Jitter = 0.5
	}
	if b.MaxAttempts == 0 {
		b.MaxAttempts = 5
	}
}

// Validate reports settings out of range.
func (b Backoff) Validate() error {
	var errs []error
	if b.Initial < 0 || b.Max < 0 {
		errs = append(errs, errors.New("mq backoff: delays must not be negative"))
	}
	if b.Max > 0 && b.Initial > b.Max {
		errs = append(errs, fmt.Errorf("mq backoff: initial (%s) exceeds max (%s)", b.Initial, b.Max))
	}
	if b.Multiplier != 0 && b.Multiplier < 1 {
		errs = append(errs, fmt.Errorf("mq backoff: multiplier must be at least 1 (got %g)", b.Multiplier))
	}
	if b.Jitter < 0 || b.Jitter > 1 {
		errs = append(errs, fmt.Errorf("mq backoff: jitter must be within [0, 1] (got %g)", b.Jitter))
	}
	return errors.Join(errs...)
}

// Delay is the wait after the given failed attempt (1-based).
func (b Backoff) Delay(attempt int) time.Duration {
	d := float64(b.Initial) * math.Pow(b.Multiplier, float64(max(attempt-1, 0)))
	d = min(d, float64(b.Max))
	d -= d * b.Jitter * rand.Float64()
	return time.Duration(d)
}

// allows reports whether another attempt may follow the given one.
func (b Backoff) allows(attempt int) bool {
	return b.MaxAttempts < 0 || attempt < b.MaxAttempts
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
