package isoduration_test

import (
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/isoduration"
)

func TestFormatAndParse(t *testing.T) {
	for d, s := range map[time.Duration]string{
		0:                                     "PT0S",
		2300 * time.Millisecond:               "PT2.3S",
		1500 * time.Microsecond:               "PT0.0015S",
		65*time.Second + 250*time.Millisecond: "PT1M5.25S",
		time.Hour + 500*time.Millisecond:      "PT1H0.5S",
		2 * time.Hour:                         "PT2H",
	} {
		if got := isoduration.Format(d); got != s {
			t.Errorf("Format(%s) = %s, want %s", d, got, s)
		}
		if got, err := isoduration.Parse(s); err != nil || got != d {
			t.Errorf("Parse(%s) = %s, %v; want %s", s, got, err, d)
		}
	}
	for _, bad := range []string{"", "PT", "P1D", "10s", "PT1.5M", "PT-1S", "PT1S2H", "PTxS"} {
		if _, err := isoduration.Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
