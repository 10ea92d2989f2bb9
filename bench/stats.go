package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Summary is the median and spread of a figure's repetitions.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// SpreadPct is the largest distance of a repetition from the median,
	// in percent of the median; nil when the median is 0 but not every
	// repetition is.
	SpreadPct *float64 `json:"spreadPct"`
}

// Summarize returns the summary of values; ok is false when there are none.
func Summarize(values []float64) (s Summary, ok bool) {
	if len(values) == 0 {
		return Summary{}, false
	}
	v := slices.Clone(values)
	slices.Sort(v)
	s = Summary{N: len(v), Min: v[0], Max: v[len(v)-1]}
	if len(v)%2 == 1 {
		s.Median = v[len(v)/2]
	} else {
		s.Median = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	dev := math.Max(s.Max-s.Median, s.Median-s.Min)
	switch {
	case s.Median != 0:
		pct := 100 * dev / math.Abs(s.Median)
		s.SpreadPct = &pct
	case dev == 0:
		s.SpreadPct = new(float64)
	}
	return s, true
}

// Ratios pairs the i-th repetition of num with the i-th of den (the same
// repetition of one run) and returns num/den for each pair.
func Ratios(num, den []float64) []float64 {
	n := min(len(num), len(den))
	out := make([]float64, 0, n)
	for i := range n {
		if den[i] != 0 {
			out = append(out, num[i]/den[i])
		}
	}
	return out
}

// Goal is what a figure's median must satisfy.
type Goal struct {
	// Op is one of ">=", "<=", "==" (Value ± 1e-9) or "within" (Value ± Tolerance·Value).
	Op        string  `json:"op"`
	Value     float64 `json:"value"`
	Tolerance float64 `json:"tolerance,omitempty"`
}

// Met reports whether x satisfies the goal.
func (g Goal) Met(x float64) bool {
	switch g.Op {
	case ">=":
		return x >= g.Value
	case "<=":
		return x <= g.Value
	case "==":
		return math.Abs(x-g.Value) <= 1e-9
	case "within":
		return math.Abs(x-g.Value) <= g.Tolerance*math.Abs(g.Value)+1e-12
	}
	panic(fmt.Sprintf("goal: unknown op %q", g.Op))
}

// String is the goal as the report prints it.
func (g Goal) String() string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	switch g.Op {
	case ">=":
		return "≥ " + num(g.Value)
	case "<=":
		return "≤ " + num(g.Value)
	case "==":
		return "= " + num(g.Value)
	case "within":
		return num(g.Value) + " ± " + num(100*g.Tolerance) + "%"
	}
	return g.Op + " " + num(g.Value)
}

// formatValue prints a figure with four significant digits (whole
// numbers from 1000 up, and whole values as such).
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return fmt.Sprint(v)
	case a >= 1000 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 10:
		return fmt.Sprintf("%.2f", v)
	case a >= 1:
		return fmt.Sprintf("%.3f", v)
	case a >= 0.001:
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
