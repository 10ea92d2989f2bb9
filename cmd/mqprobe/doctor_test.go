package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctor runs mqprobe doctor in embedded mode on a good configuration
// (exit 0, each check said ok, no record written) and on two broken ones:
// a store path that cannot be created, and a profile whose password
// cannot be resolved (exit 1, the failed check and what to fix).
func TestDoctor(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	db := filepath.Join(dir, "data", "mqprobe.db")
	profiles := func(auth string) string {
		return "targets:\n  profiles:\n    qm1:\n      queueManager: QM1\n      queue: DEV.QUEUE.1\n" + auth
	}
	doctor := func(file string) (string, int) {
		t.Helper()
		stdout, stderr, status := runCLI(t, context.Background(), "doctor", "--config", file)
		return stdout + stderr, status
	}

	t.Run("Good", func(t *testing.T) {
		file := write("good.yaml", "idempotency:\n  sqlite:\n    path: "+db+"\n"+profiles(""))
		out, status := doctor(file)
		if status != 0 {
			t.Fatalf("doctor: exit %d, want 0\n%s", status, out)
		}
		for _, want := range []string{
			"ok    idempotency.store: sqlite " + db + " opens and answers a read\n",
			"ok    targets.profiles.qm1: connected to queue manager QM1\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor says\n%s\nwant the line %q", out, want)
			}
		}
		if list, status := mqprobe(t, "store", "list", "--config", file); status != 0 || strings.Contains(list, "HEALTH") || strings.Contains(list, "doctor") {
			t.Errorf("after doctor, store list (exit %d) shows\n%s\nwant no record", status, list)
		}
	})

	t.Run("StorePathCannotBeCreated", func(t *testing.T) {
		blocker := write("not-a-dir", "")
		file := write("bad-store.yaml", "idempotency:\n  sqlite:\n    path: "+filepath.Join(blocker, "mqprobe.db")+"\n"+profiles(""))
		out, status := doctor(file)
		if status != 1 || !strings.Contains(out, "FAIL  idempotency.store: idempotency.sqlite.path") ||
			!strings.Contains(out, "fix: make idempotency.sqlite.path a file this user can create and write") {
			t.Errorf("doctor: exit %d\n%s\nwant exit 1, the store's failure and its fix", status, out)
		}
		if strings.Contains(out, "targets.profiles") {
			t.Errorf("doctor went on after the first failure:\n%s", out)
		}
	})

	t.Run("ProfilePasswordMissing", func(t *testing.T) {
		file := write("bad-profile.yaml", "idempotency:\n  sqlite:\n    path: "+db+"\n"+profiles("      auth:\n        user: app\n        passwordRef: env:MQPROBE_TEST_DOCTOR_UNSET\n"))
		out, status := doctor(file)
		if status != 1 || !strings.Contains(out, "ok    idempotency.store") || !strings.Contains(out, "FAIL  targets.profiles.qm1 passwordRef: ") ||
			!strings.Contains(out, "fix: check targets.profiles.qm1 (queueManager") {
			t.Errorf("doctor: exit %d\n%s\nwant exit 1, the profile's failure and its fix", status, out)
		}
	})

	t.Run("BadConfiguration", func(t *testing.T) {
		file := write("bad-config.yaml", "aws:\n  checkInterval: 0s\n")
		if out, status := doctor(file); status != 2 || !strings.Contains(out, "aws.checkInterval") {
			t.Errorf("doctor: exit %d\n%s\nwant exit 2 naming aws.checkInterval", status, out)
		}
	})
}
