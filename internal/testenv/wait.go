package testenv

import (
	"testing"
	"time"
)

// pollEvery is how often Until checks its condition: quick enough that a
// test waits little past the moment it holds, slow enough to leave a loaded
// machine's CPU to the code under test.
const pollEvery = 10 * time.Millisecond

// Until checks cond at once and then every 10 ms until it holds or within
// has passed, and reports whether it held. It waits for a condition, not
// for a time: a test never sleeps for what it can watch happen.
func Until(within time.Duration, cond func() bool) bool {
	return UntilEvery(within, pollEvery, cond)
}

// UntilEvery is Until checking every interval: a condition that asks an
// emulator (SQS, DynamoDB) is checked less often, to leave it to the code
// under test.
func UntilEvery(within, every time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return true
			}
		case <-deadline.C:
			return cond()
		}
	}
}

// Eventually fails t unless cond holds within the time given; what says
// what was awaited ("the queue drained").
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(within, cond) {
		t.Fatalf("not %s within %s", what, within)
	}
}
