package probe

import (
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/pacing"
)

// schedule hands out sequence numbers and their due times to every
// putter of a run, on one pacing.Schedule, so the rate is the total over
// all putters; it ends the run at Config.Count or Config.Duration.
type schedule struct {
	limit int64     // Config.Count; 0 = none
	end   time.Time // start + Config.Duration; zero = none

	mu   sync.Mutex
	pace *pacing.Schedule
	seq  int64 // next sequence number
	done bool
}

func newSchedule(cfg Config, start time.Time) *schedule {
	s := &schedule{limit: int64(cfg.Count), pace: pacing.NewSchedule(int64(cfg.Rate), start)}
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
	due = s.pace.Next(now)
	if (s.limit > 0 && s.seq >= s.limit) || (!s.end.IsZero() && !due.Before(s.end)) {
		s.done = true
		return 0, time.Time{}, false
	}
	seq = s.seq
	s.seq++
	return seq, due, true
}

// spin reports whether putters spin the last stretch of their waits: the
// interval is below what a timer keeps.
func (s *schedule) spin() bool { return s.pace.Spin() }
