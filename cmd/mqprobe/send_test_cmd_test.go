package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// fakeTests is a daemon's /tests API with scripted runs: each GET of a
// running test advances it by one step; it finishes after `steps` GETs
// (never, when steps is 0, until stopped).
type fakeTests struct {
	t      *testing.T
	steps  int
	status string // the final status: COMPLETED or FAILED

	mu      sync.Mutex
	posts   []map[string]any
	headers []http.Header
	gets    int
	stops   []string
	runs    map[string]*fakeRun
	polled  chan struct{} // one send per GET of a running test
	nextID  int
	addr    string
	problem bool // answer POST with a 422 problem
	// slowStop leaves runs going after POST /tests/{id}/stop, as a run
	// that takes its time to drain.
	slowStop bool
}

type fakeRun struct {
	step, steps int
	stopped     bool
	status      string
}

func newFakeTests(t *testing.T, steps int, status string) *fakeTests {
	f := &fakeTests{t: t, steps: steps, status: status, runs: map[string]*fakeRun{}, polled: make(chan struct{}, 100)}
	f.runs["done-key"] = &fakeRun{step: 5, steps: 5, status: "COMPLETED"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tests", f.post)
	mux.HandleFunc("GET /tests/{id}", f.get)
	mux.HandleFunc("POST /tests/{id}/stop", f.stop)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.addr = strings.TrimPrefix(srv.URL, "http://")
	return f
}

func (f *fakeTests) post(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		f.t.Errorf("POST /tests: body: %v", err)
	}
	f.posts = append(f.posts, body)
	f.headers = append(f.headers, r.Header.Clone())
	if f.problem {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"type":"https://mqprobe.dev/problems/validation","title":"Invalid command","status":422,"detail":"1 problem",`+
			`"errors":[{"path":"/durationSeconds","rule":"maximum","message":"at most 3600"}]}`)
		return
	}
	id := r.Header.Get("Idempotency-Key")
	if id == "" {
		f.nextID++
		id = fmt.Sprintf("gen-%d", f.nextID)
	}
	if run, ok := f.runs[id]; ok && run.status != "IN_PROGRESS" {
		w.Header().Set("Idempotent-Replay", "true")
		w.Header().Set("Content-Type", "application/json")
		w.Write(f.data(id, run))
		return
	}
	f.runs[id] = &fakeRun{steps: f.steps, status: "IN_PROGRESS"}
	w.Header().Set("Location", "/tests/"+id)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, `{"testId":%q,"status":"IN_PROGRESS"}`, id)
}

func (f *fakeTests) get(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	id := r.PathValue("id")
	run, ok := f.runs[id]
	if !ok {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"title":"Not found","status":404}`)
		return
	}
	if run.status == "IN_PROGRESS" {
		run.step++
		if run.stopped || (run.steps > 0 && run.step >= run.steps) {
			run.status = f.status
		} else {
			select {
			case f.polled <- struct{}{}:
			default:
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(f.data(id, run))
}

func (f *fakeTests) stop(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := r.PathValue("id")
	f.stops = append(f.stops, id)
	run, ok := f.runs[id]
	if !ok || run.status != "IN_PROGRESS" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	run.stopped = !f.slowStop
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, `{"testId":%q,"stopping":true}`, id)
}

// data is a run's result data: 100 messages a step, 1 lost at the end.
func (f *fakeTests) data(id string, run *fakeRun) []byte {
	sent := int64(100 * run.step)
	received, lost := sent, int64(0)
	if run.status != "IN_PROGRESS" && sent > 0 {
		received, lost = sent-1, 1
	}
	res := map[string]any{
		"sent": sent, "received": received, "lost": lost, "duplicated": 2, "outOfOrder": 3,
		"elapsed": fmt.Sprintf("PT%dS", run.step), "throughputPerSec": 99.5,
		"latencyMs": map[string]any{"p50": 1.25, "p90": 2.5, "p99": 4.125, "p999": 8.0, "max": 12.75},
	}
	res["stopped"], res["inFlight"] = run.stopped, 0
	if run.status != "IN_PROGRESS" && received > 400 {
		res["latencyHistogram"] = []map[string]any{{"upToMs": 1, "count": 400}, {"upToMs": 2, "count": 0}, {"upToMs": 5, "count": received - 400}}
	}
	data := map[string]any{"operationType": "TEST", "idempotencyKey": id, "status": run.status, "replay": false,
		"target": "QM1:DEV.QUEUE.1", "result": res, "error": nil}
	if run.status == "FAILED" {
		data["error"] = map[string]any{"code": "MQ_ERROR", "reason": 2085, "message": "MQRC_UNKNOWN_OBJECT_NAME"}
	}
	out, _ := json.Marshal(data)
	return out
}

func (f *fakeTests) lastPost() (map[string]any, http.Header) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.posts) == 0 {
		f.t.Fatal("no POST /tests")
	}
	return f.posts[len(f.posts)-1], f.headers[len(f.headers)-1]
}

func (f *fakeTests) getCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gets
}

// runCLI runs the CLI in-process under ctx, as main does, and returns
// stdout, stderr and the exit status.
func runCLI(t *testing.T, ctx context.Context, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status := execute(ctx, args, &out, &errOut)
	return out.String(), errOut.String(), status
}

func TestSendTestBody(t *testing.T) {
	f := newFakeTests(t, 3, "COMPLETED")
	out, status := mqprobe(t, "send", "test", "--addr", f.addr, "--queue", "DEV.QUEUE.2", "--duration", "45s", "--count", "500",
		"--rate", "200", "--size", "256", "--reply-queue", "DEV.REPLY", "--mode", "requestReply", "--persistent", "--progress", "2s", "--key", "t-body",
		"--tag", "team=mw")
	if status != 0 || !strings.Contains(out, `"testId": "t-body"`) || !strings.Contains(out, `"status": "IN_PROGRESS"`) {
		t.Errorf("no --wait: status %d, output %s", status, out)
	}
	body, header := f.lastPost()
	want := `{"batch":{"messageSizeBytes":256,"rateLimitPerSec":200},"count":500,"durationSeconds":45,"mode":"requestReply",` +
		`"mqProps":{"persistence":"persistent"},"operationType":"TEST","progressSeconds":2,"replyQueue":"DEV.REPLY",` +
		`"tags":{"team":"mw"},"target":{"queue":"DEV.QUEUE.2","queueManager":"QM1"}}`
	if got, _ := json.Marshal(body); string(got) != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	if k := header.Get("Idempotency-Key"); k != "t-body" {
		t.Errorf("Idempotency-Key %q", k)
	}

	// Only the flags given: the schema supplies the rest; 30s without --duration and --count.
	mqprobe(t, "send", "test", "--addr", f.addr, "--target-ref", "qm1-probe")
	body, header = f.lastPost()
	if got, _ := json.Marshal(body); string(got) != `{"durationSeconds":30,"operationType":"TEST","targetRef":"qm1-probe"}` {
		t.Errorf("minimal body %s", got)
	}
	if _, ok := header["Idempotency-Key"]; ok {
		t.Errorf("Idempotency-Key sent without --key")
	}
	// With a profile, --queue names one of the queues the profile allows.
	mqprobe(t, "send", "test", "--addr", f.addr, "--target-ref", "qm1-probe", "--queue", "DEV.QUEUE.2")
	body, _ = f.lastPost()
	if got, _ := json.Marshal(body); string(got) != `{"durationSeconds":30,"operationType":"TEST","queue":"DEV.QUEUE.2","targetRef":"qm1-probe"}` {
		t.Errorf("profile queue body %s", got)
	}
	mqprobe(t, "send", "test", "--addr", f.addr, "--count", "10", "--persistent=false")
	body, _ = f.lastPost()
	if got, _ := json.Marshal(body); string(got) != `{"count":10,"mqProps":{"persistence":"nonpersistent"},"operationType":"TEST","target":{"queue":"DEV.QUEUE.1","queueManager":"QM1"}}` {
		t.Errorf("count-only body %s", got)
	}

	for _, bad := range [][]string{{"--duration", "1500ms"}, {"--duration", "0s"}, {"--progress", "500ms"}} {
		if _, status := mqprobe(t, append([]string{"send", "test", "--addr", f.addr}, bad...)...); status != exitUsage {
			t.Errorf("%v: status %d, want %d", bad, status, exitUsage)
		}
	}
}

func TestSendTestWaitPlainProgressAndSummary(t *testing.T) {
	f := newFakeTests(t, 6, "COMPLETED")
	out, stderr, status := runCLI(t, context.Background(), "send", "test", "--addr", f.addr, "--duration", "10s",
		"--progress", "1s", "--wait", "--key", "t-wait", "--output", "table")
	if status != 0 {
		t.Fatalf("status %d\n%s\n%s", status, out, stderr)
	}
	if !strings.Contains(stderr, "test t-wait started (GET /tests/t-wait)") {
		t.Errorf("stderr %q", stderr)
	}
	if strings.Contains(out+stderr, "\r") {
		t.Errorf("a live line on a non-terminal: %q %q", out, stderr)
	}
	// Off a terminal, progress lines go to stderr: stdout is the result alone.
	var progress []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "progress ") {
			progress = append(progress, l)
		}
	}
	// GETs every 500ms, steps 1..5 in progress, lines at most every second.
	if len(progress) < 2 || len(progress) > 3 {
		t.Errorf("progress lines %q", progress)
	}
	if want := "progress 1.0s/10s  10%  sent=100 received=100 lost=0 p99=4.125ms throughput=99.5msg/s"; len(progress) == 0 || progress[0] != want {
		t.Errorf("first progress line\n got %q\nwant %q", progress, want)
	}
	want := `TEST t-wait  COMPLETED  QM1:DEV.QUEUE.1  in 6s
  sent                 600
  received             599
  lost                   1
  duplicated             2
  out of order           3
  throughput msg/s    99.5
  latency p50 ms     1.250
  latency p90 ms     2.500
  latency p99 ms     4.125
  latency p99.9 ms   8.000
  latency max ms    12.750
  stopped            false
round-trip latency
  <= 1 ms  ########################################  400 (66.8%)
  <= 2 ms                                            0 (0.0%)
  <= 5 ms  ###################                       199 (33.2%)
`
	if out != want {
		t.Errorf("summary\n got %s\nwant %s", out, want)
	}

	// Scripts get the result JSON, progress still on stderr.
	out, stderr, status = runCLI(t, context.Background(), "send", "test", "--addr", f.addr, "--duration", "10s",
		"--progress", "1s", "--wait", "--key", "t-wait-json")
	var data map[string]any
	if err := json.Unmarshal([]byte(out), &data); err != nil || status != 0 || data["status"] != "COMPLETED" ||
		!strings.Contains(stderr, "progress ") {
		t.Errorf("JSON: status %d, %v\nstdout %s\nstderr %s", status, err, out, stderr)
	}
}

func TestSendTestExitStatuses(t *testing.T) {
	f := newFakeTests(t, 2, "FAILED")
	out, status := mqprobe(t, "send", "test", "--addr", f.addr, "--count", "200", "--wait", "--output", "table")
	if status != exitFailed || !strings.Contains(out, "TEST gen-1  FAILED") ||
		!strings.Contains(out, "error: MQ_ERROR (reason 2085): MQRC_UNKNOWN_OBJECT_NAME") {
		t.Errorf("FAILED: status %d, output %s", status, out)
	}

	// A key naming a finished run: the recorded result, at once.
	gets := f.getCount()
	out, status = mqprobe(t, "send", "test", "--addr", f.addr, "--wait", "--key", "done-key", "--output", "table")
	if status != 0 || !strings.Contains(out, "TEST done-key  COMPLETED") || !strings.Contains(out, "sent                 500") || f.getCount() != gets {
		t.Errorf("replay: status %d, %d GETs, output %s", status, f.getCount()-gets, out)
	}
	out, status = mqprobe(t, "send", "test", "--addr", f.addr, "--key", "done-key")
	if status != 0 || !strings.Contains(out, `"status": "COMPLETED"`) {
		t.Errorf("replay without --wait: status %d, output %s", status, out)
	}

	f.mu.Lock()
	f.problem = true
	f.mu.Unlock()
	for _, wait := range []string{"--wait=false", "--wait"} {
		out, status = mqprobe(t, "send", "test", "--addr", f.addr, "--duration", "7200s", wait)
		if status != exitRejected || !strings.Contains(out, `"rule": "maximum"`) {
			t.Errorf("422 %s: status %d, output %s", wait, status, out)
		}
	}

	if _, status := mqprobe(t, "send", "test", "--addr", "127.0.0.1:1", "--timeout", "1s"); status != exitFailed {
		t.Errorf("no daemon: status %d, want %d", status, exitFailed)
	}
}

func TestSendTestStopOnInterrupt(t *testing.T) {
	f := newFakeTests(t, 0, "COMPLETED") // runs until stopped
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for range 2 {
			select {
			case <-f.polled:
			case <-time.After(10 * time.Second):
			}
		}
		cancel() // Ctrl-C
	}()
	out, stderr, status := runCLI(t, ctx, "send", "test", "--addr", f.addr, "--wait", "--key", "t-stop", "--output", "table")
	f.mu.Lock()
	stops := f.stops
	f.mu.Unlock()
	if len(stops) != 1 || stops[0] != "t-stop" {
		t.Errorf("stop calls %v", stops)
	}
	if status != 0 || !strings.Contains(stderr, "stopping test t-stop") ||
		!strings.Contains(out, "TEST t-stop  COMPLETED") || !strings.Contains(out, "  stopped             true\n") {
		t.Errorf("status %d\nstdout %s\nstderr %s", status, out, stderr)
	}
}

func TestSendTestLocation(t *testing.T) {
	for _, tc := range []struct{ loc, body, wantLoc, wantID string }{
		{"/tests/a%2Fb", `{"testId":"a/b","status":"IN_PROGRESS"}`, "/tests/a%2Fb", "a/b"},
		{"http://other:8080/tests/x1", `{}`, "http://other:8080/tests/x1", "x1"},
		{"", `{"testId":"y 2"}`, "/tests/y%202", "y 2"},
	} {
		resp := &http.Response{Header: http.Header{}}
		if tc.loc != "" {
			resp.Header.Set("Location", tc.loc)
		}
		loc, id, err := testLocation(resp, []byte(tc.body))
		if err != nil || loc != tc.wantLoc || id != tc.wantID {
			t.Errorf("%q %s: %q %q %v", tc.loc, tc.body, loc, id, err)
		}
	}
	if _, _, err := testLocation(&http.Response{Header: http.Header{}}, []byte(`{}`)); err == nil {
		t.Error("no Location and no testId: no error")
	}
}

func TestTestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := &testProgress{line: &progressLine{w: &buf, tty: true, every: 5 * time.Second}, spec: testSpec{Duration: 30 * time.Second}}
	r := &testResult{Sent: 1200, Received: 1198, Lost: 0, Elapsed: 12400 * time.Millisecond, ThroughputPerSec: 99.8}
	r.LatencyMs.P99 = 4.21
	now := time.Now()
	p.update(r, now)
	p.update(&testResult{Sent: 1, Elapsed: time.Second}, now.Add(time.Second))
	p.line.end()
	got := buf.String()
	first := "\r[########------------] 12.4s/30s  41%  sent 1200  recv 1198  lost 0  p99 4.210ms  99.8 msg/s"
	if !strings.HasPrefix(got, first) {
		t.Errorf("live line\n got %q\nwant %q", got, first)
	}
	second := strings.TrimSuffix(got[len(first):], "\n")
	if !strings.HasPrefix(second, "\r[--------------------] 1.0s/30s   3%  sent 1  recv 0") || len(second) != len(first) || !strings.HasSuffix(got, " \n") {
		t.Errorf("rewritten line not padded over the first, or not ended: %q", second)
	}

	// Count-only runs show sent/count; plain lines at most every `every`.
	buf.Reset()
	p = &testProgress{line: &progressLine{w: &buf, every: 5 * time.Second}, spec: testSpec{Count: 400}}
	for i := range 12 {
		p.update(&testResult{Sent: int64(8 * i)}, now.Add(time.Duration(i)*time.Second))
	}
	if got := strings.Count(buf.String(), "\n"); got != 3 {
		t.Errorf("plain lines %d, want 3 (at 0s, 5s, 10s):\n%s", got, buf.String())
	}
	if !strings.Contains(buf.String(), "progress 5.0s  10%  sent=40 ") {
		t.Errorf("count progress %q", buf.String())
	}
}

// TestSendTestSecondSignalStopsWaiting: while a stopped run drains, a
// second SIGTERM (as a second Ctrl-C) ends the wait: exit 4, with where
// to look for the result.
func TestSendTestSecondSignalStopsWaiting(t *testing.T) {
	f := newFakeTests(t, 0, "COMPLETED")
	f.slowStop = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-f.polled
		cancel() // the first signal
		// The CLI listens for the second signal before it asks for the stop.
		if testenv.Until(10*time.Second, func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return len(f.stops) > 0
		}) {
			syscall.Kill(os.Getpid(), syscall.SIGTERM) //nolint:errcheck // the wait's exit status tells
		}
	}()
	_, stderr, status := runCLI(t, ctx, "send", "test", "--addr", f.addr, "--wait", "--key", "t-term", "--timeout", "20s")
	if status != exitNotDecided || !strings.Contains(stderr, "test t-term: stopped waiting; GET /tests/t-term for its result") {
		t.Errorf("second signal: exit %d, stderr %q", status, stderr)
	}
}
