package daemontest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// PreviousRelease is the commit whose mqprobe the mixed-version (rolling
// upgrade) tests run next to this tree's: main before the changes to what
// idempotency records and checkpoints hold (issue 29). Move it forward at
// each release, to the commit that release was built from, so the tests
// always judge an upgrade from what is deployed.
const PreviousRelease = "f0651a1"

// BuildAt builds ./cmd/mqprobe as it was at commit without build tags (see
// BuildCommit), so a benchmark can measure the tree against an earlier one
// side by side.
func BuildAt(t testing.TB, commit string) string {
	t.Helper()
	return BuildCommit(t, commit, "")
}

// BinaryAt is Binary as it was at commit: built with the test binary's own
// build tags (so a run with -tags ibmmq gets the IBM MQ backend), see
// BuildCommit.
func BinaryAt(t testing.TB, commit string) string {
	t.Helper()
	return BuildCommit(t, commit, binaryTags)
}

// BuildCommit builds ./cmd/mqprobe as it was at commit, a commit of this
// repository's history (git archive extracts it; the module cache provides
// its dependencies), with tags and the go command on PATH (GOTOOLCHAIN=local:
// the toolchain that builds this tree, never one the old go.mod asks for),
// into the repository's build directory (.build/test, git-ignored), and
// returns its path. A commit is immutable: the binary is cached under its
// full hash, tags and Go version, and reused. A missing git or a commit
// this clone lacks (a shallow clone) fails t, saying so: a mixed-version
// test never passes by not running.
func BuildCommit(t testing.TB, commit, tags string) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	full, err := resolveCommit(root, commit)
	if err != nil {
		t.Fatal(err)
	}
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatalf("go env GOVERSION: %v", err)
	}
	name := "mqprobe-at-" + full
	if tags != "" {
		name += "-" + strings.ReplaceAll(tags, ",", "-")
	}
	name += "-" + strings.TrimSpace(string(goVersion))
	final := filepath.Join(root, ".build", "test", name)
	if _, err := os.Stat(final); err == nil {
		return final
	}
	src := t.TempDir()
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", full)
	extract := exec.Command("tar", "-x", "-C", src)
	var stderr testenv.Buffer // both processes write it, each from a goroutine of its own
	archive.Stderr, extract.Stderr = &stderr, &stderr
	if extract.Stdin, err = archive.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := extract.Start(); err != nil {
		t.Fatalf("extract commit %s: %v", commit, err)
	}
	archiveErr := archive.Run()
	if err := errors.Join(archiveErr, extract.Wait()); err != nil {
		t.Fatalf("extract commit %s with git archive: %v\n%s", commit, err, stderr.String())
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := fmt.Sprintf("%s.tmp.%d", final, os.Getpid())
	build := exec.Command("go", "build", "-tags", tags, "-o", tmp, "./cmd/mqprobe")
	build.Dir = src
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		os.Remove(tmp)
		t.Fatalf("go build -tags %q ./cmd/mqprobe at %s: %v\n%s", tags, commit, err, out)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		t.Fatal(err)
	}
	return final
}

// resolveCommit is commit's full hash in the repository at root, or an
// error saying what the clone lacks.
func resolveCommit(root, commit string) (string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", fmt.Errorf("building mqprobe at commit %s needs git on PATH: %w", commit, err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command("git", "-C", root, "rev-parse", "--verify", "--quiet", commit+"^{commit}")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return "", fmt.Errorf("commit %s is not in the history of the clone at %s (git rev-parse: %v): the mixed-version tests build that commit's mqprobe from git; "+
			"use a clone with full history (git fetch --unshallow), or move daemontest.PreviousRelease to a commit it has", commit, root, err)
	}
	return strings.TrimSpace(string(out)), nil
}
