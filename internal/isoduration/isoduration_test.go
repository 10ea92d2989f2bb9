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
		1500 * time.Millisecond:               "PT1.5S",
		1996 * time.Millisecond:               "PT1.996S",
		300 * time.Microsecond:                "PT0.0003S",
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
	// Rounded to the millisecond, with no float digits.
	for d, s := range map[time.Duration]string{
		1996087999 * time.Nanosecond:           "PT1.996S",
		1500 * time.Microsecond:                "PT0.002S",
		time.Minute + 1234567*time.Microsecond: "PT1M1.235S",
		999999 * time.Nanosecond:               "PT0.001S",
	} {
		if got := isoduration.Format(d); got != s {
			t.Errorf("Format(%s) = %s, want %s", d, got, s)
		}
	}
	for _, bad := range []string{"", "PT", "P1D", "10s", "PT1.5M", "PT-1S", "PT1S2H", "PTxS"} {
		if _, err := isoduration.Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
