package probe

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestSplitHops(t *testing.T) {
	sent := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	at := func(us int) time.Time { return sent.Add(time.Duration(us) * time.Microsecond) }
	cases := []struct {
		name           string
		roundTrip      time.Duration
		reqGot, rspPut time.Time
		out, resp, ret int64
		adjusted       bool
	}{
		{"clocks agree", 1000 * time.Microsecond, at(300), at(400), 300, 100, 600, false},
		// The responder's clock 5 ms behind: its get seems to come before
		// the put. Outbound is held at 0, return takes the rest.
		{"responder clock behind", 1000 * time.Microsecond, at(-4700), at(-4600), 0, 100, 900, true},
		// 5 ms ahead: outbound would exceed the round trip.
		{"responder clock ahead", 1000 * time.Microsecond, at(5300), at(5400), 900, 100, 0, true},
		// A responder time longer than the round trip cannot be: held at it,
		// leaving outbound nothing.
		{"responder longer than round trip", 1000 * time.Microsecond, at(100), at(2100), 0, 1000, 0, true},
		{"responder clock stepped back", 1000 * time.Microsecond, at(300), at(200), 300, 0, 700, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := splitHops(c.roundTrip, hopTimes{sent: sent, reqGot: c.reqGot, rspPut: c.rspPut})
			if h.outbound != c.out || h.responder != c.resp || h.ret != c.ret || h.adjusted != c.adjusted {
				t.Errorf("got %+v; want outbound %d, responder %d, return %d µs, adjusted %v", h, c.out, c.resp, c.ret, c.adjusted)
			}
		})
	}
}

// Whatever the two clocks say, each probe's hops are non-negative and sum
// to its round trip.
func TestSplitHopsSumToTheRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sent := time.Now()
	for range 100000 {
		rtt := time.Duration(rng.Int64N(int64(time.Second)))
		skew := time.Duration(rng.Int64N(int64(10*time.Second))) - 5*time.Second
		got := sent.Add(skew + time.Duration(rng.Int64N(int64(rtt)+1)))
		put := got.Add(time.Duration(rng.Int64N(int64(2*time.Second))) - 500*time.Millisecond)
		h := splitHops(rtt, hopTimes{sent: sent, reqGot: got, rspPut: put})
		if h.outbound < 0 || h.responder < 0 || h.ret < 0 || h.outbound+h.responder+h.ret != h.roundTrip ||
			h.roundTrip != rtt.Microseconds() {
			t.Fatalf("round trip %s, responder got %s put %s (sent %s): hops %+v", rtt, got, put, sent, h)
		}
	}
}

func TestHopRecorderMeansAddUp(t *testing.T) {
	r := newHopRecorder()
	r.record(hopMicros{roundTrip: 1000, outbound: 300, responder: 100, ret: 600})
	r.record(hopMicros{roundTrip: 2001, outbound: 1, responder: 0, ret: 2000, adjusted: true})
	h := r.hops()
	if h.Probes != 2 || h.ClockAdjusted != 1 {
		t.Fatalf("hops %+v: want 2 probes, 1 adjusted", h)
	}
	if h.RoundTripMs.Mean != 1.5005 || h.OutboundMs.Mean != 0.1505 || h.ResponderMs.Mean != 0.05 || h.ReturnMs.Mean != 1.3 {
		t.Errorf("means %+v", h)
	}
	if m := r.means(); m.OutboundMs != 0.1505 || m.ResponderMs != 0.05 || m.ReturnMs != 1.3 {
		t.Errorf("interval means %+v", m)
	}
	r.reset()
	if r.hops() != nil || r.means() != nil {
		t.Errorf("after reset: %+v, want nothing", r.hops())
	}
}
