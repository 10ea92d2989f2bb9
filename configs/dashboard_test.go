package configs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mqprobe/mqprobe/internal/telemetry"
)

// exposition is what the daemon's /metrics serves: each series name with
// its label names, and the metric families.
type exposition struct {
	series   map[string][]string
	families []string
}

// scrapeDaemonMetrics records through every method of telemetry.Metrics
// (so an instrument added later is covered too) and scrapes the handler
// the daemon serves at /metrics.
func scrapeDaemonMetrics(t *testing.T) exposition {
	t.Helper()
	tel, err := telemetry.Setup(context.Background(), telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	metrics := reflect.ValueOf(tel.Metrics)
	for i := range metrics.NumMethod() {
		method, name := metrics.Method(i), metrics.Type().Method(i).Name
		args := make([]reflect.Value, method.Type().NumIn())
		for j := range args {
			switch in := method.Type().In(j); {
			case in == reflect.TypeFor[context.Context]():
				args[j] = reflect.ValueOf(context.Background())
			case in == reflect.TypeFor[time.Duration]():
				args[j] = reflect.ValueOf(time.Millisecond)
			case in.Kind() == reflect.String:
				args[j] = reflect.ValueOf("x").Convert(in)
			case in.Kind() == reflect.Int:
				args[j] = reflect.ValueOf(1).Convert(in)
			case in.Kind() == reflect.Bool:
				args[j] = reflect.ValueOf(true)
			default:
				t.Fatalf("Metrics.%s: no sample for a %s argument", name, in)
			}
		}
		method.Call(args)
	}
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	exp := exposition{series: map[string][]string{}}
	for name, fam := range families {
		exp.families = append(exp.families, name)
		var labels []string
		for _, m := range fam.Metric {
			for _, l := range m.Label {
				if !slices.Contains(labels, l.GetName()) {
					labels = append(labels, l.GetName())
				}
			}
		}
		if fam.GetType() == dto.MetricType_HISTOGRAM {
			exp.series[name+"_bucket"] = append(slices.Clone(labels), "le")
			exp.series[name+"_sum"] = labels
			exp.series[name+"_count"] = labels
		} else {
			exp.series[name] = labels
		}
	}
	slices.Sort(exp.families)
	return exp
}

// promQuery is what a PromQL expression refers to.
type promQuery struct {
	selectors []promSelector
	grouping  []string // labels of by, without, on, ignoring, group_left, group_right
}

type promSelector struct {
	metrics []string // one, or the alternatives of a __name__ regex
	labels  []string // label names matched on
}

var (
	promRange       = regexp.MustCompile(`\[[^\]]*\]`)
	promSelectorRE  = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)?\{([^}]*)\}`)
	promMatcher     = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"`)
	promGrouping    = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)`)
	promIdent       = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promLabelValues = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)
	promKeywords    = []string{"and", "or", "unless", "bool", "offset"}
)

// parsePromQL finds the metrics and labels an expression refers to: enough
// PromQL for dashboards (selectors, functions, aggregations, ranges).
func parsePromQL(expr string) (promQuery, error) {
	var q promQuery
	rest := promRange.ReplaceAllString(expr, " ")
	for _, m := range promSelectorRE.FindAllStringSubmatch(rest, -1) {
		sel := promSelector{}
		if m[1] != "" {
			sel.metrics = []string{m[1]}
		}
		for _, lm := range promMatcher.FindAllStringSubmatch(m[2], -1) {
			if lm[1] == "__name__" && (lm[2] == "=" || lm[2] == "=~") {
				sel.metrics = append(sel.metrics, strings.Split(lm[3], "|")...)
				continue
			}
			sel.labels = append(sel.labels, lm[1])
		}
		if leftover := strings.Trim(promMatcher.ReplaceAllString(m[2], ""), ", "); leftover != "" {
			return q, fmt.Errorf("matcher %q not understood", leftover)
		}
		if len(sel.metrics) == 0 {
			return q, fmt.Errorf("selector %s names no metric", m[0])
		}
		q.selectors = append(q.selectors, sel)
		rest = strings.Replace(rest, m[0], " ", 1)
	}
	for _, g := range promGrouping.FindAllStringSubmatch(rest, -1) {
		for _, l := range strings.Split(g[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				q.grouping = append(q.grouping, l)
			}
		}
	}
	rest = promGrouping.ReplaceAllString(rest, " ")
	for _, loc := range promIdent.FindAllStringIndex(rest, -1) {
		word := rest[loc[0]:loc[1]]
		if slices.Contains(promKeywords, word) || strings.HasPrefix(strings.TrimSpace(rest[loc[1]:]), "(") {
			continue // an operator or a function
		}
		q.selectors = append(q.selectors, promSelector{metrics: []string{word}})
	}
	return q, nil
}

// grafanaPanel is the part of a panel the checks read; rows nest panels.
type grafanaPanel struct {
	Title      string          `json:"title"`
	Type       string          `json:"type"`
	Datasource *grafanaDS      `json:"datasource"`
	Targets    []grafanaTarget `json:"targets"`
	Panels     []grafanaPanel  `json:"panels"`
}

type grafanaDS struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type grafanaTarget struct {
	Expr       string     `json:"expr"`
	Datasource *grafanaDS `json:"datasource"`
}

type grafanaDashboard struct {
	SchemaVersion int `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Type       string     `json:"type"`
			Name       string     `json:"name"`
			Query      any        `json:"query"`
			Definition string     `json:"definition"`
			Datasource *grafanaDS `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
	Panels []grafanaPanel `json:"panels"`
}

// located is a PromQL expression and where the dashboard has it.
type located struct{ where, expr string }

// dashboardQueries reads the dashboard, checks its variables and data
// sources, and returns every query of its variables and panels.
func dashboardQueries(t *testing.T) []located {
	t.Helper()
	data, err := os.ReadFile("grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash grafanaDashboard
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	if dash.SchemaVersion < 39 {
		t.Errorf("schemaVersion %d, want at least 39", dash.SchemaVersion)
	}

	// Queries go to the data source the viewer picks.
	wantDS := grafanaDS{Type: "prometheus", UID: "${datasource}"}
	var exprs []located
	vars := map[string]string{}
	for _, v := range dash.Templating.List {
		vars[v.Name] = v.Type
		switch v.Type {
		case "datasource":
			if v.Name != "datasource" || v.Query != "prometheus" {
				t.Errorf("data source variable %q picks %v, want datasource picking prometheus", v.Name, v.Query)
			}
		case "query":
			if v.Datasource == nil || *v.Datasource != wantDS {
				t.Errorf("variable %s queries %v, want %v", v.Name, v.Datasource, wantDS)
			}
			exprs = append(exprs, located{"variable " + v.Name, v.Definition})
		}
	}
	for name, typ := range map[string]string{"datasource": "datasource", "instance": "query", "queue_manager": "query", "queue": "query"} {
		if vars[name] != typ {
			t.Errorf("variable %s is %q, want a %s variable", name, vars[name], typ)
		}
	}
	var walk func([]grafanaPanel)
	walk = func(panels []grafanaPanel) {
		for _, p := range panels {
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if p.Datasource == nil || *p.Datasource != wantDS || len(p.Targets) == 0 {
				t.Errorf("panel %q: data source %v, %d queries", p.Title, p.Datasource, len(p.Targets))
			}
			for _, tg := range p.Targets {
				if tg.Datasource == nil || *tg.Datasource != wantDS {
					t.Errorf("panel %q: query data source %v", p.Title, tg.Datasource)
				}
				exprs = append(exprs, located{"panel " + p.Title, tg.Expr})
			}
		}
	}
	walk(dash.Panels)
	return exprs
}

func TestGrafanaDashboardShowsWhatTheDaemonExposes(t *testing.T) {
	exprs := dashboardQueries(t)
	exp := scrapeDaemonMetrics(t)
	// Prometheus adds these to every scraped series.
	scrapeLabels := []string{"instance", "job"}
	used := map[string]bool{}
	for _, e := range exprs {
		where, expr := e.where, e.expr
		var valuesOf string
		if m := promLabelValues.FindStringSubmatch(expr); m != nil {
			expr, valuesOf = m[1], m[2]
		}
		q, err := parsePromQL(expr)
		if err != nil || len(q.selectors) == 0 {
			t.Errorf("%s: %q: %v, %d metrics", where, expr, err, len(q.selectors))
			continue
		}
		var labels []string
		for _, sel := range q.selectors {
			for _, name := range sel.metrics {
				have, ok := exp.series[name]
				if !ok {
					t.Errorf("%s: %s is not among the series the daemon exposes", where, name)
					continue
				}
				if strings.HasPrefix(where, "panel ") {
					used[name] = true
				}
				labels = append(labels, have...)
				for _, l := range sel.labels {
					if !slices.Contains(have, l) && !slices.Contains(scrapeLabels, l) {
						t.Errorf("%s: %s has no label %s (it has %v)", where, name, l, have)
					}
				}
			}
		}
		for _, l := range append(q.grouping, valuesOf) {
			if l != "" && !slices.Contains(labels, l) && !slices.Contains(scrapeLabels, l) {
				t.Errorf("%s: no metric of %q has the label %s", where, expr, l)
			}
		}
	}

	for _, fam := range exp.families {
		if !strings.HasPrefix(fam, "mqprobe_") {
			continue
		}
		if !used[fam] && !used[fam+"_bucket"] && !used[fam+"_count"] && !used[fam+"_sum"] {
			t.Errorf("no panel shows %s", fam)
		}
	}
}

func TestPromQLReferences(t *testing.T) {
	q, err := parsePromQL(`histogram_quantile(0.99, sum by (le, operation) (rate(a_bucket{instance=~"$i", x="1"}[$__rate_interval]))) / on (operation) b + c`)
	if err != nil {
		t.Fatal(err)
	}
	want := promQuery{
		selectors: []promSelector{{metrics: []string{"a_bucket"}, labels: []string{"instance", "x"}},
			{metrics: []string{"b"}}, {metrics: []string{"c"}}},
		grouping: []string{"le", "operation", "operation"},
	}
	if !reflect.DeepEqual(q, want) {
		t.Errorf("got %+v\nwant %+v", q, want)
	}
	q, err = parsePromQL(`{__name__=~"m1|m2", q="a"}`)
	if err != nil || !reflect.DeepEqual(q.selectors, []promSelector{{metrics: []string{"m1", "m2"}, labels: []string{"q"}}}) {
		t.Errorf("__name__ selector: %+v, %v", q, err)
	}
	if _, err := parsePromQL(`m{x=1}`); err == nil {
		t.Error("an unquoted matcher was accepted")
	}
}
