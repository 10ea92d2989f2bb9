package probe

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// hopTimes are what splits one request/reply round trip into hops: when
// the request was put, on the prober's clock, and when the responder got
// it and put the reply, on the responder's.
type hopTimes struct {
	sent           time.Time
	reqGot, rspPut time.Time
}

// hopMicros is one round trip split into its three hops, in microseconds:
// outbound (put to the responder's get), responder (its get to its put)
// and return (its put to our get). They sum to roundTrip by construction.
type hopMicros struct {
	roundTrip, outbound, responder, ret int64
	// adjusted is set when the outbound hop, measured across two clocks,
	// fell outside [0, roundTrip-responder] and was set to the nearer
	// bound: the clocks disagree by more than the hop takes.
	adjusted bool
}

// splitHops splits roundTrip (measured on the prober's monotonic clock)
// into hops. The responder hop is one clock's difference, kept within
// the round trip; the outbound hop compares the two clocks and is kept
// within what the round trip leaves; the return hop is the remainder, so
// the three sum to the round trip whatever the clocks say.
func splitHops(roundTrip time.Duration, t hopTimes) hopMicros {
	h := hopMicros{roundTrip: roundTrip.Microseconds()}
	h.responder = min(max(t.rspPut.Sub(t.reqGot).Microseconds(), 0), h.roundTrip)
	outbound := t.reqGot.Sub(t.sent).Microseconds()
	h.outbound = min(max(outbound, 0), h.roundTrip-h.responder)
	h.adjusted = h.outbound != outbound
	h.ret = h.roundTrip - h.responder - h.outbound
	return h
}

// hopRecorder accumulates split round trips: a histogram and a sum per
// hop, the sums giving exact means that add up as the hops do.
type hopRecorder struct {
	n, adjusted                           int64
	roundTrip, outbound, responder, ret   *hdrhistogram.Histogram
	sumRoundTrip, sumOut, sumResp, sumRet int64
}

func newHopRecorder() *hopRecorder {
	h := func() *hdrhistogram.Histogram {
		return hdrhistogram.New(latencyMinMicros, latencyMaxMicros, latencyDigits)
	}
	return &hopRecorder{roundTrip: h(), outbound: h(), responder: h(), ret: h()}
}

func (r *hopRecorder) record(h hopMicros) {
	r.n++
	if h.adjusted {
		r.adjusted++
	}
	clamp := func(us int64) int64 { return min(max(us, latencyMinMicros), latencyMaxMicros) }
	// In range by construction: RecordValue cannot fail.
	r.roundTrip.RecordValue(clamp(h.roundTrip))
	r.outbound.RecordValue(clamp(h.outbound))
	r.responder.RecordValue(clamp(h.responder))
	r.ret.RecordValue(clamp(h.ret))
	r.sumRoundTrip += h.roundTrip
	r.sumOut += h.outbound
	r.sumResp += h.responder
	r.sumRet += h.ret
}

func (r *hopRecorder) reset() {
	*r = hopRecorder{roundTrip: r.roundTrip, outbound: r.outbound, responder: r.responder, ret: r.ret}
	r.roundTrip.Reset()
	r.outbound.Reset()
	r.responder.Reset()
	r.ret.Reset()
}

// hops summarizes the recorder; nil when it holds nothing.
func (r *hopRecorder) hops() *Hops {
	if r.n == 0 {
		return nil
	}
	mean := func(sum int64) float64 { return float64(sum) / float64(r.n) / 1000 }
	return &Hops{
		Probes: r.n, ClockAdjusted: r.adjusted,
		RoundTripMs: hopMs(r.roundTrip, mean(r.sumRoundTrip)),
		OutboundMs:  hopMs(r.outbound, mean(r.sumOut)),
		ResponderMs: hopMs(r.responder, mean(r.sumResp)),
		ReturnMs:    hopMs(r.ret, mean(r.sumRet)),
	}
}

// hopMeans is the interval's means, for a running test's series.
func (r *hopRecorder) means() *HopMeans {
	if r.n == 0 {
		return nil
	}
	mean := func(sum int64) float64 { return float64(sum) / float64(r.n) / 1000 }
	return &HopMeans{OutboundMs: mean(r.sumOut), ResponderMs: mean(r.sumResp), ReturnMs: mean(r.sumRet)}
}

var hopPercentiles = []float64{50, 95, 99}

func hopMs(h *hdrhistogram.Histogram, mean float64) HopMs {
	p := h.ValueAtPercentilesSlice(hopPercentiles)
	return HopMs{P50: microsToMs(p[0]), P95: microsToMs(p[1]), P99: microsToMs(p[2]), Mean: mean}
}

// Hops are a request/reply run's round trips split where the responder
// stamped its replies (mqprobe.reqGetAt, mqprobe.rspPutAt). Of each probe,
// outbound + responder + return = its round trip, so the means add up
// too (percentiles do not). The responder hop and the round trip are each
// read off one clock; outbound and return compare the prober's clock with
// the responder's and are only as right as those clocks agree.
type Hops struct {
	// Probes counts the round trips split: those whose reply carried both
	// stamps.
	Probes int64 `json:"probes"`
	// ClockAdjusted counts the probes whose outbound hop came out negative
	// or longer than the round trip left for it, and was set to the nearer
	// bound: the two hosts' clocks disagree by more than the hop takes.
	ClockAdjusted int64 `json:"clockAdjusted"`
	RoundTripMs   HopMs `json:"roundTripMs"`
	OutboundMs    HopMs `json:"outboundMs"`
	ResponderMs   HopMs `json:"responderMs"`
	ReturnMs      HopMs `json:"returnMs"`
}

// HopMs summarizes one hop in milliseconds, at microsecond resolution.
type HopMs struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Mean float64 `json:"mean"`
}

// HopMeans are the mean hops of one reporting interval.
type HopMeans struct {
	OutboundMs  float64 `json:"outboundMs"`
	ResponderMs float64 `json:"responderMs"`
	ReturnMs    float64 `json:"returnMs"`
}
