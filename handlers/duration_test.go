package handlers

import (
	"testing"
	"time"
)

func TestISODuration(t *testing.T) {
	cases := map[time.Duration]string{
		0:                                     "PT0S",
		2300 * time.Millisecond:               "PT2.3S",
		1500 * time.Microsecond:               "PT0.0015S",
		65*time.Second + 250*time.Millisecond: "PT1M5.25S",
		time.Hour + 500*time.Millisecond:      "PT1H0.5S",
		2 * time.Hour:                         "PT2H",
	}
	for d, want := range cases {
		if got := isoDuration(d); got != want {
			t.Errorf("isoDuration(%s) = %q, want %q", d, got, want)
		}
	}
}
