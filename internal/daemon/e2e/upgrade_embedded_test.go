package e2e_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // reads the shared file's schema version

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
)

// TestUpgradeSQLiteFile: the embedded default's records survive an upgrade
// and a rollback on one SQLite file (a data directory's mqprobe.db). The
// previous release (daemontest.PreviousRelease, built from git) runs
// commands and stops; this tree's opens the same file (migrating its
// schema, if it moved) and replays them, refuses their keys with another
// request and runs its own; then the previous release opens the file again
// and replays the new one's records — or, when this tree moved the schema
// past the previous release's, refuses to start, naming the versions, and
// runs nothing: a rollback never reads records it does not understand.
func TestUpgradeSQLiteFile(t *testing.T) {
	previous, current := daemontest.Versions(t)
	db := filepath.Join(t.TempDir(), "data", "mqprobe.db")
	vars := map[string]string{"MQPROBE_LOG_LEVEL": "warn", "MQPROBE_IDEMPOTENCY_SQLITE_PATH": db}
	const count = 3
	produce := func(n int) string {
		return fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":16}}`, daemontest.Target, n)
	}
	// originals are the first answers, by key, with the version that gave them.
	type answer struct {
		by   string
		body []byte
	}
	originals := map[string]answer{}
	execute := func(t *testing.T, p *daemontest.Process, label, key string) {
		t.Helper()
		r := p.Post(t, "/messages/produce", produce(count), "Idempotency-Key", key)
		if r.Status != http.StatusCreated {
			t.Fatalf("%s executing %s: %d %s, want 201", label, key, r.Status, r.Body)
		}
		originals[key] = answer{label, r.Body}
	}
	// replayAll checks that p, of version label, replays every key in
	// keys as it was first answered and refuses it with another request,
	// putting nothing.
	replayAll := func(t *testing.T, p *daemontest.Process, label string, keys ...string) {
		t.Helper()
		before := p.Depth(t, "DEV.QUEUE.1")
		for _, key := range keys {
			o := originals[key]
			dir := o.by + "-to-" + label
			r := p.Post(t, "/messages/produce", produce(count), "Idempotency-Key", key)
			if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replay") != "true" {
				t.Errorf("replay %s: key %s: %d Idempotent-Replay=%q %s, want 201 and true", dir, key, r.Status, r.Header.Get("Idempotent-Replay"), r.Body)
			} else if err := daemontest.SameApartFromReplay(o.body, r.Body); err != nil {
				t.Errorf("replay %s: key %s: %v", dir, key, err)
			}
			if r := p.Post(t, "/messages/produce", produce(count+1), "Idempotency-Key", key); r.Status != http.StatusConflict {
				t.Errorf("key-reuse %s: key %s with a different request: %d %s, want 409", dir, key, r.Status, r.Body)
			}
		}
		if d := p.Depth(t, "DEV.QUEUE.1") - before; d != 0 {
			t.Errorf("%s put %d messages replaying and refusing %v, want 0", label, d, keys)
		}
	}
	stop := func(t *testing.T, p *daemontest.Process) {
		t.Helper()
		p.Stop(syscall.SIGTERM)
		if p.Err != nil {
			t.Fatalf("%s exited with %v after SIGTERM:\n%s", p.Name, p.Err, daemontest.LogTail(p.Log, 4<<10))
		}
	}

	old, _ := daemontest.StartBinary(t, previous.Bin, "old", vars)
	execute(t, old, "old", "upgrade-sqlite-old")
	stop(t, old)
	previousSchema := schemaVersion(t, db)

	t.Run("old-to-new", func(t *testing.T) {
		new, _ := daemontest.StartBinary(t, current.Bin, "new", vars)
		replayAll(t, new, "new", "upgrade-sqlite-old")
		execute(t, new, "new", "upgrade-sqlite-new")
		stop(t, new)
		if v := schemaVersion(t, db); v != sqlstore.SchemaVersion {
			t.Fatalf("old-to-new: the file's schema is at version %d after this tree's daemon ran, want its %d", v, sqlstore.SchemaVersion)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("new-to-old", func(t *testing.T) {
		if sqlstore.SchemaVersion == previousSchema {
			old, _ := daemontest.StartBinary(t, previous.Bin, "old-again", vars)
			replayAll(t, old, "old", "upgrade-sqlite-new", "upgrade-sqlite-old")
			return
		}
		// The schema moved forward: the previous release must refuse the
		// file, saying why, rather than serve records it cannot read.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, previous.Bin, "run")
		cmd.Dir = t.TempDir()
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "MQPROBE_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "MQPROBE_LOG_LEVEL=warn", "MQPROBE_IDEMPOTENCY_SQLITE_PATH="+db, "MQPROBE_HTTP_ADDR=127.0.0.1:0")
		out, err := cmd.CombinedOutput()
		want := fmt.Sprintf("database schema version %d is newer than this build's %d", sqlstore.SchemaVersion, previousSchema)
		if err == nil || ctx.Err() != nil || !strings.Contains(string(out), want) {
			t.Errorf("new-to-old: the previous release on a file at schema %d (its own is %d): %v, output:\n%s\nwant it to exit non-zero saying %q",
				sqlstore.SchemaVersion, previousSchema, err, out, want)
		}
	})
}

// schemaVersion is the schema version recorded in the SQLite file at path.
func schemaVersion(t *testing.T, path string) int {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var v int
	if err := conn.QueryRow(`SELECT COALESCE(MAX(version), 0) FROM mqprobe_schema_version`).Scan(&v); err != nil {
		t.Fatalf("schema version of %s: %v", path, err)
	}
	return v
}
