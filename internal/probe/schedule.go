package probe

import (
	"context"
	"sync"
	"time"
)

// timerSlack is how late a put may be and still be made up for. Sleeps
// shorter than a millisecond end a millisecond or more later (the runtime
// parks in epoll at millisecond resolution), so at rates whose interval is
// below that the putters must catch up on the overshoot or never reach the
// rate: at 10,000/s, runs of up to 20 back-to-back puts.
const timerSlack = 2 * time.Millisecond

// schedule hands out sequence numbers and their due times to every
// putter of a run, on one absolute schedule: message i is due at
// start + i/rate. Sleeping to absolute times keeps timer overshoot and slow
// puts from adding up into drift, and sharing the schedule makes the rate
// the total over all putters. A message late by more than one interval
// (and more than timerSlack) is a stall: the schedule shifts by the excess
// rather than releasing the missed messages back to back, so a stall never
// causes a burst, and costs the rate only the excess.
type schedule struct {
	rate  int64     // messages per second; 0 = unpaced
	limit int64     // Config.Count; 0 = none
	end   time.Time // start + Config.Duration; zero = none

	mu    sync.Mutex
	start time.Time // message 0 is due at start (moves forward on a stall)
	n     int64     // messages due since start
	seq   int64     // next sequence number
	done  bool
}

func newSchedule(cfg Config, start time.Time) *schedule {
	s := &schedule{rate: int64(cfg.Rate), limit: int64(cfg.Count), start: start}
	if cfg.Duration > 0 {
		s.end = start.Add(cfg.Duration)
	}
	return s
}

// next returns the next sequence number and when to put it; ok is false
// once the run has put all it should.
func (s *schedule) next(now time.Time) (seq int64, due time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return 0, time.Time{}, false
	}
	due = now
	if s.rate > 0 {
		due = s.start.Add(s.offset(s.n))
		if late, allowed := now.Sub(due), max(s.offset(1), timerSlack); late > allowed {
			s.start = s.start.Add(late - allowed)
			due = now.Add(-allowed)
		}
		s.n++
	}
	if (s.limit > 0 && s.seq >= s.limit) || (!s.end.IsZero() && !due.Before(s.end)) {
		s.done = true
		return 0, time.Time{}, false
	}
	seq = s.seq
	s.seq++
	return seq, due, true
}

// offset is when message n is due after start; computing it from n rather
// than adding intervals avoids rounding drift at rates that do not divide
// a second.
func (s *schedule) offset(n int64) time.Duration {
	return time.Duration(n * int64(time.Second) / s.rate)
}

// sleepUntil waits for due on the caller's reusable timer, or for ctx.
func sleepUntil(ctx context.Context, timer *time.Timer, due time.Time) error {
	d := time.Until(due)
	if d <= 0 {
		return ctx.Err()
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		timer.Stop()
		return ctx.Err()
	}
}
