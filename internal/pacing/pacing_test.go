package pacing

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
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

// TestWaitEndsOnTheOSSleep: without spinning, a wait within the last
// osSleepWindow goes to the OS's sleep (Go's timer would wake up to a
// millisecond late on Linux), asked to end osSleepMargin before due, and
// the wait still never ends early.
func TestWaitEndsOnTheOSSleep(t *testing.T) {
	var asked []time.Duration
	defer func(s func(time.Duration)) { osSleep = s }(osSleep)
	osSleep = func(d time.Duration) { asked = append(asked, d) } // Wait spins the rest
	timer := NewTimer()
	for range 20 {
		due := time.Now().Add(1500 * time.Microsecond)
		if err := Wait(context.Background(), timer, due, false); err != nil || time.Now().Before(due) {
			t.Fatalf("returned %v before due", err)
		}
	}
	// A wait descheduled for longer than the window has nothing left to
	// sleep, so not every one need call it; nearly all do.
	if len(asked) == 0 {
		t.Fatal("no wait within the window slept with the OS's sleep")
	}
	for _, d := range asked {
		if d <= 0 || d > 1500*time.Microsecond-osSleepMargin {
			t.Fatalf("asked the OS to sleep %s of a wait of 1.5ms", d)
		}
	}
}

// TestWaitOnAFakeClock: on testing/synctest's clock, which moves only while
// every goroutine in the bubble waits, a wait ends when due instead of
// spinning on a clock that never moves.
func TestWaitOnAFakeClock(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		synctest.Test(t, func(t *testing.T) {
			timer := NewTimer()
			for _, spin := range []bool{false, true} {
				for _, d := range []time.Duration{50 * time.Microsecond, 700 * time.Microsecond, 5 * time.Millisecond} {
					start := time.Now()
					if err := Wait(context.Background(), timer, start.Add(d), spin); err != nil {
						t.Error(err)
					}
					if took := time.Since(start); took != d {
						t.Errorf("spin %v: a wait of %s took %s on the fake clock", spin, d, took)
					}
				}
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("a wait on the fake clock did not end within a minute")
	}
}
