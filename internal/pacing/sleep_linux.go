package pacing

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// osSleep is Wait's OS sleep; a variable for tests.
var osSleep = nanosleep

// nanosleep sleeps for d with clock_nanosleep(2), which wakes about 0.1 ms
// late here. Go's timers on Linux wait in epoll, whose timeout is whole
// milliseconds: asked for 100–900 µs they fire after about 1.1 ms. The
// goroutine's thread is held for the sleep, which is why Wait uses this
// only for its last stretch. A signal (Go preempts with SIGURG) cuts the
// sleep short; it sleeps on to the same monotonic deadline, so time spent
// handling signals does not lengthen it.
func nanosleep(d time.Duration) {
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
		time.Sleep(d) // no monotonic clock to sleep on: the coarser timer
		return
	}
	deadline := unix.NsecToTimespec(now.Nano() + d.Nanoseconds())
	for errors.Is(unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &deadline, nil), unix.EINTR) {
	}
}
