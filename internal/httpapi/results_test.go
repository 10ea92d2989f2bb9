package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestResultsFilters: GET /results narrows the caller's events by target
// and time on the server, and refuses a bad status or time naming it.
func TestResultsFilters(t *testing.T) {
	recent := result.NewRecent(10, 0)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, d := range []result.Data{
		{IdempotencyKey: "a", OperationType: "PRODUCE", Status: result.StatusCompleted, Target: "QM1:DEV.QUEUE.1"},
		{IdempotencyKey: "b", OperationType: "DEPTH", Status: result.StatusFailed, Target: "QM1:DEV.QUEUE.2"},
		{IdempotencyKey: "c", OperationType: "PRODUCE", Status: result.StatusCompleted, Target: "QM2:DEV.QUEUE.1"},
	} {
		if err := recent.Publish(context.Background(), result.New("mqprobe/test", d, start.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	h := httpapi.Handler(httpapi.Config{Executor: countsOnly{}, Recent: recent})
	get := func(query string) (int, []byte) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost/results?"+query, nil))
		return rec.Code, rec.Body.Bytes()
	}
	for query, want := range map[string]string{
		"":                       "c,b,a",
		"target=QM1":             "b,a",
		"target=QM1:DEV.QUEUE.2": "b",
		"since=" + url.QueryEscape(start.Add(time.Minute).Format(time.RFC3339)): "c,b",
		"until=2026-03-01T12:00:30Z":                              "a",
		"target=QM1&status=COMPLETED":                             "a",
		"operationType=PRODUCE&since=2026-03-01T12:01:00%2B00:00": "c",
	} {
		status, body := get(query)
		var reply struct{ Results []result.Event }
		if status != http.StatusOK || json.Unmarshal(body, &reply) != nil {
			t.Errorf("GET /results?%s: %d %s", query, status, body)
			continue
		}
		var keys []string
		for _, e := range reply.Results {
			keys = append(keys, e.Data.IdempotencyKey)
		}
		if got := strings.Join(keys, ","); got != want {
			t.Errorf("GET /results?%s: %q, want %q", query, got, want)
		}
	}
	for query, field := range map[string]string{"status=DONE": "status", "since=yesterday": "since", "until=2026-03-01": "until"} {
		status, body := get(query)
		if status != http.StatusBadRequest || !strings.Contains(string(body), `"path":"`+field+`"`) {
			t.Errorf("GET /results?%s: %d %s, want 400 naming %s", query, status, body, field)
		}
	}
}
