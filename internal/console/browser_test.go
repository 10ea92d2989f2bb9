package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/responder"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/tenant"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// screenshotsVar names the directory the browser test writes a screenshot
// of each page into (make docs sets it to docs/console); unset, it writes
// none.
const screenshotsVar = "MQPROBE_CONSOLE_SCREENSHOTS"

// chromiumPath finds the Chromium the browser tests drive:
// $MQPROBE_TEST_CHROMIUM, else chromium or chromium-browser on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MQPROBE_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium for the console's browser tests: run `bash scripts/chromium.sh` (make test does), or set MQPROBE_TEST_CHROMIUM to a Chromium binary")
	return ""
}

// browser is one headless Chromium tab on a daemon's console.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
}

// newBrowser starts Chromium, with extra flags besides the usual ones.
func newBrowser(t *testing.T, base string, flags ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true), chromedp.NoFirstRun,
		chromedp.Flag("no-proxy-server", true), chromedp.WindowSize(1280, 900))
	opts = append(opts, flags...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// The first action starts the browser, which lives as long as the
	// context it runs on: this one, not a step's timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx, base: base}
}

// do runs steps, failing the test with what the page shows if one fails.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v; the page shows:\n%s", err, b.mainText())
	}
}

// open loads path of the console.
func (b *browser) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base + path))
}

// eval returns the value of a JavaScript expression in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitFor waits until a JavaScript expression is truthy, failing the test
// with what the page shows after timeout. The expression is evaluated
// afresh each time, so a page that loads meanwhile is no error.
func (b *browser) waitFor(what, expr string, timeout time.Duration) {
	b.t.Helper()
	var lastErr error
	if testenv.UntilEvery(timeout, 50*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		defer cancel()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("Boolean("+expr+")"))
		lastErr = err
		return err == nil && ok
	}) {
		return
	}
	b.t.Fatalf("waiting %s for %s (last error: %v); the page shows:\n%s", timeout, what, lastErr, b.mainText())
}

// waitText waits until the element sel holds text.
func (b *browser) waitText(sel, text string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf("%s to show %q", sel, text),
		fmt.Sprintf(`document.querySelector(%s)?.textContent.includes(%s)`, js(sel), js(text)), 15*time.Second)
}

// fill sets the form control sel (an input, or a select's option) to
// value as if chosen, controls in folded sections included, firing the
// input and change events a user's choice fires.
func (b *browser) fill(sel, value string) {
	b.t.Helper()
	b.waitFor(sel+" on the page", `document.querySelector(`+js(sel)+`) !== null`, 10*time.Second)
	got := eval[string](b, `(() => { const el = document.querySelector(`+js(sel)+`); el.value = `+js(value)+`;
		el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true })); return el.value; })()`)
	if got != value {
		b.t.Fatalf("%s takes %q, not %q (no such choice?)", sel, got, value)
	}
}

func (b *browser) click(sel string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(sel)))
}

func (b *browser) mainText() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('main')?.innerText ?? ''`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return text
}

// screenshot saves the whole page as <name>.png in $MQPROBE_CONSOLE_SCREENSHOTS,
// when it is set.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv(screenshotsVar)
	if dir == "" {
		return
	}
	b.waitFor("the page to settle", `document.readyState === 'complete'`, 5*time.Second)
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// js quotes s as a JavaScript string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const (
	adminToken = "console-admin-token"
	teamToken  = "console-team-a-token"
)

// TestConsoleInBrowser drives the console in headless Chromium against a
// daemon that asks for a token: a page opened without it shows no data,
// then each page is loaded and used as an operator would — a PRODUCE sent
// from the form and its result found, a TEST started and its chart
// watched growing, then stopped, and a record opened and evicted. A named
// tenant signed in sees none of it.
func TestConsoleInBrowser(t *testing.T) {
	t.Setenv("MQPROBE_TEST_CONSOLE_TEAM_TOKEN", teamToken)
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.HTTP.AuthToken = adminToken
		s.Cfg.HTTP.Tokens = map[string]tenant.Config{"team-a": {TokenRef: "env:MQPROBE_TEST_CONSOLE_TEAM_TOKEN", Inline: true}}
		s.Cfg.Targets.Profiles = map[string]targets.ProfileConfig{"lab": {QueueManager: "QM1", Queue: "DEV.QUEUE.2"}}
	})
	if dir := os.Getenv(screenshotsVar); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := newBrowser(t, h.Base)

	t.Run("without the token no data", func(t *testing.T) {
		b.t = t
		for _, path := range []string{"/", "/ui/results", "/ui/probes", "/ui/record?op=PRODUCE&key=k", "/ui/record", "/ui/send", "/ui/queues/QM1/DEV.QUEUE.1"} {
			b.open(path)
			b.waitFor("the sign-in form on "+path, `document.querySelector('#signin #token') !== null`, 10*time.Second)
			if text := b.mainText(); strings.Contains(text, "embedded") || strings.Contains(text, "QM1") || strings.Contains(text, "None.") {
				t.Errorf("%s without a token shows data:\n%s", path, text)
			}
		}
		for _, path := range []string{"/status", "/queues", "/queues/QM1/DEV.QUEUE.1/messages", "/results/stream"} {
			if status := eval[int](b, `fetch(`+js(path)+`).then(r => r.status)`); status != http.StatusUnauthorized {
				t.Errorf("GET %s from the page without a token: %d, want 401", path, status)
			}
		}
	})

	b.t = t
	b.open("/")
	b.waitFor("the sign-in form", `document.querySelector('#token') !== null`, 10*time.Second)
	b.do(chromedp.SendKeys(chromedp.CSS("#token"), adminToken), chromedp.Click(chromedp.CSS("#signin button[type=submit]")))

	t.Run("overview", func(t *testing.T) {
		b.t = t
		b.waitText("#about", "embedded")
		b.waitText("#targets", "DEV.QUEUE.1")
		b.waitText("#last-hour", "None.")
		if got := eval[string](b, `document.querySelector('nav a[aria-current=page]')?.textContent`); got != "Overview" {
			t.Errorf("the current page in the navigation is %q, want Overview", got)
		}
	})

	var produceKey string
	t.Run("send a PRODUCE from the form and see its result", func(t *testing.T) {
		b.t = t
		b.open("/ui/send?op=PRODUCE")
		b.waitFor("the PRODUCE form", `document.querySelector('#f-batch-count') !== null`, 10*time.Second)
		produceKey = eval[string](b, `document.querySelector('#idempotency-key').value`)
		if !strings.HasPrefix(produceKey, "console-") {
			t.Fatalf("the form shows key %q, want a generated console-… key", produceKey)
		}
		if max := eval[string](b, `document.querySelector('#f-batch-count').max`); max != "10000000" {
			t.Errorf("batch count's max %q, want the schema's 10000000", max)
		}
		// The daemon's queue managers, queues and profiles are choices; the
		// connection fields the embedded backend refuses are not offered.
		options := func(sel string) string {
			return eval[string](b, `[...document.querySelectorAll('`+sel+` option')].map(o => o.value).filter(Boolean).join(',')`)
		}
		if got := options("#f-target-queueManager"); got != "QM1" {
			t.Errorf("queue manager choices %q, want QM1", got)
		}
		if got := options("#f-target-queue"); got != "DEV.QUEUE.1,DEV.QUEUE.2,DEV.QUEUE.3,DEV.DEAD.LETTER.QUEUE" {
			t.Errorf("queue choices %q, want QM1's queues", got)
		}
		if got := options("#f-targetRef"); got != "lab" {
			t.Errorf("profile choices %q, want lab", got)
		}
		if n := eval[int](b, `document.querySelectorAll('#f-target-channel, #f-target-connName, #f-target-ccdtUrl, #g-target-ssl').length`); n != 0 {
			t.Errorf("the form offers %d connection fields the embedded backend refuses", n)
		}
		b.waitText("#embedded-note", "connects nowhere")
		b.fill("#f-target-queueManager", "QM1")
		b.fill("#f-target-queue", "DEV.QUEUE.3")
		b.fill("#f-batch-count", "7")
		b.screenshot("send")
		b.click("#send-button")
		b.waitText("#reply", "COMPLETED")
		if depth := queueDepth(t, h, "DEV.QUEUE.3"); depth != 7 {
			t.Errorf("DEV.QUEUE.3 holds %d messages after the form's PRODUCE of 7", depth)
		}
		b.click("#see-results")
		b.waitText("#results", produceKey)
		b.waitText("#results", "COMPLETED")
		b.waitText("#results .summary", "7 enqueued in 1 transaction")
		if lines := eval[int](b, `document.querySelector('#results .time').getClientRects().length`); lines != 1 {
			t.Errorf("the result's time wraps onto %d lines", lines)
		}
		b.click("#results details summary")
		b.waitText("#results details pre", `"idempotencyKey": "`+produceKey+`"`)
		if shown := eval[bool](b, `document.querySelector('#results details details').open`); shown {
			t.Error("the payload is shown before it is asked for")
		}
		b.screenshot("results")

		// Server-side filters: the target's queue manager finds the event,
		// another queue does not.
		b.open("/ui/results?target=QM1&operationType=PRODUCE")
		b.waitText("#results", produceKey)
		b.open("/ui/results?target=QM1:DEV.QUEUE.2")
		b.waitText("#results", "0 events")
	})

	t.Run("live updates stream in, the token in a header", func(t *testing.T) {
		b.t = t
		// The results page does not poll: a new event appears only streamed.
		b.open("/ui/results")
		b.waitFor("the live stream", `document.querySelector('#live-status')?.dataset.state === 'live'`, 15*time.Second)
		if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "Bearer "+adminToken, "Idempotency-Key", "streamed-depth"); r.Status != http.StatusOK {
			t.Fatalf("depth: %d %s", r.Status, r.Body)
		}
		b.waitText("#results", "streamed-depth")
		b.waitText("#results", "depth 0 of 5,000")

		// The overview's outcomes follow the stream too.
		b.open("/")
		b.waitFor("the live stream", `document.querySelector('#live-status')?.dataset.state === 'live'`, 15*time.Second)
		completed := `Number([...document.querySelectorAll('#last-hour tr')].find(tr => tr.cells[0]?.textContent === 'completed')?.cells[1].textContent ?? 0)`
		b.waitFor("the last hour's outcomes", completed+` > 0`, 10*time.Second)
		before := eval[int](b, completed)
		if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "Bearer "+adminToken, "Idempotency-Key", "streamed-depth-2"); r.Status != http.StatusOK {
			t.Fatalf("depth: %d %s", r.Status, r.Body)
		}
		b.waitFor("the new outcome on the overview", fmt.Sprintf(`%s > %d`, completed, before), 10*time.Second)

		// A stream's entry is listed once it ends: these are the requests
		// done, none with the token in its URL.
		for _, u := range eval[[]string](b, `performance.getEntriesByType('resource').map(e => e.name)`) {
			if strings.Contains(u, adminToken) {
				t.Errorf("the token is in a URL: %s", u)
			}
		}

		// A page left lets its stream go: more pages than a browser opens
		// connections to one host (6) each go live.
		for i := range 8 {
			b.open([]string{"/", "/ui/results"}[i%2])
			b.waitFor(fmt.Sprintf("page %d's live stream", i+1), `document.querySelector('#live-status')?.dataset.state === 'live'`, 15*time.Second)
		}
	})

	t.Run("queues: health on the overview, a dead-lettered message browsed and redriven", func(t *testing.T) {
		b.t = t
		putDeadLetter(t, h, "DEV.QUEUE.1", "order 42 that could not be delivered")
		before := queueDepth(t, h, "DEV.QUEUE.1")
		b.open("/")
		// DEV.QUEUE.3 holds the 7 messages the form's PRODUCE put.
		row := `[...document.querySelectorAll('#queues tbody tr')].find(tr => tr.cells[1]?.textContent === 'DEV.QUEUE.3')`
		b.waitFor("DEV.QUEUE.3's depth on the overview", row+`?.cells[3].textContent.startsWith('7 of ')`, 15*time.Second)
		if got := eval[string](b, row+`.cells[5].textContent`); !strings.Contains(got, "healthy") {
			t.Errorf("DEV.QUEUE.3's verdict %q, want healthy", got)
		}
		if got := eval[string](b, row+`.cells[4].textContent`); got == "–" || got == "unknown" {
			t.Errorf("DEV.QUEUE.3's oldest message age %q, want a figure", got)
		}
		b.screenshot("overview-queues")
		b.click(`#queues a[href="/ui/queues/QM1/DEV.DEAD.LETTER.QUEUE"]`)
		b.waitText("#queue-health", "1 of ")
		b.waitText("#messages", "MQRC_UNKNOWN_OBJECT_NAME")
		b.click("#messages details.message-details summary")
		b.waitText("#messages .message", "Original queue")
		for _, want := range []string{"DEV.QUEUE.1", "amqsput", "2026-11-27 04:00:00Z", "MsgId", "Persistence", "app.origin"} {
			if text := eval[string](b, `document.querySelector('#messages .message').textContent`); !strings.Contains(text, want) {
				t.Errorf("the browsed message does not show %q:\n%s", want, text)
			}
		}
		b.waitText("#messages pre.payload.text", "order 42 that could not be delivered")
		if hex := eval[string](b, `document.querySelector('#messages pre.payload.hex').textContent`); !strings.Contains(hex, "6f 72 64 65 72 20 34 32") {
			t.Errorf("the hex view does not show the payload's bytes:\n%s", hex)
		}
		b.screenshot("queue")

		// A dry run first: it lists the message and moves nothing.
		if enabled := eval[bool](b, `!document.querySelector('#rd-move').disabled`); enabled {
			t.Error("the move is offered before a dry run")
		}
		b.click("#rd-dry-run")
		b.waitText("#rd-outcome", "Dry run")
		b.waitText("#rd-outcome", "DEV.QUEUE.1")
		if depth := queueDepth(t, h, "DEV.DEAD.LETTER.QUEUE"); depth != 1 {
			t.Errorf("the dry run changed the dead-letter queue's depth to %d", depth)
		}
		b.click("#rd-move")
		b.waitText("#rd-outcome", "Moved")
		if got := queueDepth(t, h, "DEV.QUEUE.1"); got != before+1 {
			t.Errorf("DEV.QUEUE.1 holds %d messages after the redrive, want %d", got, before+1)
		}
		if depth := queueDepth(t, h, "DEV.DEAD.LETTER.QUEUE"); depth != 0 {
			t.Errorf("the dead-letter queue holds %d after the redrive, want 0", depth)
		}
		b.waitText("#messages", "The first 0 messages")
	})

	t.Run("list the records, filtered and paged", func(t *testing.T) {
		b.t = t
		b.open("/ui/record")
		b.waitText("#records", produceKey)
		row := `[...document.querySelectorAll('#records tbody tr')].find(tr => tr.textContent.includes(` + js(produceKey) + `))`
		if text := eval[string](b, row+`.textContent`); !strings.Contains(text, "7 enqueued") || !strings.Contains(text, "COMPLETED") {
			t.Errorf("the PRODUCE's record row: %q", text)
		}
		b.screenshot("records")
		b.fill("#l-operationType", "REDRIVE")
		b.click("#filter-records")
		b.waitText("#records caption", "2 records")
		if eval[bool](b, `document.querySelector('#records').textContent.includes(`+js(produceKey)+`)`) {
			t.Error("operation REDRIVE lists the PRODUCE")
		}
		b.open("/ui/record?status=FAILED")
		b.waitText("#records caption", "0 records")
		// By target: a row's target opens its queue's records, and the
		// field offers the queues the caller may use.
		b.open("/ui/record")
		b.waitText("#records", produceKey)
		b.click(`#records tbody a[href="/ui/record?target=QM1%3ADEV.QUEUE.3"]`)
		b.waitFor("the target field filled from the row's target", `document.querySelector('#l-target')?.value === 'QM1:DEV.QUEUE.3'`, 10*time.Second)
		b.waitText("#records", produceKey)
		if !eval[bool](b, `[...document.querySelectorAll('#records tbody tr')].every(tr => tr.cells[6].textContent === 'QM1:DEV.QUEUE.3')`) {
			t.Error("the records of QM1:DEV.QUEUE.3 list another target")
		}
		b.waitFor("QM1:DEV.QUEUE.3 among the known targets", `[...document.querySelectorAll('#known-targets option')].some(o => o.value === 'QM1:DEV.QUEUE.3')`, 10*time.Second)
		b.fill("#l-target", "QM1:DEV.QUEUE.2")
		b.click("#filter-records")
		b.waitText("#records caption", "0 records")
		// A time range entered in local time reaches the API as UTC.
		b.open("/ui/record?target=QM1:DEV.QUEUE.3")
		b.waitText("#records", produceKey)
		b.fill("#l-since", "2099-01-01T00:00")
		b.click("#filter-records")
		b.waitText("#records caption", "0 records")
		if got := eval[string](b, `new URLSearchParams(location.search).get('since')`); !strings.HasPrefix(got, "2099-01-01T") || !strings.HasSuffix(got, "Z") {
			t.Errorf("since in the page's query: %q, want UTC RFC 3339", got)
		}
		// A page of one, then the next.
		b.open("/ui/record?limit=1")
		b.waitText("#records caption", "1 record on this page")
		first := eval[string](b, `document.querySelector('#records tbody a').textContent`)
		b.click("#next-records")
		b.waitText("#records caption", "1 record on this page")
		b.waitFor("another record on the next page", `document.querySelector('#records tbody a').textContent !== `+js(first), 10*time.Second)
	})

	t.Run("open the record and evict it", func(t *testing.T) {
		b.t = t
		b.open("/ui/record?op=PRODUCE&key=" + produceKey)
		b.waitText("#record", "COMPLETED")
		b.waitText("#record", "Expires")
		b.screenshot("record")
		b.click("#evict")
		b.click("#confirm-evict")
		b.waitText("#evict-outcome", "Evicted")
		if status := apiStatus(t, h, "/idempotency/PRODUCE/"+produceKey, adminToken); status != http.StatusNotFound {
			t.Errorf("GET the evicted record: %d, want 404", status)
		}
	})

	t.Run("start a TEST, watch its chart grow, stop it", func(t *testing.T) {
		b.t = t
		b.open("/ui/send?op=TEST")
		b.waitFor("the TEST form", `document.querySelector('#f-durationSeconds') !== null`, 10*time.Second)
		testKey := eval[string](b, `document.querySelector('#idempotency-key').value`)
		b.fill("#f-target-queueManager", "QM1")
		b.fill("#f-target-queue", "DEV.QUEUE.2")
		b.fill("#f-durationSeconds", "60")
		b.fill("#f-batch-rateLimitPerSec", "100")
		b.fill("#f-progressSeconds", "1")
		b.click("#send-button")
		b.waitText("#reply", "202")
		b.click("#watch-probe")
		b.waitFor("the latency chart", `document.querySelector('#latency-chart') !== null`, 10*time.Second)
		first := eval[int](b, `Number(document.querySelector('#latency-chart').dataset.points)`)
		b.waitFor("the chart's points to grow", fmt.Sprintf(`Number(document.querySelector('#latency-chart')?.dataset.points) >= %d`, first+3), 10*time.Second)
		if lines := eval[int](b, `document.querySelectorAll('#latency-chart polyline').length`); lines != 2 {
			t.Errorf("the latency chart draws %d lines, want p50 and p99", lines)
		}
		if rows := eval[int](b, `document.querySelectorAll('#latency tbody tr').length`); rows < 3 {
			t.Errorf("the table beside the chart lists %d points", rows)
		}
		b.waitFor("the live histogram", `document.querySelector('#histogram-chart rect.bar') !== null`, 10*time.Second)
		// What the run was asked to do, and how far it is.
		for _, want := range []string{"QM1:DEV.QUEUE.2", "100 messages/s", "1m 0s"} {
			b.waitText("#test-summary", want)
		}
		b.waitFor("the elapsed share of the duration", `Number(document.querySelector('#test-progress')?.value) > 0`, 10*time.Second)
		b.screenshot("probe")

		// The overview's commands in flight count the TEST's round trips.
		b.open("/")
		inFlight := `[...document.querySelectorAll('#in-flight tbody tr')].find(tr => tr.textContent.includes(` + js(testKey) + `))`
		b.waitFor("the TEST's round trips in flight", inFlight+`?.textContent.match(/[1-9][\d,]* sent, [\d,]+ back/)`, 15*time.Second)
		if text := eval[string](b, inFlight+`.textContent`); !strings.Contains(text, "round trips/s") || !strings.Contains(text, "of 1m 0s") {
			t.Errorf("the TEST in flight shows %q, want its round-trip rate and elapsed of its duration", text)
		}
		b.open("/ui/probes/" + testKey)
		b.waitFor("the Stop button", `document.querySelector('#stop-test')?.hidden === false`, 10*time.Second)
		b.click("#stop-test")
		b.waitText("#test-summary", "COMPLETED")
		b.waitText("#test-summary", "stopped early")
		if hidden := eval[bool](b, `document.querySelector('#stop-test').hidden`); !hidden {
			t.Error("the Stop button is still offered after the run ended")
		}

		// Its progress events fold into the one command, under its outcome.
		b.open("/ui/results?idempotencyKey=" + testKey)
		b.waitText("#results caption", "1 command from ")
		b.waitText("#results tbody tr", "COMPLETED")
		b.waitText("#results .progress-events summary", "progress event")
		b.waitText("#results .summary", "sent, ")

		// An unknown probe: one clear error, no charts.
		b.open("/ui/probes/no-such-test")
		b.waitText("#no-such-test", "No TEST “no-such-test” here")
		if n := eval[int](b, `document.querySelectorAll('svg.chart, #latency, #rate, #histogram, .problem').length`); n != 1 {
			t.Errorf("an unknown probe's page shows %d charts or errors besides its one error", n-1)
		}

		b.open("/ui/probes")
		b.waitText("#tests", testKey)
		b.waitText("#tests", "COMPLETED")
		b.screenshot("probes")

		// The overview counts the commands that ran: the PRODUCE and the TEST.
		b.open("/")
		b.waitFor("the last hour's outcomes", `[...document.querySelectorAll('#last-hour td')].some(td => td.textContent === 'completed')`, 10*time.Second)
		b.screenshot("overview")
	})

	t.Run("a tenant sees only its own", func(t *testing.T) {
		b.t = t
		eval[any](b, `sessionStorage.setItem('mqprobe.token', `+js(teamToken)+`) ?? true`)
		b.open("/ui/results")
		b.waitText("#results", "0 events")
		b.open("/ui/probes")
		b.waitText("#tests", "None.")
	})
}

// TestConsoleShowsRequestReplyHops: a requestReply TEST answered by the
// daemon's own responder shows, on its probe page, its round trips split
// into outbound, responder and return hops, the whole run's and each
// interval's, and says which of them depend on clocks agreeing.
func TestConsoleShowsRequestReplyHops(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Responders = []responder.Config{{Name: "echo", QueueManager: "QM1", Queue: "DEV.QUEUE.1"}}
	})
	body := `{` + daemontest.Target + `,"mode":"requestReply","replyQueue":"DEV.QUEUE.2","durationSeconds":30,"batch":{"rateLimitPerSec":50},"progressSeconds":1}`
	if r := h.Post("/tests", body, "Idempotency-Key", "hops-1"); r.Status != http.StatusAccepted {
		t.Fatalf("POST /tests: %d %s", r.Status, r.Body)
	}
	b := newBrowser(t, h.Base)
	b.open("/ui/probes/hops-1")
	b.waitFor("the hops table", `document.querySelectorAll('#hops tbody tr').length === 4`, 20*time.Second)
	for _, want := range []string{"Outbound", "Responder", "Return", "Round trip", "stamped round trips", "clocks agree"} {
		b.waitText("#test-summary", want)
	}
	b.waitFor("the hops chart", `document.querySelectorAll('#hops-chart polyline').length === 3`, 20*time.Second)
	if hidden := eval[bool](b, `document.querySelector('#hops-over-time').hidden`); hidden {
		t.Error("the hops over time section is hidden while the series carries hops")
	}
	b.click("#stop-test")
	b.waitText("#test-summary", "COMPLETED")
	b.waitFor("the final hops", `document.querySelectorAll('#hops tbody tr').length === 4`, 10*time.Second)
}

// TestConsoleDisabled: console.enabled false leaves / to the API, which
// has no such route.
func TestConsoleDisabled(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.Console.Enabled = false })
	for _, path := range []string{"/", "/ui/probes", "/ui/assets/app.js"} {
		if status, _, _ := h.Get(path); status != http.StatusNotFound {
			t.Errorf("GET %s with the console disabled: %d, want 404", path, status)
		}
	}
}

// putDeadLetter puts a message with an MQDLH on QM1's dead-letter queue,
// as the queue manager does for a message it could not put on queue.
func putDeadLetter(t *testing.T, h *daemontest.Harness, queue, body string) {
	t.Helper()
	hdr, err := mq.DeadLetterHeader{Reason: mq.ReasonUnknownObjectName, DestQueue: queue, DestQMgr: "QM1",
		Encoding: mq.EncodingNativeLittle, CCSID: 1208, Format: mq.FormatString, PutApplType: 6, PutApplName: "amqsput",
		PutTime: time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	conn := daemontest.ConnectQM1(t, h.Backend)
	defer conn.Close()
	q, err := conn.OpenQueue(context.Background(), "DEV.DEAD.LETTER.QUEUE", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	msg := &mq.Message{Format: mq.FormatDeadLetterHeader, Payload: append(hdr, body...), Properties: mq.Properties{"app.origin": "lab"}}
	if _, err := q.Put(context.Background(), msg, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}

// apiStatus is the status of GET path with token.
func apiStatus(t *testing.T, h *daemontest.Harness, path, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.Base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// queueDepth reads a QM1 queue's depth through the API.
func queueDepth(t *testing.T, h *daemontest.Harness, queue string) int {
	t.Helper()
	r := h.Post("/queue/depth", fmt.Sprintf(`{"target":{"queueManager":"QM1","queue":%q}}`, queue), "Authorization", "Bearer "+adminToken)
	if r.Status != http.StatusOK {
		t.Fatalf("depth: %d %s", r.Status, r.Body)
	}
	return int(r.JSON(t)["result"].(map[string]any)["currentDepth"].(float64))
}
