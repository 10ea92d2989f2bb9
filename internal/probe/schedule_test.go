package probe

import (
	"testing"
	"time"
)

func TestScheduleSpacesMessagesEvenly(t *testing.T) {
	start := time.Now()
	s := newSchedule(Config{Rate: 3, Count: 4}, start)
	// Offsets from the message number: 1/3 s does not accumulate rounding.
	want := []time.Duration{0, 333333333, 666666666, time.Second}
	for i, w := range want {
		seq, due, ok := s.next(start)
		if !ok || seq != int64(i) || due.Sub(start) != w {
			t.Fatalf("message %d: seq %d due +%s ok %v; want seq %d due +%s", i, seq, due.Sub(start), ok, i, w)
		}
	}
	if _, _, ok := s.next(start); ok {
		t.Fatal("a fifth message with count 4")
	}
}

func TestScheduleStopsAtDuration(t *testing.T) {
	start := time.Now()
	s := newSchedule(Config{Rate: 100, Duration: time.Second}, start)
	n := 0
	for {
		_, due, ok := s.next(due(start, n, 100))
		if !ok {
			break
		}
		if !due.Before(start.Add(time.Second)) {
			t.Fatalf("message due at +%s, after the duration", due.Sub(start))
		}
		n++
	}
	if n != 100 {
		t.Errorf("%d messages in 1 s at 100/s, want 100", n)
	}
	if _, _, ok := s.next(start.Add(time.Hour)); ok {
		t.Error("the schedule restarted after it was done")
	}
}

// due is when message n of a rate-paced run starting at start is due.
func due(start time.Time, n, rate int) time.Time {
	return start.Add(time.Duration(n) * time.Second / time.Duration(rate))
}

func TestScheduleStallShiftsInsteadOfBursting(t *testing.T) {
	start := time.Now()
	s := newSchedule(Config{Rate: 100, Count: 1000}, start) // every 10 ms
	s.next(start)
	// Half a second late: the 49 missed messages are not made up for.
	late := start.Add(500 * time.Millisecond)
	_, d1, _ := s.next(late)
	_, d2, _ := s.next(late)
	if d1.Before(late.Add(-10*time.Millisecond)) || d2.Sub(d1) != 10*time.Millisecond {
		t.Errorf("after a stall: due +%s then +%s; want from now on, 10 ms apart",
			d1.Sub(start), d2.Sub(start))
	}
	// Within the slack, an overshoot is caught up on.
	s = newSchedule(Config{Rate: 10_000, Count: 1000}, start) // every 100 µs
	s.next(start)
	_, d, _ := s.next(start.Add(time.Millisecond))
	if d != start.Add(100*time.Microsecond) {
		t.Errorf("1 ms overshoot at 10,000/s: due +%s, want +100µs (caught up)", d.Sub(start))
	}
}

func TestScheduleUnpacedIsDueNow(t *testing.T) {
	now := time.Now()
	s := newSchedule(Config{Count: 2}, now.Add(-time.Hour))
	if _, d, ok := s.next(now); !ok || !d.Equal(now) {
		t.Errorf("unpaced: due %v ok %v, want now", d, ok)
	}
}
