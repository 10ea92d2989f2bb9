package main

import (
	"reflect"
	"strings"
	"testing"
)

const sampleOutput = `goos: linux
goarch: amd64
pkg: github.com/mqprobe/mqprobe/internal/daemon
cpu: AMD EPYC
built /work/main/.build/test/mqprobe in 6.94s
BenchmarkStartup
    process_bench_test.go:12: a log line
BenchmarkStartup-2            	       1	  52223416 ns/op	        47.00 startup-ms
BenchmarkProbePacing/rate=1000-2         	       1	2999904288 ns/op	         0 duplicated	         3.328 p99gap/interval	         0.9850 ratio
BenchmarkSQLite/new/c1-2         	     300	    250553 ns/op	      3991 cmds/s	         2.000 roundtrips/cmd
BenchmarkStartup-2            	       1	  61223416 ns/op	        61.00 startup-ms
--- FAIL: BenchmarkPeakRSS/consume-1M
FAIL
exit status 1
FAIL	github.com/mqprobe/mqprobe/internal/daemon	51.188s
`

func TestParseReadsResultLinesOnly(t *testing.T) {
	got, err := Parse(strings.NewReader(sampleOutput), 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{"BenchmarkStartup", 1, map[string]float64{"ns/op": 52223416, "startup-ms": 47}},
		{"BenchmarkProbePacing/rate=1000", 1, map[string]float64{"ns/op": 2999904288, "duplicated": 0, "p99gap/interval": 3.328, "ratio": 0.985}},
		{"BenchmarkSQLite/new/c1", 300, map[string]float64{"ns/op": 250553, "cmds/s": 3991, "roundtrips/cmd": 2}},
		{"BenchmarkStartup", 1, map[string]float64{"ns/op": 61223416, "startup-ms": 61}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseStripsOnlyTheProcsSuffix(t *testing.T) {
	for _, tc := range []struct {
		line  string
		procs int
		name  string
	}{
		{"BenchmarkX/c32-4 1 10 ns/op", 4, "BenchmarkX/c32"},
		{"BenchmarkX/c32-2 1 10 ns/op", 4, "BenchmarkX/c32-2"}, // not this run's suffix: part of the name
		{"BenchmarkX/run-1 1 10 ns/op", 1, "BenchmarkX/run-1"}, // GOMAXPROCS 1 adds no suffix
	} {
		got, err := Parse(strings.NewReader(tc.line), tc.procs)
		if err != nil || len(got) != 1 || got[0].Name != tc.name {
			t.Errorf("Parse(%q, procs %d) = %+v, %v; want name %q", tc.line, tc.procs, got, err, tc.name)
		}
	}
}

func TestParseRejectsMalformedResults(t *testing.T) {
	for _, line := range []string{
		"BenchmarkX-2 5 10 ns/op abc ratio",
		"BenchmarkX-2 5 10 ns/op 3 ratio 4 ratio",
	} {
		if _, err := Parse(strings.NewReader(line), 2); err == nil || !strings.Contains(err.Error(), "line 1: BenchmarkX") {
			t.Errorf("Parse(%q) error = %v, want one naming line 1 and the benchmark", line, err)
		}
	}
}

func TestSeriesKeepsRepetitionOrder(t *testing.T) {
	results, err := Parse(strings.NewReader(sampleOutput), 2)
	if err != nil {
		t.Fatal(err)
	}
	s := Series{}
	s.Add(results)
	if got := s.Values("BenchmarkStartup", "startup-ms"); !reflect.DeepEqual(got, []float64{47, 61}) {
		t.Errorf("startup-ms = %v, want [47 61]", got)
	}
	if got := s.Values("BenchmarkStartup", "ratio"); got != nil {
		t.Errorf("absent unit = %v, want nil", got)
	}
	if got := s.Values("BenchmarkNone", "ratio"); got != nil {
		t.Errorf("absent benchmark = %v, want nil", got)
	}
}
