package daemon_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestCloseWithoutRunReleasesEverything builds a daemon on a SQLite file
// and a fixed port and closes it without running it: every goroutine New
// started ends, the port can be bound again and another daemon opens the
// same store file. A second Close does nothing.
func TestCloseWithoutRunReleasesEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := sqliteConfig(t, freePort(t))
	d, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test",
		Backend: daemontest.NewEmbeddedBackend(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d.Close()
	if !testenv.Until(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		t.Fatalf("%d goroutines after Close, %d before New:\n%s", runtime.NumGoroutine(), before, goroutineStacks())
	}
	l, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		t.Fatalf("the closed daemon's port %s: %v", cfg.HTTP.Addr, err)
	}
	l.Close()

	// Another daemon runs on the same file and port.
	h := daemontest.Start(t, func(s *daemontest.Setup) { s.Cfg, s.Opts.Store = cfg, nil })
	if depth := h.Depth("DEV.QUEUE.1"); depth != 0 {
		t.Fatalf("depth %d on a fresh backend", depth)
	}
}

// TestCloseAfterRun: once Run has returned, Close has nothing left to do
// and returns, and the daemon does not run again.
func TestCloseAfterRun(t *testing.T) {
	cfg := sqliteConfig(t, "127.0.0.1:0")
	d, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test",
		Backend: daemontest.NewEmbeddedBackend(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()
	awaitServing(t, d)
	cancel()
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
	d.Close() // returns: there is nothing left to release
	if err := d.Run(context.Background()); !errors.Is(err, daemon.ErrClosed) {
		t.Fatalf("a second Run: %v, want ErrClosed", err)
	}
}

// TestCloseStopsRun: Close while Run serves drains the daemon as a
// cancelled context does, and returns once Run has.
func TestCloseStopsRun(t *testing.T) {
	cfg := sqliteConfig(t, "127.0.0.1:0")
	d, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test",
		Backend: daemontest.NewEmbeddedBackend(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- d.Run(context.Background()) }()
	awaitServing(t, d)
	d.Close()
	// Close returns as Run does; the goroutine's send may still be on its
	// way.
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Close")
	}
}

// awaitServing waits until d answers ready.
func awaitServing(t *testing.T, d *daemon.Daemon) {
	testenv.Eventually(t, 30*time.Second, "ready", func() bool {
		resp, err := http.Get("http://" + d.Addr() + "/health/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

func sqliteConfig(t *testing.T, addr string) *config.Config {
	cfg := config.Default()
	cfg.HTTP.Addr = addr
	cfg.HTTP.ShutdownTimeout = 5 * time.Second
	cfg.Idempotency.Store = config.StoreSQLite
	cfg.Idempotency.SQLite.Path = filepath.Join(t.TempDir(), "mqprobe.db")
	return cfg
}

// freePort is a loopback address no one listens on now.
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func goroutineStacks() string {
	buf := make([]byte, 1<<20)
	return strings.TrimSpace(string(buf[:runtime.Stack(buf, true)]))
}
