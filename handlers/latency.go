package handlers

import (
	"math"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histogram range, in microseconds: 1 µs to 60 s at 3 significant
// digits.
const (
	latencyMinMicros = 1
	latencyMaxMicros = 60_000_000
	latencyDigits    = 3
)

// LatencyMs summarizes per-call latencies in milliseconds.
type LatencyMs struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// latency records call durations into an HDR histogram: fixed memory
// however many calls, and percentiles without keeping samples.
type latency struct {
	h    *hdrhistogram.Histogram
	base time.Time
}

// histograms recycles histograms: each is ~140 KB, which a command per
// second would otherwise leave to the garbage collector.
var histograms = sync.Pool{New: func() any {
	return hdrhistogram.New(latencyMinMicros, latencyMaxMicros, latencyDigits)
}}

func newLatency() *latency {
	h := histograms.Get().(*hdrhistogram.Histogram)
	h.Reset()
	return &latency{h: h, base: time.Now()}
}

// now reads the monotonic clock alone, about half the cost of time.Now.
func (l *latency) now() time.Duration { return time.Since(l.base) }

// release returns the histogram for reuse; l is unusable afterwards.
func (l *latency) release() {
	histograms.Put(l.h)
	l.h = nil
}

// record adds d, clamped to the histogram's range so an outlier is counted
// rather than dropped.
func (l *latency) record(d time.Duration) {
	us := min(max(d.Microseconds(), latencyMinMicros), latencyMaxMicros)
	_ = l.h.RecordValue(us) // in range by construction
}

func (l *latency) summary() LatencyMs {
	if l.h.TotalCount() == 0 {
		return LatencyMs{}
	}
	return LatencyMs{
		P50: microsToMs(l.h.ValueAtQuantile(50)),
		P95: microsToMs(l.h.ValueAtQuantile(95)),
		P99: microsToMs(l.h.ValueAtQuantile(99)),
		Max: microsToMs(l.h.Max()),
	}
}

func microsToMs(us int64) float64 { return float64(us) / 1000 }

// round1 rounds to one decimal, as rates are reported.
func round1(x float64) float64 { return math.Round(x*10) / 10 }
