package httpapi_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestResultsStream: GET /results/stream sends the caller's new result
// events its filters match as server-sent events, with the token in the
// Authorization header, and ends when the daemon shuts down.
func TestResultsStream(t *testing.T) {
	const token = "stream-token"
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg.HTTP.AuthToken = token })
	if status, _ := getJSON(t, h, "/results/stream", ""); status != http.StatusUnauthorized {
		t.Errorf("the stream without the token: %d, want 401", status)
	}
	if status, body := getJSON(t, h, "/results/stream?status=DONE", token); status != http.StatusBadRequest {
		t.Errorf("the stream with a bad status: %d %v, want 400", status, body)
	}

	req, err := http.NewRequest(http.MethodGet, h.Base+"/results/stream?idempotencyKey=watched", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("the stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), ":") {
		t.Fatalf("the stream opens with %q, want a comment", lines.Text())
	}

	for _, key := range []string{"other", "watched"} {
		if r := h.Post("/queue/depth", `{`+daemontest.Target+`}`, "Authorization", "Bearer "+token, "Idempotency-Key", key); r.Status != http.StatusOK {
			t.Fatalf("depth %s: %d %s", key, r.Status, r.Body)
		}
	}
	var kind string
	for lines.Scan() {
		line := lines.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			kind = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			var e result.Event
			if err := json.Unmarshal([]byte(v), &e); err != nil {
				t.Fatalf("data %q: %v", v, err)
			}
			if kind != "result" || e.Data.IdempotencyKey != "watched" || e.Data.Status != result.StatusCompleted {
				t.Fatalf("the first event: %s %+v, want the watched DEPTH's result", kind, e.Data)
			}
			break
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}

	// A shutdown ends the stream rather than wait for it.
	h.Shutdown()
	for lines.Scan() {
	}
}
