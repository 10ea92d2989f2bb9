package daemon_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestDrainReleasesClaimAndRestartResumes stops a daemon in the middle of a
// paced PRODUCE whose drain deadline is too short: the open unit of work is
// backed out and the claim released, and a new daemon on the same store
// resumes from the last checkpoint instead of starting over.
func TestDrainReleasesClaimAndRestartResumes(t *testing.T) {
	backend, err := embedded.New(embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "mqprobe.db")
	onSQLite := func(s *daemontest.Setup) {
		s.Cfg.Idempotency.Store = config.StoreSQLite
		s.Cfg.Idempotency.SQLite.Path = dbPath
		s.Opts.Store = nil
		s.Opts.Backend = backend
		s.Cfg.HTTP.ShutdownTimeout = 300 * time.Millisecond
	}
	body := fmt.Sprintf(`{%s,"batch":{"count":40,"messageSizeBytes":64,"rateLimitPerSec":40,"transaction":{"enabled":true,"txSize":5}}}`, daemontest.Target)

	first := daemontest.Start(t, onSQLite)
	answered := make(chan daemontest.Response, 1)
	go func() { answered <- first.Post("/messages/produce", body, "Idempotency-Key", "drain-1") }()
	// Two transactions committed, the third open.
	testenv.Eventually(t, 10*time.Second, "12 puts", func() bool { return daemontest.QueueDepth(t, backend, "DEV.QUEUE.1") >= 12 })
	first.Shutdown()
	if r := <-answered; r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Fatalf("interrupted request: %d %s", r.Status, r.Body)
	}

	second := daemontest.Start(t, onSQLite)
	committed := second.Depth("DEV.QUEUE.1")
	if committed == 0 || committed%5 != 0 || committed >= 40 {
		t.Fatalf("depth after drain %d: want whole committed transactions only", committed)
	}
	r := second.Post("/messages/produce", body, "Idempotency-Key", "drain-1")
	d := r.JSON(t)
	if r.Status != http.StatusCreated || d["attempt"] != float64(2) {
		t.Fatalf("resume: %d %s", r.Status, r.Body)
	}
	res := d["result"].(map[string]any)
	if res["resumedFrom"] != float64(committed) {
		t.Errorf("resumedFrom %v, want %d", res["resumedFrom"], committed)
	}
	if depth := second.Depth("DEV.QUEUE.1"); depth != 40 {
		t.Errorf("depth %d after resume, want exactly 40", depth)
	}
}
