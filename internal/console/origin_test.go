package console_test

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// attackerPage is a page of another site that, once loaded, makes the
// browser send the daemon (.Daemon) a PRODUCE three ways a page needs no
// permission for: a <form enctype="text/plain"> smuggling JSON into a field
// name, a no-cors fetch, and a POST /commands; then it sets window.sent.
var attackerPage = template.Must(template.New("page").Parse(`<!doctype html>
<title>cat pictures</title>
<iframe name="sink"></iframe>
<form id="f" method="POST" enctype="text/plain" target="sink" action="{{.Daemon}}/messages/produce">
<input type="hidden" name='{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":2},"tags":{"f":"' value='"}}'>
</form>
<script>
window.sent = false;
async function attack() {
  document.getElementById('f').submit();
  const body = '{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":2}}';
  await fetch('{{.Daemon}}/messages/produce', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body}).catch(() => {});
  await fetch('{{.Daemon}}/commands', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
    body: '{"operationType":"PRODUCE","idempotencyKey":"from-attacker",' + body.slice(1)}).catch(() => {});
  window.sent = true;
}
attack();
</script>`))

// TestPagesOfOtherOriginsCannotDriveTheDaemon: headless Chromium is the
// judge. A daemon as installed (loopback, no token) is attacked by a page
// of another site (attacker.example, served by a second local server) that
// posts PRODUCEs to it, and by the same name rebound to 127.0.0.1 (DNS
// rebinding, simulated by Chromium's host resolver rules): the daemon
// answers 403 to each, puts nothing, and shows the rebound page neither
// its console nor its results. The console on the daemon's own origin,
// reached as 127.0.0.1 or localhost, keeps working.
func TestPagesOfOtherOriginsCannotDriveTheDaemon(t *testing.T) {
	h := daemontest.Start(t)
	daemonPort := h.Base[strings.LastIndex(h.Base, ":")+1:]
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		attackerPage.Execute(w, struct{ Daemon string }{h.Base}) //nolint:errcheck // the browser may be gone
	}))
	t.Cleanup(attacker.Close)
	attackerPort := attacker.URL[strings.LastIndex(attacker.URL, ":")+1:]
	b := newBrowser(t, h.Base, chromedp.Flag("host-resolver-rules", "MAP attacker.example 127.0.0.1"))

	t.Run("a page of another site posts commands", func(t *testing.T) {
		b.t = t
		refusedBefore := refusedPosts(t, h)
		b.do(chromedp.Navigate("http://attacker.example:" + attackerPort + "/"))
		b.waitFor("the page to send its requests", `window.sent === true`, 15*time.Second)
		// The form's POST, the fetch and the POST /commands each reach the
		// daemon: refused, or (the failure) putting messages.
		refused, depth := 0, 0
		testenv.UntilEvery(15*time.Second, 50*time.Millisecond, func() bool {
			refused, depth = refusedPosts(t, h)-refusedBefore, queueDepthOpen(t, h, "DEV.QUEUE.2")
			return refused >= 3 || depth != 0
		})
		if depth != 0 {
			t.Errorf("DEV.QUEUE.2 holds %d messages after the page's POSTs, want 0", depth)
		}
		if refused != 3 {
			t.Errorf("the daemon refused %d of the page's 3 POSTs within 15s", refused)
		}
		if evs := h.Results("from-attacker"); len(evs) != 0 {
			t.Errorf("the page's POST /commands ran: %+v", evs)
		}
	})

	t.Run("a name rebound to the daemon", func(t *testing.T) {
		b.t = t
		rebound := "http://attacker.example:" + daemonPort
		b.do(chromedp.Navigate(rebound + "/"))
		b.waitFor("the refusal", `document.body.innerText.includes('HOST_NOT_ALLOWED')`, 15*time.Second)
		if console := eval[bool](b, `document.querySelector('nav') !== null`); console {
			t.Error("the rebound name is shown the console")
		}
		// Same origin, as far as the browser knows: only the Host check stands.
		for _, call := range []string{
			`fetch('/results').then(r => r.status)`,
			`fetch('/status').then(r => r.status)`,
			`fetch('/messages/produce', {method: 'POST', headers: {'Content-Type': 'application/json'},
			  body: '{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"},"batch":{"count":1}}'}).then(r => r.status)`,
		} {
			if status := eval[int](b, call); status != http.StatusForbidden {
				t.Errorf("%s from the rebound page: %d, want 403", call, status)
			}
		}
		if depth := queueDepthOpen(t, h, "DEV.QUEUE.2"); depth != 0 {
			t.Errorf("DEV.QUEUE.2 holds %d messages after the rebound page's POST, want 0", depth)
		}
	})

	t.Run("the console on its own origin", func(t *testing.T) {
		b.t = t
		for _, base := range []string{h.Base, "http://localhost:" + daemonPort} {
			b.do(chromedp.Navigate(base + "/"))
			b.waitText("#about", "embedded")
			call := `fetch('/messages/produce', {method: 'POST', headers: {'Content-Type': 'application/json'},
			  body: '{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"},"batch":{"count":1}}'}).then(r => r.status)`
			if status := eval[int](b, call); status != http.StatusCreated {
				t.Errorf("PRODUCE from the console at %s: %d, want 201", base, status)
			}
		}
		if depth := queueDepthOpen(t, h, "DEV.QUEUE.3"); depth != 2 {
			t.Errorf("DEV.QUEUE.3 holds %d messages after the console's 2 PRODUCEs, want 2", depth)
		}
	})
}

// refusedPosts counts the POSTs the daemon answered 403, from its /metrics.
func refusedPosts(t *testing.T, h *daemontest.Harness) int {
	t.Helper()
	status, _, body := h.Get("/metrics")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	n := 0
	for _, m := range families["http_server_request_duration_seconds"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["http_request_method"] == http.MethodPost && labels["http_response_status_code"] == "403" {
			n += int(m.GetHistogram().GetSampleCount())
		}
	}
	return n
}

// queueDepthOpen reads a QM1 queue's depth from a daemon without a token.
func queueDepthOpen(t *testing.T, h *daemontest.Harness, queue string) int {
	t.Helper()
	r := h.Post("/queue/depth", fmt.Sprintf(`{"target":{"queueManager":"QM1","queue":%q}}`, queue))
	if r.Status != http.StatusOK {
		t.Fatalf("depth: %d %s", r.Status, r.Body)
	}
	return int(r.JSON(t)["result"].(map[string]any)["currentDepth"].(float64))
}
