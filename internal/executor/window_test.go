package executor

import (
	"fmt"
	"testing"
	"time"
)

// TestOutcomeWindowCountsTheLastHourPerTenant: outcomes older than an hour
// drop out, a reused bucket forgets its earlier hour, and each tenant sees
// only its own.
func TestOutcomeWindowCountsTheLastHourPerTenant(t *testing.T) {
	var w outcomeWindow
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w.add(start, "", "completed")
	w.add(start.Add(90*time.Second), "", "failed")
	w.add(start.Add(10*time.Minute), "", "completed")
	w.add(start.Add(10*time.Minute), "team-a", "completed")
	for _, tt := range []struct {
		at     time.Duration
		tenant string
		want   string
	}{
		{0, "", "map[completed:1]"},
		{59 * time.Minute, "", "map[completed:2 failed:1]"},
		{59 * time.Minute, "team-a", "map[completed:1]"},
		{60 * time.Minute, "", "map[completed:1 failed:1]"}, // 12:00's minute has left the hour
		{61 * time.Minute, "", "map[completed:1]"},
		{71 * time.Minute, "", "map[]"},
	} {
		if got := fmt.Sprint(w.count(start.Add(tt.at), tt.tenant)); got != tt.want {
			t.Errorf("at +%s tenant %q: %s, want %s", tt.at, tt.tenant, got, tt.want)
		}
	}
	// 13:00 reuses 12:00's bucket: it starts from zero.
	w.add(start.Add(time.Hour), "", "rejected")
	if got := fmt.Sprint(w.count(start.Add(time.Hour), "")); got != "map[completed:1 failed:1 rejected:1]" {
		t.Errorf("after reusing a bucket: %s", got)
	}
}
