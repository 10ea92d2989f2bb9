package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/probe"
)

// testPollEvery is how often send test --wait asks GET /tests/{id}.
var testPollEvery = 500 * time.Millisecond

// testDefaultDuration is the run's length when neither --duration nor
// --count is given (the schema needs one of them).
const testDefaultDuration = 30 * time.Second

func testCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "test",
		Short: "Run a timed round-trip probe (TEST); with --wait, watch it live",
		Long: `Start a TEST run on the daemon (POST /tests): put correlId-tagged probe
messages to the target queue and get them back (from --reply-queue when
given), measuring round-trip latency, for --duration and/or --count round
trips. The test runs over the daemon's HTTP API, whatever the mode.
Only the flags you give are sent; without --duration and --count the run
lasts 30s. --key becomes the test id.

Without --wait, print the daemon's answer ({"testId", "status"}) and exit.
With --wait, poll GET /tests/{id} every 500ms: on a terminal one live line
(progress bar, sent, received, lost, p99, throughput), otherwise a plain line
every --progress; Ctrl-C asks the daemon to stop the run (POST
/tests/{id}/stop) and keeps waiting for its final result (a second Ctrl-C
stops waiting). Finally print a summary table.

Exit status: 0 started (without --wait) or COMPLETED, 1 FAILED (or daemon
unreachable), 2 usage, 3 REJECTED, 4 not decided (retry later, or the final
result could not be read).`,
		Args: cobra.NoArgs,
		RunE: runSendTest,
	}
	f := c.Flags()
	f.Duration("duration", testDefaultDuration, "how long the run lasts, whole seconds (durationSeconds)")
	f.Int("count", 0, "round trips to make (count); with --duration the run ends at whichever comes first")
	f.Int("rate", 0, "probe messages per second (batch.rateLimitPerSec; default: as fast as possible)")
	f.Int("size", 1024, "probe message size in bytes (batch.messageSizeBytes)")
	f.String("reply-queue", "", "queue the probe messages are read back from (default: the target queue)")
	f.Bool("persistent", false, "put persistent probe messages (mqProps.persistence)")
	f.Bool("wait", false, "wait for the run to end, showing its progress, then print a summary table")
	f.Duration("progress", 5*time.Second, "seconds between the daemon's progress events (progressSeconds), and between plain progress lines with --wait")
	return c
}

// testSpec is what the progress display needs to know about the run.
type testSpec struct {
	Duration time.Duration
	Count    int64
}

// testBody is --file's content, or the TEST command the flags describe.
func testBody(cmd *cobra.Command) ([]byte, error) {
	if file, _ := cmd.Flags().GetString("file"); file != "" {
		return commandBody(cmd, "test")
	}
	flags := cmd.Flags()
	base, err := commandBody(cmd, "test") // target or targetRef, tags, operationType
	if err != nil {
		return nil, err
	}
	c := map[string]any{}
	if err := json.Unmarshal(base, &c); err != nil {
		return nil, err
	}
	if flags.Changed("duration") || !flags.Changed("count") {
		d, _ := flags.GetDuration("duration")
		secs, err := wholeSeconds("--duration", d)
		if err != nil {
			return nil, err
		}
		c["durationSeconds"] = secs
	}
	setIf(flags, "count", c, "count")
	batch := map[string]any{}
	setIf(flags, "size", batch, "messageSizeBytes")
	setIf(flags, "rate", batch, "rateLimitPerSec")
	if len(batch) > 0 {
		c["batch"] = batch
	}
	if flags.Changed("persistent") {
		p, _ := flags.GetBool("persistent")
		c["mqProps"] = map[string]any{"persistence": map[bool]string{true: "persistent", false: "nonpersistent"}[p]}
	}
	setIf(flags, "reply-queue", c, "replyQueue")
	if flags.Changed("progress") {
		d, _ := flags.GetDuration("progress")
		secs, err := wholeSeconds("--progress", d)
		if err != nil {
			return nil, err
		}
		c["progressSeconds"] = secs
	}
	return json.Marshal(c)
}

func wholeSeconds(flag string, d time.Duration) (int, error) {
	if d < time.Second || d%time.Second != 0 {
		return 0, fmt.Errorf("%s %s: give whole seconds, at least 1s", flag, d)
	}
	return int(d / time.Second), nil
}

// specOf reads the run's length from the command body, for the progress bar.
func specOf(body []byte) testSpec {
	var c struct {
		DurationSeconds int64 `json:"durationSeconds"`
		Count           int64 `json:"count"`
	}
	json.Unmarshal(body, &c) //nolint:errcheck // the daemon judges the body; the bar just has less to show
	return testSpec{Duration: time.Duration(c.DurationSeconds) * time.Second, Count: c.Count}
}

func runSendTest(cmd *cobra.Command, _ []string) error {
	body, err := testBody(cmd)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	flags := cmd.Flags()
	tc, err := newDaemonClient(cmd)
	if err != nil {
		return err
	}
	timeout, _ := flags.GetDuration("timeout")
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	ctx := cmd.Context()
	resp, data, err := tc.do(ctx, http.MethodPost, "tests", body, idempotencyHeader(cmd))
	if err != nil {
		return unreachable(err)
	}
	replay := resp.Header.Get("Idempotent-Replay") == "true"
	wait, _ := flags.GetBool("wait")
	if !wait || (resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK) {
		fmt.Fprintln(out, indentJSON(data))
		if replay {
			fmt.Fprintln(errOut, "(replayed: this test already ran; the recorded result is shown)")
		}
		if resp.StatusCode == http.StatusAccepted {
			if loc := resp.Header.Get("Location"); loc != "" {
				fmt.Fprintf(errOut, "(started: GET %s for its progress)\n", loc)
			}
			return nil
		}
		return exitFor(resp.StatusCode, data)
	}
	if resp.StatusCode == http.StatusOK && !inProgress(data) { // a replay of a finished run
		if replay {
			fmt.Fprintln(errOut, "(replayed: this test already ran; the recorded result is shown)")
		}
		return finishTest(out, data, resp.StatusCode)
	}
	loc, id, err := testLocation(resp, data)
	if err != nil {
		fmt.Fprintln(out, indentJSON(data))
		return &exitError{code: exitNotDecided, err: err}
	}
	progress, _ := flags.GetDuration("progress")
	if progress <= 0 {
		progress = 5 * time.Second
	}
	fmt.Fprintf(errOut, "test %s started (GET %s); Ctrl-C stops it\n", id, loc)
	pp := &progressPrinter{w: out, tty: isTerminal(out), every: progress, spec: specOf(body)}
	status, data, err := waitTest(ctx, tc, loc, id, pp, errOut, timeout)
	pp.end()
	if err != nil {
		return err
	}
	return finishTest(out, data, status)
}

func inProgress(data []byte) bool {
	var run testRun
	return json.Unmarshal(data, &run) == nil && run.Status == "IN_PROGRESS"
}

// testLocation is the run's URL (the Location header, else /tests/{testId})
// and its id.
func testLocation(resp *http.Response, data []byte) (loc, id string, err error) {
	var started struct {
		TestID string `json:"testId"`
		Key    string `json:"idempotencyKey"`
	}
	json.Unmarshal(data, &started) //nolint:errcheck // Location may be enough
	if started.TestID == "" {
		started.TestID = started.Key
	}
	loc = resp.Header.Get("Location")
	if loc == "" && started.TestID != "" {
		loc = "/tests/" + url.PathEscape(started.TestID)
	}
	if loc == "" {
		return "", "", errors.New("the daemon accepted the test but named neither a Location nor a testId")
	}
	id = started.TestID
	if id == "" {
		u, err := url.Parse(loc)
		if err != nil {
			return "", "", fmt.Errorf("the Location header %q: %w", loc, err)
		}
		id = u.Path[strings.LastIndex(u.Path, "/")+1:]
		if unescaped, err := url.PathUnescape(id); err == nil {
			id = unescaped
		}
	}
	return loc, id, nil
}

// waitTest polls loc until the run is no longer IN_PROGRESS and returns the
// last answer. When ctx ends (Ctrl-C) it asks the daemon to stop the run and
// keeps waiting; a second interrupt stops the waiting.
func waitTest(ctx context.Context, tc *daemonClient, loc, id string, pp *progressPrinter, errOut io.Writer, timeout time.Duration) (int, []byte, error) {
	bg := context.WithoutCancel(ctx)
	interrupted := ctx.Done()
	var again chan os.Signal
	defer func() {
		if again != nil {
			signal.Stop(again)
		}
	}()
	tick := time.NewTicker(testPollEvery)
	defer tick.Stop()
	lastOK := time.Now()
	for {
		resp, data, err := tc.do(bg, http.MethodGet, loc, nil, nil)
		switch {
		case err != nil:
			if time.Since(lastOK) > timeout {
				return 0, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: no answer from the daemon for %s (the run may go on): %w", id, timeout, err)}
			}
		case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadGateway:
			pp.end()
			fmt.Fprintln(pp.w, indentJSON(data))
			return 0, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: GET %s answered %s", id, loc, resp.Status)}
		default:
			lastOK = time.Now()
			var run testRun
			if err := json.Unmarshal(data, &run); err != nil {
				return 0, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: reading its state: %w", id, err)}
			}
			if run.Status != "IN_PROGRESS" {
				if pp.tty && pp.drawn > 0 && run.Result != nil {
					pp.update(run.Result, time.Now()) // the live line's final state
				}
				return resp.StatusCode, data, nil
			}
			pp.update(run.Result, time.Now())
		}
		select {
		case <-interrupted:
			interrupted = nil
			again = make(chan os.Signal, 1)
			signal.Notify(again, os.Interrupt)
			pp.end()
			fmt.Fprintf(errOut, "stopping test %s (Ctrl-C again to stop waiting)\n", id)
			if resp, data, err := tc.do(bg, http.MethodPost, strings.TrimSuffix(loc, "/")+"/stop", nil, nil); err != nil {
				fmt.Fprintf(errOut, "stop: %v\n", err)
			} else if resp.StatusCode != http.StatusAccepted {
				fmt.Fprintf(errOut, "stop: %s %s\n", resp.Status, bytes.TrimSpace(data))
			}
		case <-again:
			return 0, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: stopped waiting; GET %s for its result", id, loc)}
		case <-tick.C:
		}
	}
}

// testRun is the part of GET /tests/{id}'s result data send test shows.
type testRun struct {
	IdempotencyKey string      `json:"idempotencyKey"`
	Status         string      `json:"status"`
	Target         string      `json:"target"`
	Result         *testResult `json:"result"`
	Error          *struct {
		Code    string `json:"code"`
		Reason  int32  `json:"reason"`
		Message string `json:"message"`
	} `json:"error"`
}

// testResult is a run's statistics, as the probe engine writes them.
type testResult = probe.Stats

// finishTest prints the summary table of a finished run and maps its status
// to the exit status.
func finishTest(w io.Writer, data []byte, status int) error {
	var run testRun
	if err := json.Unmarshal(data, &run); err != nil || run.Status == "" {
		fmt.Fprintln(w, indentJSON(data))
		return exitFor(status, data)
	}
	writeSummary(w, run)
	return exitFor(status, data)
}

func writeSummary(w io.Writer, run testRun) {
	head := "TEST " + run.IdempotencyKey + "  " + run.Status
	if run.Target != "" {
		head += "  " + run.Target
	}
	if r := run.Result; r != nil {
		head += "  in " + r.Elapsed.Round(time.Millisecond).String()
	}
	fmt.Fprintln(w, head)
	if r := run.Result; r != nil {
		ms := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
		rows := [][2]string{
			{"sent", fmt.Sprint(r.Sent)},
			{"received", fmt.Sprint(r.Received)},
			{"lost", fmt.Sprint(r.Lost)},
			{"duplicated", fmt.Sprint(r.Duplicated)},
			{"out of order", fmt.Sprint(r.OutOfOrder)},
		}
		if r.InFlight != 0 {
			rows = append(rows, [2]string{"in flight", fmt.Sprint(r.InFlight)})
		}
		rows = append(rows,
			[2]string{"throughput msg/s", strconv.FormatFloat(r.ThroughputPerSec, 'f', 1, 64)},
			[2]string{"latency p50 ms", ms(r.LatencyMs.P50)},
			[2]string{"latency p90 ms", ms(r.LatencyMs.P90)},
			[2]string{"latency p99 ms", ms(r.LatencyMs.P99)},
			[2]string{"latency p99.9 ms", ms(r.LatencyMs.P999)},
			[2]string{"latency max ms", ms(r.LatencyMs.Max)},
			[2]string{"stopped", strconv.FormatBool(r.Stopped)},
		)
		lw, vw := 0, 0
		for _, row := range rows {
			lw, vw = max(lw, len(row[0])), max(vw, len(row[1]))
		}
		for _, row := range rows {
			fmt.Fprintf(w, "  %-*s  %*s\n", lw, row[0], vw, row[1])
		}
	}
	if e := run.Error; e != nil {
		msg := "error: " + e.Code
		if e.Reason != 0 {
			msg += fmt.Sprintf(" (reason %d)", e.Reason)
		}
		if e.Message != "" {
			msg += ": " + e.Message
		}
		fmt.Fprintln(w, msg)
	}
}

// progressPrinter shows a running test: on a terminal one line rewritten in
// place, otherwise a plain line at most every `every`.
type progressPrinter struct {
	w     io.Writer
	tty   bool
	every time.Duration
	spec  testSpec

	start   time.Time
	last    time.Time // of the last plain line
	drawn   int       // width of the live line on screen; 0 when none
	printed bool
}

func (p *progressPrinter) update(r *testResult, now time.Time) {
	if p.start.IsZero() {
		p.start = now
	}
	if r == nil {
		r = &testResult{}
	}
	elapsed := r.Elapsed
	if elapsed == 0 {
		elapsed = now.Sub(p.start)
	}
	frac := p.fraction(elapsed, r.Sent)
	if p.tty {
		line := liveLine(frac, elapsed, p.spec, r)
		pad := ""
		if n := p.drawn - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprint(p.w, "\r"+line+pad)
		p.drawn = len(line)
		return
	}
	if p.printed && now.Sub(p.last) < p.every {
		return
	}
	p.printed, p.last = true, now
	fmt.Fprintln(p.w, plainLine(frac, elapsed, p.spec, r))
}

// end finishes the live line so what follows starts on a line of its own.
func (p *progressPrinter) end() {
	if p.drawn > 0 {
		fmt.Fprintln(p.w)
		p.drawn = 0
	}
}

// fraction is how far the run is, 0..1, or -1 when unknown: by time for a
// duration, by messages sent for a count, whichever is further for both.
func (p *progressPrinter) fraction(elapsed time.Duration, sent int64) float64 {
	f := -1.0
	if p.spec.Duration > 0 {
		f = elapsed.Seconds() / p.spec.Duration.Seconds()
	}
	if p.spec.Count > 0 {
		f = max(f, float64(sent)/float64(p.spec.Count))
	}
	return min(f, 1)
}

func progressOf(frac float64, elapsed time.Duration, spec testSpec) string {
	s := elapsed.Round(time.Second).String()
	if elapsed < time.Minute {
		s = strconv.FormatFloat(elapsed.Seconds(), 'f', 1, 64) + "s"
	}
	if spec.Duration > 0 {
		s += "/" + spec.Duration.String()
	}
	if frac >= 0 {
		s += fmt.Sprintf(" %3.0f%%", frac*100)
	}
	return s
}

// liveLine is the terminal's progress line, e.g.
// [########------------] 12.4s/30s  41%  sent 1200  recv 1198  lost 0  p99 4.210ms  99.8 msg/s
func liveLine(frac float64, elapsed time.Duration, spec testSpec, r *testResult) string {
	const width = 20
	bar := strings.Repeat("?", width)
	if frac >= 0 {
		n := int(frac * width)
		bar = strings.Repeat("#", n) + strings.Repeat("-", width-n)
	}
	return fmt.Sprintf("[%s] %s  sent %d  recv %d  lost %d  p99 %.3fms  %.1f msg/s",
		bar, progressOf(frac, elapsed, spec), r.Sent, r.Received, r.Lost, r.LatencyMs.P99, r.ThroughputPerSec)
}

// plainLine is a progress line for logs, e.g.
// progress 12.4s/30s  41%  sent=1200 received=1198 lost=0 p99=4.210ms throughput=99.8msg/s
func plainLine(frac float64, elapsed time.Duration, spec testSpec, r *testResult) string {
	return fmt.Sprintf("progress %s  sent=%d received=%d lost=%d p99=%.3fms throughput=%.1fmsg/s",
		progressOf(frac, elapsed, spec), r.Sent, r.Received, r.Lost, r.LatencyMs.P99, r.ThroughputPerSec)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func indentJSON(data []byte) string {
	var pretty bytes.Buffer
	data = bytes.TrimSpace(data)
	if json.Indent(&pretty, data, "", "  ") != nil {
		return string(data)
	}
	return pretty.String()
}
