package probe

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/mqprobe/mqprobe/internal/isoduration"
)

// Stats are a run's results so far, or final once Run returns.
//
// Every message put is, at any moment, exactly one of received, lost or
// in flight: Sent = Received + Lost + InFlight. Duplicated counts extra
// copies of messages already received (or counted lost), and OutOfOrder
// counts messages received after a higher sequence number from the same
// putter. With several getters, receipt order is the order in which the
// getters recorded their messages, so OutOfOrder may count messages the
// queue delivered in order but two getters recorded the other way round.
type Stats struct {
	Sent       int64 `json:"sent"`
	Received   int64 `json:"received"`
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
	OutOfOrder int64 `json:"outOfOrder"`
	// Elapsed runs from the first put to the end of the drain; in JSON an
	// ISO 8601 duration such as "PT10.2S".
	Elapsed time.Duration `json:"elapsed"`
	// ThroughputPerSec is Received / Elapsed, to one decimal.
	ThroughputPerSec float64   `json:"throughputPerSec"`
	LatencyMs        LatencyMs `json:"latencyMs"`
	// LatencyHistogram counts the round trips in log-spaced buckets (see
	// LatencyBucket); in a run's final statistics and progress reports, and
	// absent when no message came back.
	LatencyHistogram []LatencyBucket `json:"latencyHistogram,omitempty"`
	// Stopped is true when the run was stopped early (ErrStopped).
	Stopped  bool  `json:"stopped"`
	InFlight int64 `json:"inFlight"`
	// Mode is set in request/reply runs only ("requestReply"), with
	// ReplyQueue, the queue the replies came back to (a model queue's
	// dynamic queue by its own name), and Hops when replies were stamped.
	Mode       Mode   `json:"mode,omitempty"`
	ReplyQueue string `json:"replyQueue,omitempty"`
	Hops       *Hops  `json:"hops,omitempty"`
}

// Progress is what a running probe reports every Config.ProgressEvery.
type Progress struct {
	// Stats are the run's statistics so far, LatencyHistogram included.
	Stats Stats
	// Window is the round trips received since the previous report.
	Window Window
}

// Window is the round trips of one reporting interval: how many came back
// and their latency (zero when none did), so that a chart shows the
// latency of each moment rather than of the run so far.
type Window struct {
	Received  int64
	LatencyMs LatencyMs
	// Hops are the mean hops of the interval's stamped request/reply
	// round trips; nil when there were none.
	Hops *HopMeans
}

// LatencyBucket is one bar of the round-trip histogram: Count round trips
// took more than the previous bucket's UpToMs and at most UpToMs
// milliseconds. The bounds follow the 1-2-5 series from 0.01 ms to
// 60000 ms; the histogram lists the buckets from the first non-empty one to
// the last, empty ones between included, so consecutive buckets share a
// bound.
type LatencyBucket struct {
	UpToMs float64 `json:"upToMs"`
	Count  int64   `json:"count"`
}

// LatencyMs summarizes round trips (put to get) in milliseconds, at
// microsecond resolution.
type LatencyMs struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// statsJSON is Stats with Elapsed as ISO 8601 text.
type statsJSON struct {
	Sent             int64           `json:"sent"`
	Received         int64           `json:"received"`
	Lost             int64           `json:"lost"`
	Duplicated       int64           `json:"duplicated"`
	OutOfOrder       int64           `json:"outOfOrder"`
	Elapsed          string          `json:"elapsed"`
	ThroughputPerSec float64         `json:"throughputPerSec"`
	LatencyMs        LatencyMs       `json:"latencyMs"`
	LatencyHistogram []LatencyBucket `json:"latencyHistogram,omitempty"`
	Stopped          bool            `json:"stopped"`
	InFlight         int64           `json:"inFlight"`
	Mode             Mode            `json:"mode,omitempty"`
	ReplyQueue       string          `json:"replyQueue,omitempty"`
	Hops             *Hops           `json:"hops,omitempty"`
}

// MarshalJSON writes Elapsed as an ISO 8601 duration.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{
		Sent: s.Sent, Received: s.Received, Lost: s.Lost, Duplicated: s.Duplicated,
		OutOfOrder: s.OutOfOrder, Elapsed: isoduration.Format(s.Elapsed), ThroughputPerSec: s.ThroughputPerSec,
		LatencyMs: s.LatencyMs, LatencyHistogram: s.LatencyHistogram, Stopped: s.Stopped, InFlight: s.InFlight,
		Mode: s.Mode, ReplyQueue: s.ReplyQueue, Hops: s.Hops,
	})
}

// UnmarshalJSON reads what MarshalJSON writes, so stored results load back.
func (s *Stats) UnmarshalJSON(data []byte) error {
	var j statsJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	elapsed, err := isoduration.Parse(j.Elapsed)
	if err != nil {
		return fmt.Errorf("probe stats: elapsed: %w", err)
	}
	*s = Stats{
		Sent: j.Sent, Received: j.Received, Lost: j.Lost, Duplicated: j.Duplicated,
		OutOfOrder: j.OutOfOrder, Elapsed: elapsed, ThroughputPerSec: j.ThroughputPerSec,
		LatencyMs: j.LatencyMs, LatencyHistogram: j.LatencyHistogram, Stopped: j.Stopped, InFlight: j.InFlight,
		Mode: j.Mode, ReplyQueue: j.ReplyQueue, Hops: j.Hops,
	}
	return nil
}

func microsToMs(us int64) float64 { return float64(us) / 1000 }

// round1 rounds to one decimal, as rates are reported.
func round1(x float64) float64 { return math.Round(x*10) / 10 }
