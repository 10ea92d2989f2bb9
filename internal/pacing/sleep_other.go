//go:build !linux

package pacing

import "time"

// osSleep is Wait's OS sleep: outside Linux Go's timers wait in the OS
// with a finer timeout than a millisecond. A variable for tests.
var osSleep = time.Sleep
