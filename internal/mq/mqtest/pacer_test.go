package mqtest

import (
	"testing"
	"time"
)

func TestFloorPacingKeepsItsSchedule(t *testing.T) {
	const rate, events = 1000, 200
	times := FloorPacing(t, rate, events*time.Millisecond)
	if len(times) != events {
		t.Fatalf("%d events, want %d", len(times), events)
	}
	for i := 1; i < len(times); i++ {
		if times[i].Before(times[i-1]) {
			t.Fatalf("event %d at %v, before event %d at %v", i, times[i], i-1, times[i-1])
		}
	}
	// Each event waits for its due time and a stall only moves the rest
	// later. The first is not waited for: it may be up to a stall's limit
	// (1 ms) and an interval late without the schedule restarting.
	interval := time.Second / rate
	if span, least := times[len(times)-1].Sub(times[0]), (events-1)*interval-time.Millisecond-interval; span < least {
		t.Errorf("events span %v, less than %v: the pacer ran ahead of its schedule", span, least)
	}
}
