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

// Without spinning, Wait sleeps through the last osSleepWindow before a due
// time with the OS's own sleep (osSleep), which on Linux wakes about 0.1 ms
// late where a Go timer wakes up to a millisecond late, and spins the last
// osSleepMargin, about that sleep's usual lateness.
const (
	osSleepWindow = 2 * time.Millisecond
	osSleepMargin = 100 * time.Microsecond
)

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

// Wait blocks until due or until ctx ends, on the caller's reusable timer
// for all but the last stretch. With spin, the last spinWindow is spent
// reading the clock in a loop: sub-millisecond intervals cost a core, as in
// any precise load generator. Without, the last osSleepWindow is slept with
// the OS's sleep but for its last osSleepMargin, spun: a wait there is up
// to that window late to see ctx end. The spin does not yield: a goroutine
// given the core then (a checkpoint, a garbage collection assist) could
// keep it past the due time.
func Wait(ctx context.Context, timer *time.Timer, due time.Time, spin bool) error {
	window := osSleepWindow
	if spin {
		window = spinWindow
	}
	if d := time.Until(due) - window; d > 0 {
		if err := sleep(ctx, timer, d); err != nil {
			return err
		}
	}
	if !spin {
		if d := time.Until(due) - osSleepMargin; d > 0 {
			osSleep(d)
		}
	}
	var last time.Time
	for i := 1; ; i++ {
		now := time.Now()
		if !now.Before(due) {
			return ctx.Err()
		}
		if i%spinCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if now.Equal(last) {
				// The clock stood still through spinCheckEvery reads: a
				// test's fake clock (testing/synctest), which moves only
				// while every goroutine waits. Wait on the timer.
				return sleep(ctx, timer, due.Sub(now))
			}
			last = now
		}
	}
}

// sleep waits d on timer, or until ctx ends.
func sleep(ctx context.Context, timer *time.Timer, d time.Duration) error {
	timer.Reset(d)
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		timer.Stop()
		return ctx.Err()
	}
}

// NewTimer returns a stopped timer for Wait.
func NewTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}
