// Package testenv provides the servers tests need — started by the project's
// own scripts when the environment does not name one — and fails loudly,
// never skips, when they cannot be had.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RepoRoot is the directory holding go.mod, found from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// PostgresDSNEnv names the variable that points tests at a running PostgreSQL.
const PostgresDSNEnv = "MQPROBE_TEST_POSTGRES_DSN"

// Postgres returns a DSN for a PostgreSQL server: the one in
// MQPROBE_TEST_POSTGRES_DSN, or a private one it starts with
// scripts/postgres.sh. stop ends a server it started (and is a no-op
// otherwise).
func Postgres() (dsn string, stop func(), err error) {
	if dsn := os.Getenv(PostgresDSNEnv); dsn != "" {
		return dsn, func() {}, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "mqprobe-pg-")
	if err != nil {
		return "", nil, err
	}
	script := filepath.Join(root, "scripts", "postgres.sh")
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script, "start", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("PostgreSQL is neither given by %s nor startable (%s start): %w\n%s",
			PostgresDSNEnv, script, err, stderr.String())
	}
	stop = func() { _ = exec.Command("bash", script, "stop", dir).Run() }
	return strings.TrimSpace(string(out)), stop, nil
}
