// Command bench runs mqprobe's benchmarks and writes the benchmark report:
// report.md (tables), report.json (the same, repetition by repetition) and
// raw.txt (the benchmark output they were computed from). `make bench`
// runs it with the services the benchmarks need (scripts/with-services.sh);
// it must run from the repository root.
//
//	go run ./bench [-out bench] [-count 5] [-only REGEXP]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("out", "bench", "directory that receives report.md, report.json and raw.txt")
	count := flag.Int("count", 5, "repetitions of each benchmark (the report gives their median and spread)")
	only := flag.String("only", "", "run only the groups whose name matches this regular expression; the other figures are reported as not measured")
	goTool := flag.String("go", "go", "the go command to run the benchmarks with")
	flag.Parse()
	if err := run(*out, *count, *only, *goTool); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(outDir string, count int, only, goTool string) error {
	if count < 1 {
		return fmt.Errorf("-count %d: must be at least 1", count)
	}
	filter, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("-only %q: %w", only, err)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	r := &Report{Started: time.Now().UTC(), Count: count, Machine: readMachine(goTool)}
	series := Series{}
	var raw bytes.Buffer
	var failed []string
	for _, g := range groups {
		if !filter.MatchString(g.Name) {
			continue
		}
		gr, output := runGroup(g, count, goTool)
		fmt.Fprintf(&raw, "### %s\n$ %s\n%s\n", g.Name, gr.Command, output)
		results, err := Parse(bytes.NewReader(output), runtime.GOMAXPROCS(0))
		if err != nil {
			gr.Error = strings.TrimPrefix(gr.Error+"; ", "; ") + "parse: " + err.Error()
		}
		series.Add(results)
		if gr.Error != "" {
			failed = append(failed, g.Name)
		}
		r.Groups = append(r.Groups, gr)
	}
	r.Machine.finish()
	r.Finished = time.Now().UTC()
	r.Items, r.Goals = Evaluate(items, series)
	if err := writeReport(outDir, r, raw.Bytes()); err != nil {
		return err
	}
	// The cost table is what a platform team asks for first: printed too.
	for _, it := range r.Items {
		if it.Title == costTitle {
			fmt.Print(it.Markdown())
		}
	}
	fmt.Fprintf(os.Stderr, "bench: %d of %d goals met; wrote %s in %s\n", r.Goals.Met, r.Goals.Total,
		filepath.Join(outDir, "report.md"), r.Finished.Sub(r.Started).Round(time.Second))
	if len(failed) > 0 {
		return fmt.Errorf("benchmark groups failed: %s (see %s)", strings.Join(failed, ", "), filepath.Join(outDir, "raw.txt"))
	}
	return nil
}

// runGroup runs one group's go test, echoing its output to stderr as it
// comes, and returns its record and output.
func runGroup(g Group, count int, goTool string) (GroupRun, []byte) {
	if g.Count > 0 {
		count = g.Count
	}
	args := []string{"test", "-run", "^$", "-bench", g.Bench, "-count", strconv.Itoa(count), "-timeout", "60m"}
	if g.Benchtime != "" {
		args = append(args, "-benchtime", g.Benchtime)
	}
	if g.Tags != "" {
		args = append(args, "-tags", g.Tags)
	}
	args = append(args, g.Pkg)
	gr := GroupRun{Group: g, Command: goTool + " " + quoteArgs(args)}
	gr.Count = count
	fmt.Fprintf(os.Stderr, "==> %s: %s\n", g.Name, gr.Command)
	var out bytes.Buffer
	cmd := exec.Command(goTool, args...)
	cmd.Stdout = io.MultiWriter(&out, os.Stderr)
	cmd.Stderr = cmd.Stdout
	began := time.Now()
	err := cmd.Run()
	gr.Seconds = time.Since(began).Seconds()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			gr.Error = fmt.Sprintf("go test exited with %d", exit.ExitCode())
		} else {
			gr.Error = err.Error()
		}
	}
	return gr, out.Bytes()
}

// quoteArgs joins args as a shell would need them.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$|()*? ") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

func writeReport(dir string, r *Report, raw []byte) error {
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		return fmt.Errorf("report.md: %w", err)
	}
	if err := r.WriteJSON(&js); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	for name, data := range map[string][]byte{"report.md": md.Bytes(), "report.json": js.Bytes(), "raw.txt": raw} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}
