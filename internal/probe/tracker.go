package probe

import (
	"fmt"
	"math/bits"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Round-trip histogram range, in microseconds: 1 µs to 60 s at 3
// significant digits.
const (
	latencyMinMicros = 1
	latencyMaxMicros = int64(MaxLossTimeout / time.Microsecond)
	latencyDigits    = 3
)

// percentiles are the ones LatencyMs reports, besides the maximum.
var percentiles = []float64{50, 90, 99, 99.9}

// Window bounds. The window holds every sequence number from the oldest
// unresolved message to the newest handed out; messages resolve within
// LossTimeout of their put, so it spans about Rate × LossTimeout. It
// starts there (plus a margin) and doubles when puts outrun it, up to
// maxWindow.
const (
	minWindow = 1 << 10
	maxWindow = 1 << 22 // 64 MiB of slots
	// maxLateTracked bounds the lost sequence numbers remembered after they
	// leave the window, to tell a late arrival from a duplicate.
	maxLateTracked = 1 << 16
)

// Slot states. A sequence number is handed out (pending), put (in
// flight), then resolved: received, lost, or void when it was never put.
const (
	slotPending uint8 = iota
	slotInFlight
	slotReceived
	slotLate // counted lost, and a copy has arrived since
	slotLost // counted lost, no copy seen yet
	slotVoid
)

type slot struct {
	sentAt time.Duration
	state  uint8
}

// tracker accounts for every message of a run: which sequence numbers are
// in flight, received, lost, duplicated or out of order, and the round
// trips. One mutex guards it; calls do O(1) work apart from sweep and the
// rare window growth.
type tracker struct {
	lossTimeout time.Duration
	onRoundTrip func(time.Duration)
	// credits, when set, holds one token per message in flight (taken by
	// the putter, given back here on resolution): the unpaced runs' cap.
	credits chan struct{}

	mu   sync.Mutex
	ring []slot // sequence s lives at ring[s&(len-1)] while base <= s < top
	base int64  // oldest sequence number not retired
	top  int64  // one past the newest sequence number seen
	// highest is the highest sequence received per putter, for ordering.
	highest []int64
	// lateLost holds retired sequence numbers counted lost and not seen.
	lateLost map[int64]struct{}
	hist     *hdrhistogram.Histogram
	// window holds the round trips since the last takeWindow, for a
	// running test's latency over time.
	window *hdrhistogram.Histogram
	// hops and windowHops split request/reply round trips whose replies
	// carry the responder's stamps: the run's, and since the last
	// progress.
	hops, windowHops *hopRecorder
	counts           counts
}

type counts struct {
	sent, received, lost, duplicated, outOfOrder, inFlight int64
}

func newTracker(cfg Config, credits chan struct{}) *tracker {
	window := minWindow
	if cfg.Rate > 0 {
		want := int64(cfg.Rate)*int64(cfg.LossTimeout)/int64(time.Second)*5/4 + minWindow
		window = 1 << bits.Len64(uint64(min(want, maxWindow)-1))
	}
	highest := make([]int64, cfg.Putters)
	for i := range highest {
		highest[i] = -1
	}
	return &tracker{
		lossTimeout: cfg.LossTimeout,
		onRoundTrip: cfg.OnRoundTrip,
		credits:     credits,
		ring:        make([]slot, window),
		highest:     highest,
		lateLost:    make(map[int64]struct{}),
		hist:        hdrhistogram.New(latencyMinMicros, latencyMaxMicros, latencyDigits),
		window:      hdrhistogram.New(latencyMinMicros, latencyMaxMicros, latencyDigits),
		hops:        newHopRecorder(),
		windowHops:  newHopRecorder(),
	}
}

// slotFor returns seq's slot, growing the window to reach it. Callers hold
// t.mu and pass a seq not yet retired.
func (t *tracker) slotFor(seq int64) (*slot, error) {
	if seq-t.base >= int64(len(t.ring)) {
		size := len(t.ring)
		for seq-t.base >= int64(size) {
			size *= 2
		}
		if size > maxWindow {
			return nil, fmt.Errorf("probe: more than %d messages unresolved; lower the rate or the loss timeout", maxWindow)
		}
		ring := make([]slot, size)
		for s := t.base; s < t.top; s++ {
			ring[s&int64(size-1)] = t.ring[s&int64(len(t.ring)-1)]
		}
		t.ring = ring
	}
	t.top = max(t.top, seq+1)
	return &t.ring[seq&int64(len(t.ring)-1)], nil
}

// sending records that seq is about to be put at sentAt. It comes before
// the put, because the message may be got before the put returns.
func (t *tracker) sending(seq int64, sentAt time.Duration) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.slotFor(seq)
	if err != nil {
		return err
	}
	*s = slot{sentAt: sentAt, state: slotInFlight}
	t.counts.sent++
	t.counts.inFlight++
	return nil
}

// abandon records that seq was not put after all: the run is stopping, or
// the put failed.
func (t *tracker) abandon(seq int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, err := t.slotFor(seq)
	if err != nil {
		return // beyond the window, so never sent: nothing to undo
	}
	if s.state == slotInFlight {
		t.counts.sent--
		t.resolveLocked()
	}
	s.state = slotVoid
}

// resolveLocked ends one message's flight.
func (t *tracker) resolveLocked() {
	t.counts.inFlight--
	if t.credits != nil {
		<-t.credits
	}
}

// receive records a message got at now (since the run's start) and
// reports whether nothing is left in flight. Messages that were never sent
// in this run (a stranger using the run's CorrelId) are ignored. A reply
// with the responder's stamps gives hops, which splits its round trip.
func (t *tracker) receive(h header, now time.Duration, hops *hopTimes) (settled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.receiveLocked(h, now, hops)
	return t.counts.inFlight == 0
}

func (t *tracker) receiveLocked(h header, now time.Duration, hops *hopTimes) {
	if h.seq < t.base {
		if _, lost := t.lateLost[h.seq]; lost {
			delete(t.lateLost, h.seq) // its first copy, late: it stays lost
			return
		}
		t.counts.duplicated++
		return
	}
	if h.seq >= t.top || h.putter >= len(t.highest) {
		return
	}
	s := &t.ring[h.seq&int64(len(t.ring)-1)]
	switch s.state {
	case slotReceived, slotLate:
		t.counts.duplicated++
	case slotLost:
		s.state = slotLate
	case slotInFlight:
		t.resolveLocked()
		rtt := now - h.sentAt
		if rtt > t.lossTimeout {
			t.counts.lost++
			s.state = slotLate
			return
		}
		s.state = slotReceived
		t.counts.received++
		micros := min(max(rtt.Microseconds(), latencyMinMicros), latencyMaxMicros)
		t.hist.RecordValue(micros)   // in range by construction
		t.window.RecordValue(micros) // likewise
		if t.onRoundTrip != nil {
			t.onRoundTrip(rtt)
		}
		if hops != nil {
			split := splitHops(rtt, *hops)
			t.hops.record(split)
			t.windowHops.record(split)
		}
		if h.seq < t.highest[h.putter] {
			t.counts.outOfOrder++
		} else {
			t.highest[h.putter] = h.seq
		}
	}
}

// sweep counts as lost the messages in flight for longer than the loss
// timeout at now, and retires resolved sequence numbers from the window's
// start, up to the first pending one (a putter waiting for its due time)
// or one still in flight. Sequence order is put order, give or take the
// putters' jitter, so the scan stops at the first message still in time:
// one put a little earlier behind it is caught by the next sweep, or by
// receive, which applies the same timeout.
func (t *tracker) sweep(now time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	mask := int64(len(t.ring) - 1)
	for seq := t.base; seq < t.top; seq++ {
		s := &t.ring[seq&mask]
		if s.state != slotInFlight {
			continue
		}
		if now-s.sentAt <= t.lossTimeout {
			break
		}
		t.resolveLocked()
		t.counts.lost++
		s.state = slotLost
	}
	for t.base < t.top {
		s := &t.ring[t.base&mask]
		switch s.state {
		case slotPending, slotInFlight:
			return
		case slotLost:
			if len(t.lateLost) < maxLateTracked {
				t.lateLost[t.base] = struct{}{}
			}
		}
		*s = slot{}
		t.base++
	}
}

// settled reports whether no message is in flight.
func (t *tracker) settled() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts.inFlight == 0
}

// snapshot returns the statistics so far, elapsed being the run's age.
func (t *tracker) snapshot(elapsed time.Duration) Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshotLocked(elapsed)
}

func (t *tracker) snapshotLocked(elapsed time.Duration) Stats {
	c := t.counts
	st := Stats{
		Sent:       c.sent,
		Received:   c.received,
		Lost:       c.lost,
		Duplicated: c.duplicated,
		OutOfOrder: c.outOfOrder,
		InFlight:   c.inFlight,
		Elapsed:    elapsed,
	}
	if elapsed > 0 {
		st.ThroughputPerSec = round1(float64(c.received) / elapsed.Seconds())
	}
	st.LatencyMs = latencyMs(t.hist)
	st.Hops = t.hops.hops()
	return st
}

// latencyMs summarizes h; zero when it is empty.
func latencyMs(h *hdrhistogram.Histogram) LatencyMs {
	if h.TotalCount() == 0 {
		return LatencyMs{}
	}
	p := h.ValueAtPercentilesSlice(percentiles) // one pass over the counts
	return LatencyMs{
		P50:  microsToMs(p[0]),
		P90:  microsToMs(p[1]),
		P99:  microsToMs(p[2]),
		P999: microsToMs(p[3]),
		Max:  microsToMs(h.Max()),
	}
}

// progress returns the statistics so far with their latency histogram,
// and the round trips since the previous call (or the run's start), all
// at one instant; it starts a new window.
func (t *tracker) progress(elapsed time.Duration) Progress {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := Progress{Stats: t.snapshotLocked(elapsed),
		Window: Window{Received: t.window.TotalCount(), LatencyMs: latencyMs(t.window), Hops: t.windowHops.means()}}
	p.Stats.LatencyHistogram = latencyHistogram(t.hist)
	t.window.Reset()
	t.windowHops.reset()
	return p
}

// histogram returns the round trips so far as LatencyBuckets. It walks
// the HDR counts up to the largest round trip, so runs call it for their
// final statistics and progress reports only.
func (t *tracker) histogram() []LatencyBucket {
	t.mu.Lock()
	defer t.mu.Unlock()
	return latencyHistogram(t.hist)
}

// histogramBoundsMicros are LatencyBucket's upper bounds in microseconds:
// the 1-2-5 series from 10 µs up to the histogram's range.
var histogramBoundsMicros = func() []int64 {
	var bounds []int64
	for decade := int64(10); ; decade *= 10 {
		for _, step := range []int64{1, 2, 5} {
			if b := decade * step; b < latencyMaxMicros {
				bounds = append(bounds, b)
			} else {
				return append(bounds, latencyMaxMicros)
			}
		}
	}
}()

// latencyHistogram sorts h's counts into the LatencyBucket bounds, by the
// highest value each HDR bucket stands for, and trims the empty buckets
// at both ends.
func latencyHistogram(h *hdrhistogram.Histogram) []LatencyBucket {
	counts := make([]int64, len(histogramBoundsMicros))
	i := 0
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		for i < len(counts)-1 && bar.To > histogramBoundsMicros[i] {
			i++
		}
		counts[i] += bar.Count
	}
	first, last := -1, -1
	for i, n := range counts {
		if n > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil
	}
	buckets := make([]LatencyBucket, 0, last-first+1)
	for i := first; i <= last; i++ {
		buckets = append(buckets, LatencyBucket{UpToMs: microsToMs(histogramBoundsMicros[i]), Count: counts[i]})
	}
	return buckets
}
