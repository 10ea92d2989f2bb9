package probe

import (
	"testing"
	"time"
)

const ms = time.Millisecond

func newTestTracker(putters int) *tracker {
	return newTracker(Config{Putters: putters, LossTimeout: 100 * ms, Rate: 1000}, nil)
}

// send records seqs as put at sentAt.
func send(t *testing.T, tr *tracker, sentAt time.Duration, seqs ...int64) {
	t.Helper()
	for _, s := range seqs {
		if err := tr.sending(s, sentAt); err != nil {
			t.Fatalf("sending %d: %v", s, err)
		}
	}
}

func wantCounts(t *testing.T, tr *tracker, want counts) {
	t.Helper()
	tr.mu.Lock()
	got := tr.counts
	tr.mu.Unlock()
	if got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

func TestTrackerDuplicatesAndOrder(t *testing.T) {
	tr := newTestTracker(2)
	send(t, tr, 0, 0, 1, 2, 3)
	tr.receive(header{putter: 0, seq: 0}, 5*ms, nil)
	tr.receive(header{putter: 0, seq: 2}, 5*ms, nil)
	tr.receive(header{putter: 0, seq: 2}, 6*ms, nil) // duplicate
	tr.receive(header{putter: 1, seq: 1}, 6*ms, nil) // lower, but another putter's
	tr.receive(header{putter: 0, seq: 3}, 7*ms, nil)
	wantCounts(t, tr, counts{sent: 4, received: 4, duplicated: 1})

	tr = newTestTracker(1)
	send(t, tr, 0, 0, 1, 2)
	tr.receive(header{seq: 1}, ms, nil)
	tr.receive(header{seq: 0}, ms, nil) // behind 1 from the same putter
	tr.receive(header{seq: 2}, ms, nil)
	wantCounts(t, tr, counts{sent: 3, received: 3, outOfOrder: 1})
}

func TestTrackerLoss(t *testing.T) {
	tr := newTestTracker(1)
	send(t, tr, 0, 0, 1)
	send(t, tr, 50*ms, 2)
	tr.receive(header{seq: 1}, 20*ms, nil)
	tr.sweep(100 * ms) // not yet: lost means older than the timeout
	wantCounts(t, tr, counts{sent: 3, received: 1, inFlight: 2})
	tr.sweep(101 * ms)
	wantCounts(t, tr, counts{sent: 3, received: 1, lost: 1, inFlight: 1})
	// Too late counts as lost even before a sweep sees it.
	tr.receive(header{seq: 2, sentAt: 50 * ms}, 151*ms, nil)
	wantCounts(t, tr, counts{sent: 3, received: 1, lost: 2})
	if !tr.settled() {
		t.Error("not settled with nothing in flight")
	}
}

func TestTrackerLateCopyIsNotADuplicate(t *testing.T) {
	tr := newTestTracker(1)
	send(t, tr, 0, 0, 1)
	tr.receive(header{seq: 1}, ms, nil)
	tr.sweep(200 * ms) // 0 lost, and both retired from the window
	if tr.base != 2 {
		t.Fatalf("window base %d, want 2", tr.base)
	}
	tr.receive(header{seq: 0}, 300*ms, nil) // the lost one, late: still lost
	tr.receive(header{seq: 0}, 301*ms, nil) // a second copy: a duplicate
	tr.receive(header{seq: 1}, 302*ms, nil) // received before: a duplicate
	wantCounts(t, tr, counts{sent: 2, received: 1, lost: 1, duplicated: 2})
}

func TestTrackerAbandonAndStrangers(t *testing.T) {
	tr := newTestTracker(1)
	send(t, tr, 0, 0, 1)
	tr.abandon(1)                                  // the put failed
	tr.abandon(2)                                  // handed out, never sent
	tr.receive(header{seq: 9}, ms, nil)            // never sent in this run
	tr.receive(header{seq: 0, putter: 7}, ms, nil) // no such putter
	wantCounts(t, tr, counts{sent: 1, inFlight: 1})
	tr.receive(header{seq: 0}, ms, nil)
	tr.sweep(ms)
	if tr.base != 3 {
		t.Errorf("window base %d, want 3: void slots retire", tr.base)
	}
}

func TestTrackerWindowGrowsAndStaysBounded(t *testing.T) {
	tr := newTestTracker(1)
	size := len(tr.ring)
	// More in flight than the window holds: it grows, keeping the slots.
	for seq := range int64(3 * size) {
		send(t, tr, 0, seq)
	}
	if len(tr.ring) < 3*size {
		t.Fatalf("window %d slots for %d in flight", len(tr.ring), 3*size)
	}
	for seq := range int64(3 * size) {
		tr.receive(header{seq: seq}, ms, nil)
	}
	wantCounts(t, tr, counts{sent: int64(3 * size), received: int64(3 * size)})

	// A long steady run reuses the window.
	tr = newTestTracker(1)
	size = len(tr.ring)
	for seq := range int64(100 * size) {
		now := time.Duration(seq) * time.Millisecond
		send(t, tr, now, seq)
		tr.receive(header{seq: seq, sentAt: now}, now+ms, nil)
		if seq%100 == 0 {
			tr.sweep(now)
		}
	}
	if len(tr.ring) != size {
		t.Errorf("window grew from %d to %d slots on a steady run", size, len(tr.ring))
	}
}

func TestTrackerWindowSizing(t *testing.T) {
	for _, c := range []struct {
		rate int
		want int
	}{
		{0, minWindow},
		{1000, 8192},            // 1000/s × 5 s × 1.25 + 1024 = 7274
		{10_000, 65536},         // 63524
		{10_000_000, maxWindow}, // capped
	} {
		tr := newTracker(Config{Rate: c.rate, LossTimeout: DefaultLossTimeout, Putters: 1}, nil)
		if len(tr.ring) != c.want {
			t.Errorf("rate %d: window %d, want %d", c.rate, len(tr.ring), c.want)
		}
	}
}

func TestTrackerSnapshot(t *testing.T) {
	tr := newTestTracker(1)
	for seq := range int64(100) {
		send(t, tr, 0, seq)
		tr.receive(header{seq: seq}, time.Duration(seq+1)*ms, nil)
	}
	st := tr.snapshot(2 * time.Second)
	if st.Received != 100 || st.ThroughputPerSec != 50 || st.Elapsed != 2*time.Second {
		t.Errorf("snapshot %+v", st)
	}
	l := st.LatencyMs
	near := func(got, want float64) bool { return got >= want*0.99 && got <= want*1.01 }
	if !near(l.P50, 50) || !near(l.P90, 90) || !near(l.P99, 99) || !near(l.Max, 100) {
		t.Errorf("latency %+v, want p50 50, p90 90, p99 99, max 100 (ms)", l)
	}
}

// A receipt that leaves nothing in flight wakes Run only once the puts have
// ended: before that it cannot end the run, and a getter keeping up with
// the putter would otherwise wake Run for every message.
func TestReceiptWakesRunOnlyAfterThePuts(t *testing.T) {
	r := &run{tracker: newTestTracker(1), settled: make(chan struct{}, 1)}
	send(t, r.tracker, 0, 0)
	r.received(header{putter: 0, seq: 0}, ms, nil)
	if len(r.settled) != 0 {
		t.Fatal("a receipt while putting woke Run")
	}
	send(t, r.tracker, 2*ms, 1)
	r.putsEnded.Store(true)
	r.received(header{putter: 0, seq: 1}, 3*ms, nil)
	if len(r.settled) != 1 {
		t.Fatal("the receipt that settled the run after the last put did not wake Run")
	}
}
