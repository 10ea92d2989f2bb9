package daemontest

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestPostRepeatsUndecided checks that Post repeats a request answered 503
// with Retry-After, with the same headers, until it is decided, and returns
// any other answer (a 503 without Retry-After included) as it is.
func TestPostRepeatsUndecided(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		switch {
		case r.Header.Get("Idempotency-Key") != "k1":
			t.Errorf("request %d has Idempotency-Key %q, want k1", n, r.Header.Get("Idempotency-Key"))
		case r.URL.Path == "/plain":
			w.WriteHeader(http.StatusServiceUnavailable)
		case n == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Header().Set("Idempotent-Replay", "true")
			w.WriteHeader(http.StatusOK)
		}
	}))
	defer srv.Close()
	p := &Process{Name: "test", Base: srv.URL}

	if r := p.Post(t, "/messages/consume", "{}", "Idempotency-Key", "k1"); r.Status != http.StatusOK || r.Header.Get("Idempotent-Replay") != "true" || requests.Load() != 2 {
		t.Errorf("after a 503 with Retry-After: %d after %d requests, want 200 replayed after 2", r.Status, requests.Load())
	}
	requests.Store(0)
	if r := p.Post(t, "/plain", "{}", "Idempotency-Key", "k1"); r.Status != http.StatusServiceUnavailable || requests.Load() != 1 {
		t.Errorf("a 503 without Retry-After: %d after %d requests, want it returned after 1", r.Status, requests.Load())
	}
}
