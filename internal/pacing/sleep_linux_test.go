package pacing

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestNanosleepSleepsThroughSignals: nanosleep(2) returns early when a
// signal arrives (Go preempts goroutines with SIGURG), and nanosleep then
// sleeps what remains: with the sleeping thread signalled all the while,
// each sleep still lasts its whole duration.
func TestNanosleepSleepsThroughSignals(t *testing.T) {
	tid := make(chan int)
	var signals atomic.Int64
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(done)
		tid <- syscall.Gettid()
		// Sleeps go on until enough signals have been sent during them.
		for i := 0; i < 20 || signals.Load() < 20; i++ {
			const d = 2 * time.Millisecond
			began := time.Now()
			nanosleep(d)
			if took := time.Since(began); took < d {
				t.Errorf("nanosleep(%s) returned after %s (%d signals sent so far)", d, took, signals.Load())
				return
			}
		}
	}()
	sleeper := <-tid
	for {
		select {
		case <-done:
			return
		default:
		}
		if err := syscall.Tgkill(syscall.Getpid(), sleeper, syscall.SIGURG); err != nil {
			t.Fatal(err)
		}
		signals.Add(1)
		runtime.Gosched()
	}
}
