package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Result is one line of `go test -bench` output: one repetition of one
// benchmark, with every metric it reported (ns/op and the custom units of
// b.ReportMetric).
type Result struct {
	Name       string // without the -GOMAXPROCS suffix
	Iterations int64
	Metrics    map[string]float64 // unit → value
}

// Parse reads the standard benchmark format (the lines starting with
// "Benchmark" that carry an iteration count and value/unit pairs) and
// skips everything else. procs is the GOMAXPROCS the benchmarks ran with:
// the name suffix "-procs" that go test adds when it is not 1 is removed.
func Parse(r io.Reader, procs int) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		res, ok, err := parseLine(sc.Text(), procs)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if ok {
			out = append(out, res)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read benchmark output: %w", err)
	}
	return out, nil
}

// parseLine parses one result line; ok is false for any other line (a
// name printed alone before a benchmark's log, headers, PASS/FAIL).
func parseLine(text string, procs int) (res Result, ok bool, err error) {
	fields := strings.Fields(text)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
		return Result{}, false, nil
	}
	n, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return Result{}, false, nil // not a result line
	}
	name := fields[0]
	if suffix := "-" + strconv.Itoa(procs); procs > 1 && strings.HasSuffix(name, suffix) {
		name = strings.TrimSuffix(name, suffix)
	}
	res = Result{Name: name, Iterations: n, Metrics: map[string]float64{}}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return Result{}, false, fmt.Errorf("%s: value %q of %q is not a number", name, fields[i], fields[i+1])
		}
		unit := fields[i+1]
		if _, dup := res.Metrics[unit]; dup {
			return Result{}, false, fmt.Errorf("%s: unit %q reported twice", name, unit)
		}
		res.Metrics[unit] = v
	}
	return res, true, nil
}

// Series collects, per benchmark and unit, the values of every
// repetition in the order they ran.
type Series map[string]map[string][]float64

// Add appends the metrics of results.
func (s Series) Add(results []Result) {
	for _, r := range results {
		if s[r.Name] == nil {
			s[r.Name] = map[string][]float64{}
		}
		for unit, v := range r.Metrics {
			s[r.Name][unit] = append(s[r.Name][unit], v)
		}
	}
}

// Values returns the repetitions of bench's unit (nil when absent).
func (s Series) Values(bench, unit string) []float64 { return s[bench][unit] }
