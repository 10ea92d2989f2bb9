package testenv

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// WireCounter is a reverse proxy on 127.0.0.1 in front of an AWS endpoint
// that counts the calls going through it by operation: what a client
// really sends, whatever its SDK or our code believe they do.
type WireCounter struct {
	// URL is the proxy's endpoint: give it to the client instead of the
	// target.
	URL    string
	mu     sync.Mutex
	counts map[string]int
}

// CountCalls starts a WireCounter in front of target, stopped when the test
// ends.
func CountCalls(t testing.TB, target string) *WireCounter {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatalf("wire counter target %q: %v", target, err)
	}
	w := &WireCounter{counts: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.counts[operation(r)]++
		w.mu.Unlock()
		proxy.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	w.URL = srv.URL
	return w
}

// operation names an AWS call: the part after the dot of X-Amz-Target
// (JSON protocols: DynamoDB, SQS, Secrets Manager), else the Action
// parameter (query protocols such as SNS's), else the method and path.
func operation(r *http.Request) string {
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		return target[strings.LastIndex(target, ".")+1:]
	}
	// The body goes on to the target: read a copy.
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err == nil && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if form, err := url.ParseQuery(string(body)); err == nil && form.Get("Action") != "" {
			return form.Get("Action")
		}
	}
	return r.Method + " " + r.URL.Path
}

// Count returns how many calls of operation (PutItem, GetSecretValue, …)
// went through.
func (w *WireCounter) Count(operation string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts[operation]
}

// Reset returns every operation's count and starts counting from zero.
func (w *WireCounter) Reset() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.counts
	w.counts = map[string]int{}
	return c
}
