package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func testItems() []Item {
	return []Item{{Number: 1, Title: "Overhead", How: "How it is measured.", Figures: []FigureSpec{
		withCause(figure("ratio", "BenchmarkA/x", "ratio", atLeast(0.9)), "Shown only when missed"),
		figure("rate", "BenchmarkA/x", "msgs/s", nil),
		withCause(figure("memory", "BenchmarkB", "peak-RSS-MiB", atMost(64)), "The heap holds the queue"),
		ratio("b ÷ a", Ref{"BenchmarkA/y", "cmds/s"}, Ref{"BenchmarkA/x", "msgs/s"}),
		figure("never run", "BenchmarkC", "ratio", exactly(2)),
		figure("never run either", "BenchmarkC", "cmds/s", nil),
	}}}
}

func testSeries() Series {
	return Series{
		"BenchmarkA/x": {"ratio": {0.95, 0.91, 0.89}, "msgs/s": {100, 200, 300}},
		"BenchmarkA/y": {"cmds/s": {50, 100, 600}},
		"BenchmarkB":   {"peak-RSS-MiB": {70, 60, 80}},
	}
}

func TestEvaluate(t *testing.T) {
	got, tally := Evaluate(testItems(), testSeries())
	if len(got) != 1 || len(got[0].Figures) != 6 {
		t.Fatalf("Evaluate = %+v", got)
	}
	type row struct {
		status string
		median float64
		values []float64
	}
	want := []row{
		{StatusMet, 0.91, []float64{0.95, 0.91, 0.89}},
		{StatusNoGoal, 200, []float64{100, 200, 300}},
		{StatusMissed, 70, []float64{70, 60, 80}},
		{StatusNoGoal, 0.5, []float64{0.5, 0.5, 2}},
		{StatusNotMeasured, 0, []float64{}},
		{StatusNotMeasured, 0, []float64{}},
	}
	for i, f := range got[0].Figures {
		var median float64
		if f.Summary != nil {
			median = f.Summary.Median
		}
		if f.Status != want[i].status || median != want[i].median || !reflect.DeepEqual(f.Values, want[i].values) {
			t.Errorf("figure %q: status %q median %v values %v; want %q, %v, %v", f.Name, f.Status, median, f.Values, want[i].status, want[i].median, want[i].values)
		}
	}
	wantTally := GoalTally{Total: 3, Met: 1,
		Missed:      []string{"1. Overhead: memory"},
		NotMeasured: []string{"1. Overhead: never run", "1. Overhead: never run either"}}
	if !reflect.DeepEqual(tally, wantTally) {
		t.Errorf("tally %+v, want %+v", tally, wantTally)
	}
}

func testReport() *Report {
	r := &Report{
		Machine: Machine{CPU: "AMD EPYC", Cores: 2, Memory: "23.5 GiB", OS: "linux/amd64", Go: "go1.26.8",
			Commit: "4f8614c0a1b2", LoadStart: "0.25", LoadEnd: "1.50",
			Steal: "0.4%", ReferenceStart: "21.5", ReferenceEnd: "22.0"},
		Started: time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 22, 14, 12, 30, 0, time.UTC),
		Count: 5,
		Groups: []GroupRun{
			{Group: Group{Name: "overhead", Pkg: "./x", Bench: "^BenchmarkA$"}, Command: "go test -bench '^BenchmarkA$' ./x", Seconds: 61},
			{Group: Group{Name: "memory | rss", Pkg: "./y", Bench: "^BenchmarkC$"}, Command: "go test -bench 'C|D' ./y", Seconds: 2, Error: "go test exited with 1"},
		},
	}
	r.Items, r.Goals = Evaluate(testItems(), testSeries())
	return r
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := testReport().WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"| CPU | AMD EPYC |",
		"| cores | 2 |",
		"| Go | go1.26.8 |",
		"| commit | 4f8614c0a1b2 |",
		"| date | 2026-11-22T14:00:00Z |",
		"| wall time | 12m30s |",
		"| load average (1 min) at start / end | 0.25 / 1.50 |",
		"| CPU time stolen by the hypervisor during the run | 0.4% |",
		"| reference computation (SHA-256 of 32 MiB, median of 5), ms at start / end | 21.5 / 22.0 |",
		"**Goals: 1 of 3 met, 1 missed.** Not measured: 2",
		"Missed:\n\n- 1. Overhead: memory. The heap holds the queue\n",
		`> Group "memory | rss" failed: go test exited with 1`,
		"## 1. Overhead\n\nHow it is measured.\n",
		"| ratio | 0.9100 | 0.8900 – 0.9500 | 4.4% | 3 | ≥ 0.9 | met |",
		"| rate | 200 | 100 – 300 | 50.0% | 3 | — |  |",
		"| memory | 70 | 60 – 80 | 14.3% | 3 | ≤ 64 | **MISSED** |",
		"| b ÷ a | 0.5000 | 0.5000 – 2 | 300.0% | 3 | — |  |",
		"| never run | — | — | — | 0 | = 2 | not measured |",
		"| memory \\| rss | `go test -bench 'C\\|D' ./y` | 2s | failed: go test exited with 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Shown only when missed") {
		t.Errorf("report.md explains a goal that was met:\n%s", md)
	}
}

func TestWriteJSONRoundTrips(t *testing.T) {
	r := testReport()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("report.json decodes to\n%+v\nwant\n%+v", back, *r)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	fig := raw["items"].([]any)[0].(map[string]any)["figures"].([]any)[2].(map[string]any)
	if fig["status"] != "MISSED" || fig["goalText"] != "≤ 64" || fig["summary"].(map[string]any)["median"] != 70.0 {
		t.Errorf("figure JSON %v, want status MISSED, goal text and median", fig)
	}
}

// Every figure of the real plan must come from a benchmark some group
// runs, and the items must be the six.
func TestPlanFiguresComeFromGroups(t *testing.T) {
	for i, it := range items {
		if it.Number != i+1 || it.Title == "" || it.How == "" || len(it.Figures) == 0 {
			t.Errorf("item %d: %+v", i+1, it)
		}
		for _, f := range it.Figures {
			refs := []Ref{f.Ref}
			if f.Den != nil {
				refs = append(refs, *f.Den)
			}
			for _, ref := range refs {
				top, _, _ := strings.Cut(ref.Bench, "/")
				found := false
				for _, g := range groups {
					if regexp.MustCompile(g.Bench).MatchString(top) {
						found = true
					}
				}
				if !found || ref.Unit == "" {
					t.Errorf("figure %q: benchmark %s (unit %q) is run by no group", f.Name, ref.Bench, ref.Unit)
				}
			}
		}
	}
}

func TestFieldReadsProcFiles(t *testing.T) {
	cpuinfo := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nmodel name\t: other\n"
	if got := field(strings.NewReader(cpuinfo), "model name"); got != "AMD EPYC 7B13" {
		t.Errorf("model name = %q", got)
	}
	if got := field(strings.NewReader(cpuinfo), "MemTotal"); got != "unknown: no MemTotal" {
		t.Errorf("absent key = %q", got)
	}
}
