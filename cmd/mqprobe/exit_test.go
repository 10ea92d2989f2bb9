package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mqprobe/mqprobe/internal/problems"
)

// TestExitForAnswers pins the exit status of each answer the daemon gives
// a command: by its result's status, else its problem's type, else its
// HTTP status; and whether the CLI adds a message to what it printed.
func TestExitForAnswers(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		header   http.Header
		body     string
		code     int
		explains bool // the CLI says more than the printed body
	}{
		{"completed", 201, nil, `{"status":"COMPLETED"}`, exitCompleted, false},
		{"failed", 502, nil, `{"status":"FAILED"}`, exitFailed, false},
		{"rejected", 422, nil, `{"status":"REJECTED"}`, exitRejected, false},
		{"in progress data", 200, nil, `{"status":"IN_PROGRESS"}`, exitNotDecided, false},
		{"validation", 422, nil, `{"type":"` + problems.Validation + `","status":422}`, exitRejected, false},
		{"key reused", 409, nil, `{"type":"` + problems.KeyReused + `","status":409}`, exitRejected, false},
		{"target", 422, nil, `{"type":"` + problems.Target + `","status":422}`, exitRejected, false},
		{"in progress", 409, nil, `{"type":"` + problems.InProgress + `","status":409}`, exitNotDecided, false},
		{"busy", 503, nil, `{"type":"` + problems.Busy + `","status":503}`, exitNotDecided, false},
		{"rate limited", 429, nil, `{"type":"` + problems.RateLimited + `","status":429}`, exitNotDecided, false},
		{"unavailable", 503, nil, `{"type":"` + problems.Unavailable + `","status":503}`, exitNotDecided, false},
		{"outcome pending", 503, http.Header{"Retry-After": {"5"}}, `{"type":"` + problems.OutcomePending + `","status":503}`, exitNotDecided, false},
		{"unauthorized", 401, nil, `{"status":401}`, exitUsage, true},
		{"not found", 404, nil, `not json`, exitFailed, true},
		{"unexpected", 500, nil, `{"status":500}`, exitFailed, true},
	}
	for _, c := range cases {
		resp := &http.Response{StatusCode: c.status, Status: http.StatusText(c.status), Header: c.header,
			Request: httptest.NewRequest(http.MethodPost, "http://localhost/queue/depth", nil)}
		err := exitFor(resp, []byte(c.body))
		code := exitCompleted
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		if code != c.code || (err != nil && (err.Error() != "") != c.explains) {
			t.Errorf("%s: exit %d (%v), want %d (explained: %v)", c.name, code, err, c.code, c.explains)
		}
	}
	if err := exitFor(nil, []byte(`{"type":"`+problems.Busy+`"}`)); err == nil || err.Error() != "the result names no status" {
		t.Errorf("a result event without a status: %v", err)
	}
}
