package handlers

import (
	"context"
	"time"
)

// timerSlack bounds how late a sleep may end before the pacer stops
// making up for it.
const timerSlack = time.Millisecond

// pacer spaces events at a fixed rate on an absolute schedule: event i is
// due at start + i/rate, never earlier. Sleeping to absolute times keeps
// timer overshoot and slow puts from adding up into drift. When an event is
// more than one interval late (a stall), the schedule restarts from now
// instead of firing the missed events back to back, so a stall never causes
// a burst.
//
// The allowed lateness is at least timerSlack: a timer fires up to a few
// hundred microseconds late, and at rates whose interval is shorter than
// that the pacer must catch up on the overshoot or never reach the rate.
// A catch-up run thus lasts at most max(interval, timerSlack).
type pacer struct {
	rate  int64 // events per second; 0 means unpaced
	start time.Time
	n     int64 // events released since start
	timer *time.Timer
}

// newPacer paces to ratePerSec; nil or a value below 1 means no pacing.
func newPacer(ratePerSec *int) *pacer {
	p := &pacer{}
	if ratePerSec != nil && *ratePerSec >= 1 {
		p.rate = int64(*ratePerSec)
	}
	return p
}

// paced reports whether there is a rate to keep.
func (p *pacer) paced() bool { return p.rate > 0 }

// wait blocks until the next event is due or ctx ends.
func (p *pacer) wait(ctx context.Context) error {
	if !p.paced() {
		if cancelled(ctx) {
			return withCause(ctx, ctx.Err())
		}
		return nil
	}
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	due := p.start.Add(p.offset(p.n))
	if now.Sub(due) > max(p.offset(1), timerSlack) {
		p.start, p.n, due = now, 0, now
	}
	p.n++
	if d := due.Sub(now); d > 0 {
		return p.sleep(ctx, d)
	}
	if cancelled(ctx) {
		return withCause(ctx, ctx.Err())
	}
	return nil
}

// offset is when event n is due after start; computing it from n rather
// than adding intervals avoids rounding drift at rates that do not divide
// a second.
func (p *pacer) offset(n int64) time.Duration {
	return time.Duration(n * int64(time.Second) / p.rate)
}

func (p *pacer) sleep(ctx context.Context, d time.Duration) error {
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	select {
	case <-p.timer.C:
		return nil
	case <-ctx.Done():
		p.timer.Stop()
		return withCause(ctx, ctx.Err())
	}
}
