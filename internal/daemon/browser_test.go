package daemon_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// rawRequest sends method path to h with body and headers (name, value
// pairs); a "Host" pair sets the Host header the daemon sees, whatever
// address the request goes to.
func rawRequest(t *testing.T, h *daemontest.Harness, method, path, body string, headers ...string) daemontest.Response {
	t.Helper()
	req, err := http.NewRequest(method, h.Base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return daemontest.Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// wantProblem fails t unless r is a 403 problem document with code, whose
// detail names says.
func wantProblem(t *testing.T, what string, r daemontest.Response, code, says string) {
	t.Helper()
	var p struct {
		Status int
		Code   string
		Detail string
	}
	if r.Status != http.StatusForbidden || r.Header.Get("Content-Type") != "application/problem+json" ||
		json.Unmarshal(r.Body, &p) != nil || p.Code != code || !strings.Contains(p.Detail, says) {
		t.Errorf("%s: %d %s %s; want 403 problem+json code %s naming %q", what, r.Status, r.Header.Get("Content-Type"), r.Body, code, says)
	}
}

// formProduce puts 3 messages on queue, as a <form enctype="text/plain">
// smuggles JSON: its field's name=value, the "=" inside a tag's value.
func formProduce(queue string) string {
	return `{"target":{"queueManager":"QM1","queue":"` + queue + `"},"batch":{"count":3},"tags":{"f":"=x"}}`
}

// TestCrossSiteBrowserRequestsChangeNothing: the default daemon (loopback,
// no token) refuses what a page of another site makes a browser send — a
// text/plain form POST, a POST /commands, a DELETE of a record, from an
// old browser (Origin only) or a page on another port of the same host
// (same-site) — with 403 and nothing executed, while curl-style requests
// without Origin or Sec-Fetch-Site, whatever their Content-Type, and the
// console's own same-origin requests still work.
func TestCrossSiteBrowserRequestsChangeNothing(t *testing.T) {
	h := daemontest.Start(t)
	self := strings.TrimPrefix(h.Base, "http://")

	// A record a forged DELETE would evict.
	if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Idempotency-Key", "kept-record"); r.Status != http.StatusOK {
		t.Fatalf("depth: %d %s", r.Status, r.Body)
	}
	forged := []struct {
		what, method, path, body string
		headers                  []string
	}{
		{"text/plain form POST", http.MethodPost, "/messages/produce", formProduce("DEV.QUEUE.2"),
			[]string{"Content-Type", "text/plain", "Origin", "http://attacker.example", "Sec-Fetch-Site", "cross-site", "Idempotency-Key", "forged-1"}},
		{"urlencoded form POST", http.MethodPost, "/messages/produce", formProduce("DEV.QUEUE.2"),
			[]string{"Content-Type", "application/x-www-form-urlencoded", "Origin", "http://attacker.example", "Sec-Fetch-Site", "cross-site", "Idempotency-Key", "forged-2"}},
		{"POST from a browser without Sec-Fetch-Site", http.MethodPost, "/messages/produce", formProduce("DEV.QUEUE.2"),
			[]string{"Content-Type", "text/plain", "Origin", "http://attacker.example", "Idempotency-Key", "forged-3"}},
		{"POST from another port of this host", http.MethodPost, "/messages/produce", formProduce("DEV.QUEUE.2"),
			[]string{"Content-Type", "text/plain", "Origin", "http://127.0.0.1:1", "Sec-Fetch-Site", "same-site", "Idempotency-Key", "forged-4"}},
		{"POST /commands", http.MethodPost, "/commands",
			`{"operationType":"PRODUCE","idempotencyKey":"forged-bus",` + strings.TrimPrefix(formProduce("DEV.QUEUE.2"), "{"),
			[]string{"Content-Type", "text/plain", "Origin", "http://attacker.example", "Sec-Fetch-Site", "cross-site"}},
		{"DELETE of a record", http.MethodDelete, "/idempotency/DEPTH/kept-record", "",
			[]string{"Origin", "http://attacker.example", "Sec-Fetch-Site", "cross-site"}},
	}
	for _, f := range forged {
		wantProblem(t, f.what, rawRequest(t, h, f.method, f.path, f.body, f.headers...), "CROSS_ORIGIN_REQUEST", "another origin")
	}
	if status, _, body := h.Get("/idempotency/DEPTH/kept-record"); status != http.StatusOK {
		t.Errorf("the record a forged DELETE named: %d %s, want it kept", status, body)
	}
	// The bus would have run the forged command by now had it been queued;
	// a command queued after it runs after it.
	h.Submit(`{"operationType":"DEPTH","idempotencyKey":"after-forgery",` + daemontest.Target + `}`)
	h.WaitResults("after-forgery", 1)
	if evs := h.Results("forged-bus"); len(evs) != 0 {
		t.Errorf("the forged POST /commands ran: %+v", evs)
	}
	if depth := h.Depth("DEV.QUEUE.2"); depth != 0 {
		t.Fatalf("DEV.QUEUE.2 holds %d messages after forged requests, want 0", depth)
	}

	// Not browsers (curl -d sends x-www-form-urlencoded), and the console's
	// same-origin fetches, are served.
	served := []struct {
		what    string
		headers []string
	}{
		{"curl -d", []string{"Content-Type", "application/x-www-form-urlencoded"}},
		{"text/plain without Origin", []string{"Content-Type", "text/plain"}},
		{"no Content-Type", nil},
		{"the console (same origin)", []string{"Content-Type", "application/json", "Origin", "http://" + self, "Sec-Fetch-Site", "same-origin"}},
		{"a typed URL (Sec-Fetch-Site none)", []string{"Sec-Fetch-Site", "none"}},
	}
	for _, s := range served {
		if r := rawRequest(t, h, http.MethodPost, "/messages/produce", formProduce("DEV.QUEUE.3"), s.headers...); r.Status != http.StatusCreated {
			t.Errorf("%s: %d %s, want 201", s.what, r.Status, r.Body)
		}
	}
	if depth, want := h.Depth("DEV.QUEUE.3"), 3*len(served); depth != want {
		t.Errorf("DEV.QUEUE.3 holds %d messages, want %d", depth, want)
	}
}

// TestForeignHostRefusedWithoutToken: a daemon without a bearer token
// serves only Host values naming it, so a page whose name was rebound to
// 127.0.0.1 (DNS rebinding) reads and changes nothing: every route, GET
// included, answers 403. Loopback names and addresses with any port, and
// http.allowedHosts entries, are served.
func TestForeignHostRefusedWithoutToken(t *testing.T) {
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.HTTP.AllowedHosts = []string{"mqprobe.internal", "pinned.example:9000", "Upper.Example"}
	})
	port := h.Base[strings.LastIndex(h.Base, ":")+1:]
	if r := h.Post("/messages/produce", formProduce("DEV.QUEUE.1"), "Idempotency-Key", "secret-payload"); r.Status != http.StatusCreated {
		t.Fatalf("produce: %d %s", r.Status, r.Body)
	}

	for _, host := range []string{"attacker.example:" + port, "attacker.example", "mqprobe.internal.attacker.example:" + port,
		"pinned.example:" + port, "localhost.attacker.example", "127.0.0.1.nip.io:" + port, "10.1.2.3:" + port} {
		for _, path := range []string{"/results", "/commands/PRODUCE/secret-payload", "/idempotency/PRODUCE/secret-payload",
			"/status", "/metrics", "/", "/health/ready"} {
			r := rawRequest(t, h, http.MethodGet, path, "", "Host", host)
			wantProblem(t, "GET "+path+" Host "+host, r, "HOST_NOT_ALLOWED", "http.allowedHosts")
			if strings.Contains(string(r.Body), "secret-payload") && path != "/commands/PRODUCE/secret-payload" && path != "/idempotency/PRODUCE/secret-payload" {
				t.Errorf("GET %s Host %s shows the record: %s", path, host, r.Body)
			}
		}
		r := rawRequest(t, h, http.MethodPost, "/messages/consume", `{`+daemontest.Target+`,"maxMessages":10,"waitSeconds":0}`, "Host", host)
		wantProblem(t, "POST /messages/consume Host "+host, r, "HOST_NOT_ALLOWED", host)
	}
	if depth := h.Depth("DEV.QUEUE.1"); depth != 3 {
		t.Fatalf("DEV.QUEUE.1 holds %d messages after refused CONSUMEs, want 3", depth)
	}

	for _, host := range []string{"localhost:1", "localhost", "LOCALHOST.:8443", "127.0.0.1:12345", "127.9.8.7:" + port,
		"[::1]:2222", "[::1]", "[::ffff:127.0.0.1]:80", "mqprobe.internal:" + port, "mqprobe.internal", "upper.example:1",
		"pinned.example:9000"} {
		if r := rawRequest(t, h, http.MethodGet, "/results?idempotencyKey=secret-payload", "", "Host", host); r.Status != http.StatusOK {
			t.Errorf("GET /results Host %s: %d %s, want 200", host, r.Status, r.Body)
		}
	}
}

// TestHostWithToken: with a bearer token the Host is not checked (a page
// of another site holds no token), unless http.allowedHosts lists names.
func TestHostWithToken(t *testing.T) {
	const token = "host-test-token"
	open := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.HTTP.AuthToken = token })
	if r := rawRequest(t, open, http.MethodGet, "/status", "", "Host", "mqprobe.example.com:443", "Authorization", "Bearer "+token); r.Status != http.StatusOK {
		t.Errorf("GET /status with the token, Host mqprobe.example.com: %d %s, want 200", r.Status, r.Body)
	}
	pinned := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.HTTP.AuthToken = token
		s.Cfg.HTTP.AllowedHosts = []string{"mqprobe.example.com"}
	})
	if r := rawRequest(t, pinned, http.MethodGet, "/status", "", "Host", "mqprobe.example.com:443", "Authorization", "Bearer "+token); r.Status != http.StatusOK {
		t.Errorf("GET /status Host mqprobe.example.com, listed: %d %s, want 200", r.Status, r.Body)
	}
	r := rawRequest(t, pinned, http.MethodGet, "/status", "", "Host", "other.example.com", "Authorization", "Bearer "+token)
	wantProblem(t, "GET /status Host other.example.com, not listed", r, "HOST_NOT_ALLOWED", "other.example.com")
}
