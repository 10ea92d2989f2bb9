package pacing

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestScheduleIsAbsoluteAndShiftsOnAStall(t *testing.T) {
	start := time.Unix(1000, 0)
	s := NewSchedule(1000, start)
	for n := range 5 {
		if due := s.Next(start); !due.Equal(start.Add(time.Duration(n) * time.Millisecond)) {
			t.Fatalf("event %d due %s after start", n, due.Sub(start))
		}
	}
	// A late event within the slack is made up for.
	if due := s.Next(start.Add(5*time.Millisecond + TimerSlack)); !due.Equal(start.Add(5 * time.Millisecond)) {
		t.Fatalf("event 5, late by the slack, due %s after start", due.Sub(start))
	}
	// A 100 ms stall restarts the schedule: the next events follow at the
	// interval, not back to back.
	now := start.Add(100 * time.Millisecond)
	if due := s.Next(now); !due.Equal(now) {
		t.Fatalf("after a stall due %s before now, want now", now.Sub(due))
	}
	if due := s.Next(now); !due.Equal(now.Add(time.Millisecond)) {
		t.Fatalf("the event after a stall is due %s after it, want 1ms", due.Sub(now))
	}
	if un := NewSchedule(0, start); un.Paced() || !un.Next(now).Equal(now) {
		t.Fatal("an unpaced schedule must release at once")
	}
	if NewSchedule(1000, start).Spin() || !NewSchedule(1001, start).Spin() {
		t.Fatal("spin only for intervals below a millisecond")
	}
}

func TestWaitHonoursDueAndContext(t *testing.T) {
	timer := NewTimer()
	for _, spin := range []bool{false, true} {
		due := time.Now().Add(3 * time.Millisecond)
		if err := Wait(context.Background(), timer, due, spin); err != nil || time.Now().Before(due) {
			t.Fatalf("spin %v: returned %v before due", spin, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := Wait(ctx, timer, time.Now().Add(time.Hour), spin); err == nil {
			t.Fatalf("spin %v: a cancelled wait returned nil", spin)
		}
	}
}

// TestSpinKeepsTheCore: a goroutine that computes without yielding, started
// while a wait spins on the only core, does not delay it: the spin does not
// hand over the core, so the wait ends when due, not when the scheduler
// preempts the other goroutine (about 10 ms).
func TestSpinKeepsTheCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	timer := NewTimer()
	var stop atomic.Bool
	defer stop.Store(true)
	due := time.Now().Add(spinWindow / 2) // within the spin: no timer
	go func() {
		for !stop.Load() {
		}
	}()
	if err := Wait(context.Background(), timer, due, true); err != nil {
		t.Fatal(err)
	}
	if late := time.Since(due); late > 3*time.Millisecond {
		t.Fatalf("wait ended %s late: the spin gave the core away", late)
	}
}
