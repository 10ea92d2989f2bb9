package pacing

import (
	"errors"
	"syscall"
	"time"
)

// osSleep is Wait's OS sleep; a variable for tests.
var osSleep = nanosleep

// nanosleep sleeps for d with nanosleep(2), which wakes about 0.1 ms late
// here. Go's timers on Linux wait in epoll, whose timeout is whole
// milliseconds: asked for 100–900 µs they fire after about 1.1 ms. The
// goroutine's thread is held for the sleep, which is why Wait uses this
// only for its last stretch. A signal (Go preempts with SIGURG) cuts the
// sleep short; it sleeps what remains.
func nanosleep(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if !errors.Is(err, syscall.EINTR) {
			return
		}
		ts = rem
	}
}
