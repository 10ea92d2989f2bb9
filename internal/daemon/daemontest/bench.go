package daemontest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchClient keeps an idle connection per concurrent sender (the default
// transport keeps two per host): reconnecting is not what is measured.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 2 * time.Minute}

// BenchPost posts body as application/json to base+path with headers (name,
// value pairs), on a client keeping up to 64 idle connections per host and
// giving up after 2 minutes, and returns the status and response body.
func BenchPost(base, path, body string, headers ...string) (int, []byte, error) {
	return BenchPostContext(context.Background(), base, path, body, headers...)
}

// BenchPostContext is BenchPost giving up when ctx ends.
func BenchPostContext(ctx context.Context, base, path, body string, headers ...string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := benchClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// ClosedLoop runs n operations with conc of them in flight at a time,
// timing only them, and reports cmds/s. The first error stops it and fails
// b.
func ClosedLoop(b *testing.B, conc, n int, op func() error) {
	b.Helper()
	b.ResetTimer()
	elapsed, err := TimeClosedLoop(conc, n, op)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "cmds/s")
}

// TimeClosedLoop runs n operations with conc of them in flight at a time
// and returns how long they took; the first error stops the senders and is
// returned.
func TimeClosedLoop(conc, n int, op func() error) (time.Duration, error) {
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		failed atomic.Value
	)
	began := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) && failed.Load() == nil {
				if err := op(); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	err, _ := failed.Load().(error)
	return elapsed, err
}
