package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestRunAddr: run --addr listens where it says, over MQPROBE_HTTP_ADDR;
// an address in use names the three ways to choose another.
func TestRunAddr(t *testing.T) {
	defer slog.SetDefault(slog.Default()) // run sets the daemon's logger as the default
	t.Setenv("MQPROBE_IDEMPOTENCY_STORE", "memory")
	t.Setenv("MQPROBE_LOG_LEVEL", "error")
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	t.Setenv("MQPROBE_HTTP_ADDR", held.Addr().String()) // --addr must win over it

	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		_, _, status := runCLI(t, ctx, "run", "--addr", addr)
		done <- status
	}()
	testenv.Eventually(t, 30*time.Second, "the daemon answering on --addr", func() bool {
		_, _, status := runCLI(t, context.Background(), "health", "--addr", addr)
		return status == 0
	})
	cancel()
	if status := <-done; status != 0 {
		t.Errorf("run --addr %s: exit %d after SIGTERM-like cancel; want 0", addr, status)
	}

	_, stderr, status := runCLI(t, context.Background(), "run")
	want := "address already in use; another process listens there: stop it, or listen elsewhere with --addr, MQPROBE_HTTP_ADDR or http.addr"
	if status != exitFailed || !strings.Contains(stderr, want) {
		t.Errorf("run on a port in use: exit %d, %s; want 1 and %q", status, stderr, want)
	}
}

// TestNotAnMqprobeDaemon: --addr pointing at another web service says so,
// with its status and page title, instead of printing its page.
func TestNotAnMqprobeDaemon(t *testing.T) {
	page := "<html><head><title>Welcome to nginx!</title></head><body>" + strings.Repeat("lorem ipsum ", 500) + "</body></html>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	}))
	defer srv.Close()
	want := srv.URL + `/ is not an mqprobe daemon (it answered 200 OK, text/html: "Welcome to nginx!"); check --addr`
	for _, args := range [][]string{
		{"send", "depth"}, {"send", "produce", "--count", "1"}, {"send", "status", "PRODUCE", "k1"},
		{"send", "test", "--duration", "1s"}, {"health"},
	} {
		out, stderr, status := runCLI(t, context.Background(), append(args, "--addr", srv.URL)...)
		if status != exitFailed || out != "" || !strings.Contains(stderr, want) || strings.Contains(stderr, "lorem") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", args, status, out, stderr, want)
		}
	}
}
