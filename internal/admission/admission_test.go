package admission_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/admission"
)

func newLimiter(t *testing.T, cfg admission.Config) *admission.Limiter {
	t.Helper()
	l, err := admission.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestCommandsBeyondTheBoundWaitThenAreRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(t, admission.Config{MaxConcurrentCommands: 2, AdmissionWait: time.Second})
		a, err := l.Admit(t.Context(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Admit(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		if err := l.Usage().Saturated(); err == nil || !strings.Contains(err.Error(), "2 of 2 commands") {
			t.Fatalf("Saturated() = %v, want 2 of 2 commands", err)
		}
		start := time.Now()
		_, err = l.Admit(t.Context(), 0)
		var busy *admission.BusyError
		if !errors.As(err, &busy) || busy.Resource != "commands" {
			t.Fatalf("third Admit: %v, want BusyError on commands", err)
		}
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("refused after %s, want the 1s wait", waited)
		}
		if !strings.Contains(err.Error(), "limits.maxConcurrentCommands") {
			t.Errorf("error %q does not name the setting", err)
		}

		// A release during the wait admits the waiter.
		go func() {
			synctest.Wait() // the Admit below is waiting
			a.Release()
			a.Release() // a second release gives nothing back twice
		}()
		start = time.Now()
		c, err := l.Admit(t.Context(), 0)
		if err != nil {
			t.Fatalf("Admit after a release: %v", err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("admitted after %s, want at the release, before any time passed", waited)
		}
		if u := l.Usage(); u.Commands != 2 || u.Waiting != 0 {
			t.Errorf("usage %+v, want 2 commands, none waiting", u)
		}
		c.Release()
		if u := l.Usage(); u.Commands != 1 {
			t.Errorf("usage after release %+v, want 1 command", u)
		}
	})
}

func TestPayloadBytesAreBudgeted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(t, admission.Config{MaxConcurrentCommands: 10, MaxInFlightBytes: 100, AdmissionWait: time.Second})
		a, err := l.Admit(t.Context(), 60)
		if err != nil {
			t.Fatal(err)
		}
		small, err := l.Admit(t.Context(), 40)
		if err != nil {
			t.Fatalf("40 more bytes fit exactly: %v", err)
		}
		small.Release()
		_, err = l.Admit(t.Context(), 60)
		var busy *admission.BusyError
		if !errors.As(err, &busy) || busy.Resource != "bytes" || !strings.Contains(err.Error(), "limits.maxInFlightBytes") {
			t.Fatalf("over budget: %v, want BusyError on bytes naming the setting", err)
		}
		if u := l.Usage(); u.Commands != 1 || u.Bytes != 60 {
			t.Errorf("a refused command holds nothing: usage %+v", u)
		}
		a.Release()
		b, err := l.Admit(t.Context(), 60)
		if err != nil {
			t.Fatalf("after release: %v", err)
		}
		b.Release()
		if u := l.Usage(); u != (admission.Usage{MaxCommands: 10, MaxBytes: 100}) {
			t.Errorf("all released: usage %+v", u)
		}
	})
}

func TestACommandLargerThanTheBudgetIsRefusedAtOnce(t *testing.T) {
	l := newLimiter(t, admission.Config{MaxInFlightBytes: 100})
	_, err := l.Admit(t.Context(), 101)
	var tooLarge *admission.TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Need != 101 {
		t.Fatalf("Admit(101) = %v, want TooLargeError", err)
	}
	if !strings.Contains(err.Error(), "101 B") || !strings.Contains(err.Error(), "limits.maxInFlightBytes") {
		t.Errorf("error %q should name the size and the setting", err)
	}
}

func TestACallerThatLeavesStopsWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(t, admission.Config{MaxConcurrentCommands: 1, AdmissionWait: time.Minute})
		if _, err := l.Admit(t.Context(), 0); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := l.Admit(ctx, 0)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Admit with a caller gone: %v, want its context's error", err)
		}
	})
}

func TestWaitForRoomReturnsWhenACommandEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLimiter(t, admission.Config{MaxConcurrentCommands: 1})
		a, err := l.Admit(t.Context(), 0)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan time.Duration)
		start := time.Now()
		go func() {
			if err := l.WaitForRoom(t.Context()); err != nil {
				t.Error(err)
			}
			done <- time.Since(start)
		}()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("WaitForRoom returned while the limiter was full")
		default:
		}
		a.Release()
		if waited := <-done; waited != 5*time.Second {
			t.Errorf("WaitForRoom returned after %s, want at the release", waited)
		}
	})
}

func TestConfigValidation(t *testing.T) {
	_, err := admission.New(admission.Config{MaxConcurrentCommands: -1, MaxInFlightBytes: -1, AdmissionWait: -1})
	for _, want := range []string{"limits.maxConcurrentCommands", "limits.maxInFlightBytes", "limits.admissionWait"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 100 << 20: "100.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := admission.ByteSize(n).String(); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
