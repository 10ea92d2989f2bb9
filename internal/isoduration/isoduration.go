// Package isoduration writes and reads the time-only ISO 8601 durations
// results carry ("PT2.3S", "PT1M5.25S"), to the millisecond.
package isoduration

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Format renders d as an ISO 8601 duration ("PT2.3S", "PT1M5.25S",
// "PT1H0.5S") to the millisecond, which is what a reader of a result can
// use; under a millisecond, to the microsecond, so a fast command's time
// is not 0. Seconds are written from integers: a float's would show
// 1.996088 s as "1.9960879999999999".
func Format(d time.Duration) string {
	if d >= time.Millisecond {
		d = d.Round(time.Millisecond)
	} else {
		d = d.Round(time.Microsecond)
	}
	if d <= 0 {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteString("PT")
	if h := d / time.Hour; h > 0 {
		b.WriteString(strconv.FormatInt(int64(h), 10) + "H")
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		b.WriteString(strconv.FormatInt(int64(m), 10) + "M")
		d -= m * time.Minute
	}
	if d > 0 {
		b.WriteString(strconv.FormatInt(int64(d/time.Second), 10))
		if frac := d % time.Second; frac > 0 {
			b.WriteString(strings.TrimRight(fmt.Sprintf(".%09d", int64(frac)), "0"))
		}
		b.WriteString("S")
	}
	return b.String()
}

// Parse reads the time-only ISO 8601 durations Format
// writes: "PT", then optional hours, minutes and (fractional) seconds.
func Parse(s string) (time.Duration, error) {
	rest, ok := strings.CutPrefix(s, "PT")
	if !ok || rest == "" {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration like PT1M5.25S", s)
	}
	var d time.Duration
	for _, unit := range []struct {
		designator string
		size       time.Duration
	}{{"H", time.Hour}, {"M", time.Minute}, {"S", time.Second}} {
		num, after, found := strings.Cut(rest, unit.designator)
		if !found {
			continue
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v < 0 || (unit.size != time.Second && v != math.Trunc(v)) {
			return 0, fmt.Errorf("%q is not an ISO 8601 duration like PT1M5.25S", s)
		}
		d += time.Duration(math.Round(v * float64(unit.size)))
		rest = after
	}
	if rest != "" {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration like PT1M5.25S", s)
	}
	return d, nil
}
