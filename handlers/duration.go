package handlers

import (
	"strconv"
	"strings"
	"time"
)

// isoDuration renders d as an ISO 8601 duration ("PT2.3S", "PT1M5.25S",
// "PT1H0.5S"), to the microsecond.
func isoDuration(d time.Duration) string {
	d = d.Round(time.Microsecond)
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
		b.WriteString(strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "S")
	}
	return b.String()
}
