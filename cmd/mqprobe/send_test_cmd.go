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
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mqprobe/mqprobe/internal/daemonclient"
	"github.com/mqprobe/mqprobe/internal/probe"
)

// testPollEvery is how often send test --wait asks GET /tests/{id}.
var testPollEvery = 500 * time.Millisecond

// testDefaultDuration is the run's length when neither --duration nor
// --count is given (the schema needs one of them).
const testDefaultDuration = 30 * time.Second

// testOptions are send test's own flags.
type testOptions struct {
	duration   time.Duration
	count      int
	rate       int
	size       int
	replyQueue string
	mode       string
	persistent bool
	progress   time.Duration
}

func testCommand(send *sendOptions) *cobra.Command {
	opts := &testOptions{}
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
stops waiting). Finally print a summary table with a latency histogram
(--output json: the result JSON).

Exit status: 0 started (without --wait) or COMPLETED, 1 FAILED (or daemon
unreachable), 2 usage, 3 REJECTED, 4 not decided (retry later, or the final
result could not be read).`,
	}
	f := pflag.NewFlagSet("test", pflag.ContinueOnError)
	c.RunE = func(cmd *cobra.Command, _ []string) error { return runSendTest(cmd, send, opts, flagNames(f)) }
	f.DurationVar(&opts.duration, "duration", testDefaultDuration, "how long the run lasts, whole seconds (durationSeconds)")
	f.IntVar(&opts.count, "count", 0, "round trips to make (count); with --duration the run ends at whichever comes first")
	f.IntVar(&opts.rate, "rate", 0, "probe messages per second (batch.rateLimitPerSec; default: as fast as possible)")
	sizeVar(f, &opts.size, "size", 1024, "probe message size in bytes (batch.messageSizeBytes)")
	f.StringVar(&opts.replyQueue, "reply-queue", "", "queue the probe messages are read back from (default: the target queue); with --mode requestReply the queue, or model queue, replies come to")
	f.StringVar(&opts.mode, "mode", "", "loop (the default) or requestReply: each probe a request a responder answers to --reply-queue (mode)")
	f.BoolVar(&opts.persistent, "persistent", false, "put persistent probe messages (mqProps.persistence)")
	f.DurationVar(&opts.progress, "progress", 5*time.Second, "seconds between the daemon's progress events (progressSeconds), and between plain progress lines with --wait")
	c.Flags().AddFlagSet(f)
	return c
}

// testSpec is what the progress display needs to know about the run.
type testSpec struct {
	Duration time.Duration
	Count    int64
}

// testBody is --file's content, or the TEST command the flags describe;
// ownFlags are send test's own flags.
func testBody(cmd *cobra.Command, target *targetOptions, o *testOptions, ownFlags []string) ([]byte, error) {
	flags := cmd.Flags()
	var fillErr error
	body, err := commandBody(cmd, target, "test", ownFlags, func(c map[string]any) {
		if flags.Changed("duration") || !flags.Changed("count") {
			secs, err := wholeSeconds(cmd, "--duration", o.duration)
			if err != nil {
				fillErr = err
				return
			}
			c["durationSeconds"] = secs
		}
		given(flags, "count", c, "count", o.count)
		batch := map[string]any{}
		given(flags, "size", batch, "messageSizeBytes", o.size)
		given(flags, "rate", batch, "rateLimitPerSec", o.rate)
		if len(batch) > 0 {
			c["batch"] = batch
		}
		if flags.Changed("persistent") {
			c["mqProps"] = map[string]any{"persistence": map[bool]string{true: "persistent", false: "nonpersistent"}[o.persistent]}
		}
		given(flags, "reply-queue", c, "replyQueue", o.replyQueue)
		given(flags, "mode", c, "mode", o.mode)
		if flags.Changed("progress") {
			secs, err := wholeSeconds(cmd, "--progress", o.progress)
			if err != nil {
				fillErr = err
				return
			}
			c["progressSeconds"] = secs
		}
	})
	if fillErr != nil {
		return nil, fillErr
	}
	return body, err
}

func wholeSeconds(cmd *cobra.Command, flag string, d time.Duration) (int, error) {
	if d < time.Second || d%time.Second != 0 {
		return 0, usageErrorf(cmd, "%s %s: give whole seconds, at least 1s", flag, d)
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

func runSendTest(cmd *cobra.Command, send *sendOptions, opts *testOptions, ownFlags []string) error {
	if err := send.output.validate(cmd); err != nil {
		return err
	}
	body, err := testBody(cmd, &send.target, opts, ownFlags)
	if err != nil {
		return err
	}
	tc, err := newDaemonClient(cmd, &send.client)
	if err != nil {
		return err
	}
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	ctx := cmd.Context()
	resp, data, err := tc.Do(ctx, http.MethodPost, "tests", body, send.keys.header())
	if err != nil {
		hint := "GET /tests for the runs"
		if key := send.keys.key; key != "" {
			hint = lookupHint(tc, "TEST", key)
		}
		return unreachable(tc, err, hint)
	}
	replay := resp.Header.Get("Idempotent-Replay") == "true"
	if !send.wait || (resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK) {
		if resp.StatusCode == http.StatusAccepted || !send.output.table(out) {
			fmt.Fprintln(out, indentJSON(data))
		} else if err := send.output.print(out, data); err != nil {
			return err
		}
		if replay {
			fmt.Fprintln(errOut, "(replayed: this test already ran; the recorded result is shown)")
		}
		if resp.StatusCode == http.StatusAccepted {
			if loc := resp.Header.Get("Location"); loc != "" {
				fmt.Fprintf(errOut, "(started: GET %s for its progress)\n", loc)
			}
			return nil
		}
		return exitFor(resp, data)
	}
	if resp.StatusCode == http.StatusOK && !inProgress(data) { // a replay of a finished run
		if replay {
			fmt.Fprintln(errOut, "(replayed: this test already ran; the recorded result is shown)")
		}
		return finishTest(out, &send.output, resp, data)
	}
	loc, id, err := testLocation(resp, data)
	if err != nil {
		fmt.Fprintln(out, indentJSON(data))
		return &exitError{code: exitNotDecided, err: err}
	}
	progress := opts.progress
	if progress <= 0 {
		progress = 5 * time.Second
	}
	fmt.Fprintf(errOut, "test %s started (GET %s); Ctrl-C stops it\n", id, loc)
	// On a terminal the live line; otherwise plain lines on stderr, so
	// stdout holds the result alone.
	progressOut := errOut
	if isTerminal(out) {
		progressOut = out
	}
	pp := &testProgress{line: &progressLine{w: progressOut, tty: progressOut == out, every: progress}, spec: specOf(body)}
	resp, data, err = waitTest(ctx, tc, loc, id, pp, errOut, send.client.Timeout)
	pp.line.end()
	if err != nil {
		return err
	}
	return finishTest(out, &send.output, resp, data)
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
// keeps waiting; a second SIGINT or SIGTERM stops the waiting.
func waitTest(ctx context.Context, tc *daemonclient.Client, loc, id string, pp *testProgress, errOut io.Writer, timeout time.Duration) (*http.Response, []byte, error) {
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
		resp, data, err := tc.Do(bg, http.MethodGet, loc, nil, nil)
		switch {
		case err != nil:
			if time.Since(lastOK) > timeout {
				return nil, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: no answer from the daemon for %s (the run may go on): %w", id, timeout, err)}
			}
		case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadGateway:
			pp.line.end()
			fmt.Fprintln(pp.line.w, indentJSON(data))
			return nil, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: GET %s answered %s", id, loc, resp.Status)}
		default:
			lastOK = time.Now()
			var run testRun
			if err := json.Unmarshal(data, &run); err != nil {
				return nil, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: reading its state: %w", id, err)}
			}
			if run.Status != "IN_PROGRESS" {
				if pp.line.tty && pp.line.drawn > 0 && run.Result != nil {
					pp.update(run.Result, time.Now()) // the live line's final state
				}
				return resp, data, nil
			}
			pp.update(run.Result, time.Now())
		}
		select {
		case <-interrupted:
			interrupted = nil
			again = make(chan os.Signal, 1)
			signal.Notify(again, os.Interrupt, syscall.SIGTERM)
			pp.line.end()
			fmt.Fprintf(errOut, "stopping test %s (Ctrl-C again to stop waiting)\n", id)
			if resp, data, err := tc.Do(bg, http.MethodPost, strings.TrimSuffix(loc, "/")+"/stop", nil, nil); err != nil {
				fmt.Fprintf(errOut, "stop: %v\n", err)
			} else if resp.StatusCode != http.StatusAccepted {
				fmt.Fprintf(errOut, "stop: %s %s\n", resp.Status, bytes.TrimSpace(data))
			}
		case <-again:
			return nil, nil, &exitError{code: exitNotDecided, err: fmt.Errorf("test %s: stopped waiting; GET %s for its result", id, loc)}
		case <-tick.C:
		}
	}
}

// testRun is the part of GET /tests/{id}'s result data send test reads.
type testRun struct {
	Status string      `json:"status"`
	Result *testResult `json:"result"`
}

// testResult is a run's statistics, as the probe engine writes them.
type testResult = probe.Stats

// finishTest prints a finished run as out asks and maps its status to the
// exit status.
func finishTest(w io.Writer, out *outputOptions, resp *http.Response, data []byte) error {
	if err := out.print(w, data); err != nil {
		return err
	}
	return exitFor(resp, data)
}

// testProgress shows a running test on a progressLine.
type testProgress struct {
	line  *progressLine
	spec  testSpec
	start time.Time
}

func (p *testProgress) update(r *testResult, now time.Time) {
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
	p99 := strconv.FormatFloat(r.LatencyMs.P99, 'f', 3, 64)
	throughput := strconv.FormatFloat(r.ThroughputPerSec, 'f', 1, 64)
	p.line.show(p.fraction(elapsed, r.Sent), elapsed, p.spec.Duration, []counter{
		{fmt.Sprintf("sent %d", r.Sent), fmt.Sprintf("sent=%d", r.Sent)},
		{fmt.Sprintf("recv %d", r.Received), fmt.Sprintf("received=%d", r.Received)},
		{fmt.Sprintf("lost %d", r.Lost), fmt.Sprintf("lost=%d", r.Lost)},
		{"p99 " + p99 + "ms", "p99=" + p99 + "ms"},
		{throughput + " msg/s", "throughput=" + throughput + "msg/s"},
	}, now)
}

// fraction is how far the run is, 0..1, or -1 when unknown: by time for a
// duration, by messages sent for a count, whichever is further for both.
func (p *testProgress) fraction(elapsed time.Duration, sent int64) float64 {
	f := -1.0
	if p.spec.Duration > 0 {
		f = elapsed.Seconds() / p.spec.Duration.Seconds()
	}
	if p.spec.Count > 0 {
		f = max(f, float64(sent)/float64(p.spec.Count))
	}
	return min(f, 1)
}
