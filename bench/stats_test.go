package main

import (
	"math"
	"reflect"
	"testing"
)

func TestSummarize(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		values []float64
		want   Summary
	}{
		{[]float64{3, 1, 2, 10, 2}, Summary{N: 5, Median: 2, Min: 1, Max: 10, SpreadPct: pct(400)}},
		{[]float64{4, 1, 3, 2}, Summary{N: 4, Median: 2.5, Min: 1, Max: 4, SpreadPct: pct(60)}},
		{[]float64{2, 2, 2, 2, 2}, Summary{N: 5, Median: 2, Min: 2, Max: 2, SpreadPct: pct(0)}},
		{[]float64{0, 0, 0}, Summary{N: 3, Median: 0, Min: 0, Max: 0, SpreadPct: pct(0)}},
		{[]float64{0, 0, 1}, Summary{N: 3, Median: 0, Min: 0, Max: 1}}, // no percentage of 0
		{[]float64{-2, -1, -3}, Summary{N: 3, Median: -2, Min: -3, Max: -1, SpreadPct: pct(50)}},
	} {
		in := append([]float64(nil), tc.values...)
		got, ok := Summarize(tc.values)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Summarize(%v) = %+v (spread %v), %v; want %+v (spread %v)", tc.values, got, deref(got.SpreadPct), ok, tc.want, deref(tc.want.SpreadPct))
		}
		if !reflect.DeepEqual(in, tc.values) {
			t.Errorf("Summarize reordered its input: %v, was %v", tc.values, in)
		}
	}
	if _, ok := Summarize(nil); ok {
		t.Error("Summarize(nil) reports a summary")
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestRatiosPairRepetitions(t *testing.T) {
	got := Ratios([]float64{10, 20, 30, 40}, []float64{5, 0, 10})
	if want := []float64{2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ratios = %v, want %v (pairs by index, skips a zero denominator, stops at the shorter)", got, want)
	}
	if got := Ratios(nil, []float64{1}); len(got) != 0 {
		t.Errorf("Ratios(nil, …) = %v, want none", got)
	}
}

func TestGoals(t *testing.T) {
	for _, tc := range []struct {
		goal Goal
		x    float64
		met  bool
		text string
	}{
		{Goal{Op: ">=", Value: 0.9}, 0.9, true, "≥ 0.9"},
		{Goal{Op: ">=", Value: 0.9}, 0.8999, false, "≥ 0.9"},
		{Goal{Op: "<=", Value: 64}, 64, true, "≤ 64"},
		{Goal{Op: "<=", Value: 64}, 64.01, false, "≤ 64"},
		{Goal{Op: "==", Value: 2}, 2, true, "= 2"},
		{Goal{Op: "==", Value: 0}, 0.001, false, "= 0"},
		{Goal{Op: "within", Value: 1, Tolerance: 0.01}, 0.99, true, "1 ± 1%"},
		{Goal{Op: "within", Value: 1, Tolerance: 0.01}, 1.01, true, "1 ± 1%"},
		{Goal{Op: "within", Value: 1, Tolerance: 0.01}, 0.9899, false, "1 ± 1%"},
		{Goal{Op: "within", Value: 1, Tolerance: 0.01}, 1.0101, false, "1 ± 1%"},
	} {
		if got := tc.goal.Met(tc.x); got != tc.met {
			t.Errorf("%s met by %v = %v, want %v", tc.goal, tc.x, got, tc.met)
		}
		if got := tc.goal.String(); got != tc.text {
			t.Errorf("goal %+v prints %q, want %q", tc.goal, got, tc.text)
		}
	}
}

func TestFormatValue(t *testing.T) {
	for v, want := range map[float64]string{
		2: "2", 0: "0", 1234567.8: "1234568", 512.34: "512.3", 47.123: "47.12",
		3.3281: "3.328", 0.98504: "0.9850", 0.00012345: "0.000123", math.Inf(1): "+Inf",
	} {
		if got := formatValue(v); got != want {
			t.Errorf("formatValue(%v) = %q, want %q", v, got, want)
		}
	}
}
