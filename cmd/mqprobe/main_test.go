package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

func startDaemon(t *testing.T) string {
	t.Helper()
	return startDaemonWith(t, func(*config.Config) {})
}

// startDaemonWith runs a daemon in-process on the embedded defaults that
// configure changes, and returns its address.
func startDaemonWith(t *testing.T, configure func(*config.Config)) string {
	t.Helper()
	cfg := config.Default()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Idempotency.Store = config.StoreMemory
	configure(cfg)
	d, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test", Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return d.Addr()
}

// mqprobe runs the CLI in-process, as main does, and returns stdout and
// the exit status.
func mqprobe(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, _, status := runCLI(t, context.Background(), args...)
	return out, status
}

func TestSendProduceReplayAndDepth(t *testing.T) {
	addr := startDaemon(t)
	out, status := mqprobe(t, "send", "produce", "--addr", addr, "--queue", "DEV.QUEUE.2", "--count", "20", "--size", "256",
		"--priority", "7", "--header", "app=cli", "--tag", "team=mw", "--key", "cli-1")
	var data map[string]any
	if err := json.Unmarshal([]byte(out), &data); err != nil || status != 0 {
		t.Fatalf("produce: status %d, output %s", status, out)
	}
	if res := data["result"].(map[string]any); res["enqueued"] != float64(20) || res["bytes"] != float64(5120) ||
		data["tags"].(map[string]any)["team"] != "mw" {
		t.Errorf("produce result %v", data)
	}
	if _, status := mqprobe(t, "send", "produce", "--addr", addr, "--queue", "DEV.QUEUE.2", "--count", "20", "--size", "256",
		"--priority", "7", "--header", "app=cli", "--tag", "team=mw", "--key", "cli-1"); status != 0 {
		t.Errorf("replay: status %d", status)
	}
	out, status = mqprobe(t, "send", "depth", "--addr", addr, "--queue", "DEV.QUEUE.2")
	if status != 0 || !strings.Contains(out, `"currentDepth": 20`) {
		t.Errorf("depth: %d %s", status, out)
	}
	out, status = mqprobe(t, "send", "consume", "--addr", addr, "--queue", "DEV.QUEUE.2", "--max-messages", "1", "--wait-seconds", "0")
	if status != 0 || !strings.Contains(out, `"priority": 7`) {
		t.Errorf("consume: %d %s", status, out)
	}
}

func TestSendExitStatuses(t *testing.T) {
	addr := startDaemon(t)
	if _, status := mqprobe(t, "send", "depth", "--addr", addr, "--queue", "NO.SUCH.QUEUE"); status != exitFailed {
		t.Errorf("unknown queue: status %d, want %d", status, exitFailed)
	}
	if _, status := mqprobe(t, "send", "produce", "--addr", addr, "--priority", "10"); status != exitRejected {
		t.Errorf("priority 10: status %d, want %d", status, exitRejected)
	}
	mqprobe(t, "send", "produce", "--addr", addr, "--count", "2", "--key", "cli-reuse")
	if _, status := mqprobe(t, "send", "produce", "--addr", addr, "--count", "3", "--key", "cli-reuse"); status != exitRejected {
		t.Errorf("key reuse: status %d, want %d", status, exitRejected)
	}
	file := filepath.Join(t.TempDir(), "cmd.json")
	os.WriteFile(file, []byte(`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.3"}}`), 0o600)
	if out, status := mqprobe(t, "send", "depth", "--addr", addr, "--file", file); status != 0 || !strings.Contains(out, "QM1:DEV.QUEUE.3") {
		t.Errorf("--file: %d %s", status, out)
	}
	if _, status := mqprobe(t, "send", "depth", "--addr", "127.0.0.1:1", "--timeout", time.Second.String()); status != exitFailed {
		t.Errorf("no daemon: status %d, want %d", status, exitFailed)
	}
}

func TestVersion(t *testing.T) {
	if out, status := mqprobe(t, "version"); status != 0 || !strings.HasPrefix(out, "mqprobe ") {
		t.Errorf("version: %d %q", status, out)
	}
}

func TestStoreInitIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "mqprobe.db")
	t.Setenv("MQPROBE_IDEMPOTENCY_SQLITE_PATH", path)
	for range 2 {
		if out, status := mqprobe(t, "store", "init"); status != 0 || !strings.Contains(out, "sqlite store ready") {
			t.Fatalf("store init: %d %s", status, out)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no database file: %v", err)
	}
}

func TestConfigErrorsExitTwo(t *testing.T) {
	t.Setenv("MQPROBE_HTTP_ADR", "127.0.0.1:9")
	if _, status := mqprobe(t, "store", "init"); status != 2 {
		t.Errorf("unknown variable: status %d, want 2", status)
	}
}

func TestStoreInitCreatesTheDynamoDBTableOnce(t *testing.T) {
	endpoint, stop, err := testenv.Dynalite()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// The endpoint may be a dynalite other tests and runs share: a table
	// of this run's own.
	table := fmt.Sprintf("mqprobe-init-test-%d", time.Now().UnixNano())
	t.Setenv("MQPROBE_IDEMPOTENCY_STORE", "dynamodb")
	t.Setenv("MQPROBE_IDEMPOTENCY_DYNAMODB_TABLE", table)
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	out, status := mqprobe(t, "store", "init")
	if status != 0 || !strings.Contains(out, table+" created") || !strings.Contains(out, "TTL on ttl: not supported by this endpoint") {
		t.Fatalf("first init: %d %s", status, out)
	}
	if !strings.Contains(out, "index target-index: created with the table") || !strings.Contains(out, "index tenant-index: created with the table") {
		t.Errorf("first init names no listing index: %s", out)
	}
	if out, status = mqprobe(t, "store", "init"); status != 0 || !strings.Contains(out, table+" exists") ||
		!strings.Contains(out, "index target-index: present") {
		t.Fatalf("second init: %d %s", status, out)
	}
}

// daemonSays reports whether GET path on the daemon at addr answers 200
// with a JSON body for which holds is true.
func daemonSays[T any](addr, path string, holds func(T) bool) bool {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var body T
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&body) == nil && holds(body)
}

// loadView is the part of GET /status the tests wait on.
type loadView struct {
	Load struct {
		CommandsExecuting int `json:"commandsExecuting"`
	} `json:"load"`
}

// executing reports whether the daemon at addr has at least n commands executing.
func executing(addr string, n int) bool {
	return daemonSays(addr, "/status", func(s loadView) bool { return s.Load.CommandsExecuting >= n })
}
