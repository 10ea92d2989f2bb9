package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is everything one run measured; report.json is its JSON and
// report.md its rendering.
type Report struct {
	Machine  Machine      `json:"machine"`
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
	Count    int          `json:"count"` // repetitions per benchmark unless a group says otherwise
	Groups   []GroupRun   `json:"groups"`
	Goals    GoalTally    `json:"goals"`
	Items    []ItemResult `json:"items"`
}

// GroupRun is how one group's `go test` went.
type GroupRun struct {
	Group
	Command string  `json:"command"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
}

// GoalTally counts the figures that have a goal.
type GoalTally struct {
	Total       int      `json:"total"`
	Met         int      `json:"met"`
	Missed      []string `json:"missed"`
	NotMeasured []string `json:"notMeasured"`
}

// ItemResult is one item's table.
type ItemResult struct {
	Number  int            `json:"number"`
	Title   string         `json:"title"`
	How     string         `json:"how"`
	Figures []FigureResult `json:"figures"`
}

// Figure statuses.
const (
	StatusMet         = "met"
	StatusMissed      = "MISSED"
	StatusNotMeasured = "not measured"
	StatusNoGoal      = "" // a figure reported for context
)

// FigureResult is one row: the repetitions, their summary and the verdict.
type FigureResult struct {
	Name        string    `json:"name"`
	Benchmark   string    `json:"benchmark"`
	Unit        string    `json:"unit"`
	Denominator *Ref      `json:"denominator,omitempty"` // the value is Benchmark.Unit ÷ this, per repetition
	Values      []float64 `json:"values"`
	Summary     *Summary  `json:"summary"` // nil: not measured
	Goal        *Goal     `json:"goal,omitempty"`
	GoalText    string    `json:"goalText,omitempty"`
	Status      string    `json:"status"`
	// Cause explains a miss (FigureSpec.IfMissed); empty unless missed.
	Cause string `json:"cause,omitempty"`
}

// Evaluate computes every figure of items from the measured series.
func Evaluate(items []Item, series Series) ([]ItemResult, GoalTally) {
	tally := GoalTally{Missed: []string{}, NotMeasured: []string{}}
	out := make([]ItemResult, 0, len(items))
	for _, it := range items {
		ir := ItemResult{Number: it.Number, Title: it.Title, How: it.How}
		for _, f := range it.Figures {
			fr := FigureResult{Name: f.Name, Benchmark: f.Bench, Unit: f.Unit, Denominator: f.Den, Goal: f.Goal}
			fr.Values = series.Values(f.Bench, f.Unit)
			if f.Den != nil {
				fr.Values = Ratios(fr.Values, series.Values(f.Den.Bench, f.Den.Unit))
			}
			if fr.Values == nil {
				fr.Values = []float64{}
			}
			s, measured := Summarize(fr.Values)
			if measured {
				fr.Summary = &s
			}
			label := figureLabel(it.Number, it.Title, f.Name)
			switch {
			case f.Goal == nil && measured:
				fr.Status = StatusNoGoal
			case !measured:
				fr.Status = StatusNotMeasured
			case f.Goal.Met(s.Median):
				fr.Status = StatusMet
			default:
				fr.Status = StatusMissed
				fr.Cause = f.IfMissed
			}
			if f.Goal != nil {
				fr.GoalText = f.Goal.String()
				tally.Total++
				switch fr.Status {
				case StatusMet:
					tally.Met++
				case StatusMissed:
					tally.Missed = append(tally.Missed, label)
				default:
					tally.NotMeasured = append(tally.NotMeasured, label)
				}
			} else if !measured {
				tally.NotMeasured = append(tally.NotMeasured, label)
			}
			ir.Figures = append(ir.Figures, fr)
		}
		out = append(out, ir)
	}
	return out, tally
}

// figureLabel names a figure in the goal tally: "item. title: figure".
func figureLabel(item int, title, figure string) string {
	return fmt.Sprintf("%d. %s: %s", item, title, figure)
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown renders r as report.md.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "# mqprobe benchmark report\n\n")
	fmt.Fprintf(&b, "Written by `make bench` (`go run ./bench`) from the run itself: every figure is the median of "+
		"its repetitions in this run, with their range and the largest deviation from the median. "+
		"No figure is typed by hand; a missed goal is marked MISSED. The same data, repetition by repetition, "+
		"is in `report.json`, the benchmark output in `raw.txt`. To reproduce: `make bench` (it starts PostgreSQL, "+
		"dynalite, goaws and builds the MQ client stub through scripts/with-services.sh).\n\n")
	fmt.Fprintf(&b, "| machine | |\n|---|---|\n")
	rows := [][2]string{
		{"CPU", m.CPU},
		{"cores", fmt.Sprint(m.Cores)},
		{"memory", m.Memory},
		{"OS", m.OS},
		{"Go", m.Go},
		{"commit", m.Commit},
		{"date", r.Started.UTC().Format(time.RFC3339)},
		{"wall time", r.Finished.Sub(r.Started).Round(time.Second).String()},
		{"load average (1 min) at start / end", m.LoadStart + " / " + m.LoadEnd},
		{"CPU time stolen by the hypervisor during the run", m.Steal},
		{"reference computation (SHA-256 of 32 MiB, median of 5), ms at start / end", m.ReferenceStart + " / " + m.ReferenceEnd},
		{"repetitions", fmt.Sprintf("%d per benchmark (see each row's n)", r.Count)},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], escape(row[1]))
	}
	fmt.Fprintf(&b, "\n**Goals: %d of %d met", r.Goals.Met, r.Goals.Total)
	if n := len(r.Goals.Missed); n > 0 {
		fmt.Fprintf(&b, ", %d missed", n)
	}
	b.WriteString(".**")
	if n := len(r.Goals.NotMeasured); n > 0 {
		fmt.Fprintf(&b, " Not measured: %d (see the runs at the end).", n)
	}
	b.WriteString("\n")
	if len(r.Goals.Missed) > 0 {
		b.WriteString("\nMissed:\n\n")
		causes := map[string]string{}
		for _, it := range r.Items {
			for _, f := range it.Figures {
				causes[figureLabel(it.Number, it.Title, f.Name)] = f.Cause
			}
		}
		for _, name := range r.Goals.Missed {
			if cause := causes[name]; cause != "" {
				fmt.Fprintf(&b, "- %s. %s\n", name, cause)
			} else {
				fmt.Fprintf(&b, "- %s\n", name)
			}
		}
	}
	for _, g := range r.Groups {
		if g.Error != "" {
			fmt.Fprintf(&b, "\n> Group %q failed: %s\n", g.Name, escape(g.Error))
		}
	}
	for _, it := range r.Items {
		b.WriteString(it.Markdown())
	}
	b.WriteString("\n## Runs\n\n| group | command | time | outcome |\n|---|---|---:|---|\n")
	for _, g := range r.Groups {
		outcome := "ok"
		if g.Error != "" {
			outcome = "failed: " + g.Error
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", escape(g.Name), escape(g.Command), (time.Duration(g.Seconds * float64(time.Second))).Round(time.Second), escape(outcome))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escape keeps text inside one Markdown table cell.
func escape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Markdown is the item's section of report.md.
func (it ItemResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %d. %s\n\n%s\n\n", it.Number, it.Title, it.How)
	b.WriteString("| figure | median | min – max | ± | n | goal | result |\n|---|---:|---:|---:|---:|---|---|\n")
	for _, f := range it.Figures {
		median, span, spread, n := "—", "—", "—", "0"
		if s := f.Summary; s != nil {
			median = formatValue(s.Median)
			span = formatValue(s.Min) + " – " + formatValue(s.Max)
			if s.SpreadPct != nil {
				spread = fmt.Sprintf("%.1f%%", *s.SpreadPct)
			}
			n = fmt.Sprint(s.N)
		}
		goal := f.GoalText
		if goal == "" {
			goal = "—"
		}
		result := f.Status
		switch f.Status {
		case StatusMissed:
			result = "**MISSED**"
		case StatusNoGoal:
			result = ""
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", escape(f.Name), median, span, spread, n, goal, result)
	}
	return b.String()
}
