// Package probe is the round-trip measuring engine of TEST:
// putters send sequence-numbered, timestamped probe messages tagged with
// the run's CorrelId at a paced rate, getters take them back from the same
// queue or a reply queue, and a tracker turns what comes back into sent,
// received, lost, duplicated and out-of-order counts, throughput and
// round-trip latency percentiles from an HDR histogram.
//
// In request/reply mode each probe is a request with a fresh MsgId naming
// a reply queue; a responder answers with CorrelId = that MsgId, and
// where it stamps when it got the request and put the reply, each round
// trip splits into outbound, responder and return hops (hops.go).
//
// Memory is bounded whatever the run's length: the tracker keeps a window
// of about Rate × LossTimeout sequence numbers, and the histogram has a
// fixed size.
package probe
