package probe

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestStatsJSON(t *testing.T) {
	st := Stats{Sent: 10, Received: 9, Lost: 1, Duplicated: 2, OutOfOrder: 3, Elapsed: 10200 * time.Millisecond,
		ThroughputPerSec: 0.9, LatencyMs: LatencyMs{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5},
		LatencyHistogram: []LatencyBucket{{UpToMs: 1, Count: 4}, {UpToMs: 2, Count: 0}, {UpToMs: 5, Count: 5}}, Stopped: true, InFlight: 0}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sent":10,"received":9,"lost":1,"duplicated":2,"outOfOrder":3,"elapsed":"PT10.2S",` +
		`"throughputPerSec":0.9,"latencyMs":{"p50":1,"p90":2,"p99":3,"p999":4,"max":5},` +
		`"latencyHistogram":[{"upToMs":1,"count":4},{"upToMs":2,"count":0},{"upToMs":5,"count":5}],"stopped":true,"inFlight":0}`
	if string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}
	var back Stats
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, st) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

// TestLatencyHistogram: round trips land in the 1-2-5 bucket whose bound
// is the first at or above them; the list runs from the first non-empty
// bucket to the last, empty ones between kept.
func TestLatencyHistogram(t *testing.T) {
	h := hdrhistogram.New(latencyMinMicros, latencyMaxMicros, latencyDigits)
	for _, us := range []int64{15, 20, 20, 450, 499, 500, 3000, 59_000_000} {
		if err := h.RecordValue(us); err != nil {
			t.Fatal(err)
		}
	}
	got := latencyHistogram(h)
	want := []LatencyBucket{
		{UpToMs: 0.02, Count: 3}, {UpToMs: 0.05}, {UpToMs: 0.1}, {UpToMs: 0.2}, {UpToMs: 0.5, Count: 3},
		{UpToMs: 1}, {UpToMs: 2}, {UpToMs: 5, Count: 1}, {UpToMs: 10}, {UpToMs: 20}, {UpToMs: 50}, {UpToMs: 100},
		{UpToMs: 200}, {UpToMs: 500}, {UpToMs: 1000}, {UpToMs: 2000}, {UpToMs: 5000}, {UpToMs: 10000},
		{UpToMs: 20000}, {UpToMs: 50000}, {UpToMs: 60000, Count: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("histogram\n got %v\nwant %v", got, want)
	}
	if got := latencyHistogram(hdrhistogram.New(latencyMinMicros, latencyMaxMicros, latencyDigits)); got != nil {
		t.Errorf("empty histogram: %v, want none", got)
	}
}
