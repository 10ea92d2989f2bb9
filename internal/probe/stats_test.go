package probe

import (
	"encoding/json"
	"testing"
	"time"
)

func TestStatsJSON(t *testing.T) {
	st := Stats{Sent: 10, Received: 9, Lost: 1, Duplicated: 2, OutOfOrder: 3, Elapsed: 10200 * time.Millisecond,
		ThroughputPerSec: 0.9, LatencyMs: LatencyMs{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}, Stopped: true, InFlight: 0}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sent":10,"received":9,"lost":1,"duplicated":2,"outOfOrder":3,"elapsed":"PT10.2S",` +
		`"throughputPerSec":0.9,"latencyMs":{"p50":1,"p90":2,"p99":3,"p999":4,"max":5},"stopped":true,"inFlight":0}`
	if string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}
	var back Stats
	if err := json.Unmarshal(data, &back); err != nil || back != st {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
