// Package pacing keeps a rate: an absolute schedule of due times that a
// stall shifts instead of bursting, and a wait that stays precise below a
// millisecond. PRODUCE's rateLimitPerSec and TEST's putters share it.
package pacing

import (
	"context"
	"time"
)

// TimerSlack is how late an event may be and still be made up for: a
// timer's overshoot. Waits for intervals shorter than that spin instead.
const TimerSlack = time.Millisecond

// spinWindow is the last stretch before a due time that Wait spins through
// when spinning: timers on Linux wake at millisecond resolution.
const spinWindow = 1500 * time.Microsecond

// Schedule hands out due times: event n is due at start + n/rate, so timer
// overshoot and slow events do not add up into drift. An event late by more
// than one interval (and more than TimerSlack) is a stall: the schedule
// restarts from now, so the missed events are never released back to back.
// Not safe for concurrent use.
type Schedule struct {
	rate  int64
	start time.Time
	n     int64
}

// NewSchedule returns a schedule of rate events a second whose first event
// is due at start; a rate below 1 means unpaced (every event due at once).
func NewSchedule(rate int64, start time.Time) *Schedule {
	return &Schedule{rate: rate, start: start}
}

// Paced reports whether there is a rate to keep.
func (s *Schedule) Paced() bool { return s.rate > 0 }

// Next returns when the next event is due, given the time now.
func (s *Schedule) Next(now time.Time) time.Time {
	if s.rate <= 0 {
		return now
	}
	due := s.start.Add(s.offset(s.n))
	if late := now.Sub(due); late > max(s.offset(1), TimerSlack) {
		s.start = s.start.Add(late)
		due = now
	}
	s.n++
	return due
}

// Spin reports whether waits for this schedule should spin their last
// stretch: its interval is shorter than a timer can keep.
func (s *Schedule) Spin() bool { return s.rate > 0 && s.offset(1) < time.Millisecond }

// offset is when event n is due after start; computing it from n rather
// than adding intervals avoids rounding drift at rates that do not divide
// a second.
func (s *Schedule) offset(n int64) time.Duration {
	return time.Duration(n * int64(time.Second) / s.rate)
}

// spinCheckEvery is how many clock reads the spin makes between looks at
// the context: a few microseconds.
const spinCheckEvery = 64

// Wait blocks until due or until ctx ends, on the caller's reusable timer.
// With spin, the last spinWindow is spent reading the clock in a loop
// rather than on the timer, which would wake about a millisecond late:
// sub-millisecond intervals cost a core, as in any precise load generator.
// The spin does not yield: a goroutine given the core then (a checkpoint,
// a garbage collection assist) could keep it past the due time.
func Wait(ctx context.Context, timer *time.Timer, due time.Time, spin bool) error {
	d := time.Until(due)
	if spin {
		d -= spinWindow
	}
	if d > 0 {
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
	}
	for i := 1; spin && time.Now().Before(due); i++ {
		if i%spinCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// NewTimer returns a stopped timer for Wait.
func NewTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}
