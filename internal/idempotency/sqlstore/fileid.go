package sqlstore

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// fileCheckInterval is how long the finding of a file check stands. A
// check stats the database and its WAL (16–22 µs on a busy 2-core machine,
// BenchmarkFileCheck), too much to add to every claim; between checks an
// operation pays a clock read and atomic loads (about 45 ns).
const fileCheckInterval = time.Second

// FileError says that the SQLite database path no longer names the file the
// store has open. SQLite keeps writing to its open file, so records written
// now would be gone at the next start: the store refuses every operation.
type FileError struct {
	Path    string // absolute
	Problem string // what happened, e.g. "was deleted"
}

func (e *FileError) Error() string {
	return fmt.Sprintf("sqlite database %s %s since the store opened it: records written now would be lost at restart, so the store refuses them; restore the file (or accept the loss) and restart", e.Path, e.Problem)
}

// fileGuard notices when the database file or its WAL stops being the file
// at its path (deleted with its directory, replaced, remounted): it
// compares the device and inode of each path with those taken at open.
type fileGuard struct {
	log      *slog.Logger
	paths    [2]string      // the database file and its WAL, absolute
	opened   [2]os.FileInfo // their identities at open
	interval time.Duration
	began    time.Time // origin of next, on the monotonic clock

	next  atomic.Int64               // nanoseconds after began when the next check is due
	fault atomic.Pointer[*FileError] // the last check's finding, nil when the files are in place
	mu    sync.Mutex                 // one caller checks; the others use the standing finding
}

// newFileGuard takes the identities of the database at path and its WAL,
// which the store's open connections keep in place (the writer holds its
// connection for the store's life, so SQLite never removes the WAL).
func newFileGuard(path string, log *slog.Logger) (*fileGuard, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite database %s: %w", path, err)
	}
	g := &fileGuard{log: log, paths: [2]string{abs, abs + "-wal"}, interval: fileCheckInterval, began: time.Now()}
	for i, p := range g.paths {
		if g.opened[i], err = os.Stat(p); err != nil {
			return nil, fmt.Errorf("sqlite database %s: %w", path, err)
		}
	}
	g.next.Store(int64(g.interval))
	return g, nil
}

// check returns the standing finding, checking the files again first when
// the interval has passed. A nil guard (PostgreSQL) has nothing to check.
func (g *fileGuard) check() error {
	if g == nil {
		return nil
	}
	if now := time.Since(g.began); int64(now) >= g.next.Load() && g.mu.TryLock() {
		if int64(now) >= g.next.Load() {
			g.record(g.inspect())
			g.next.Store(int64(now + g.interval))
		}
		g.mu.Unlock()
	}
	if f := g.fault.Load(); f != nil {
		return *f
	}
	return nil
}

// inspect compares each path with the file opened there.
func (g *fileGuard) inspect() *FileError {
	for i, p := range g.paths {
		info, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return &FileError{Path: p, Problem: "was deleted (or its directory removed)"}
		case err != nil:
			return &FileError{Path: p, Problem: fmt.Sprintf("cannot be checked (%v)", err)}
		case !os.SameFile(info, g.opened[i]):
			return &FileError{Path: p, Problem: "names another file (replaced, moved or remounted)"}
		}
	}
	return nil
}

// record keeps the finding and logs a change of it once.
func (g *fileGuard) record(f *FileError) {
	var was *FileError
	if prev := g.fault.Load(); prev != nil {
		was = *prev
	}
	switch {
	case f == nil && was != nil:
		g.fault.Store(nil)
		g.log.Info("sqlite database is at its path again; the store accepts operations", "path", was.Path)
	case f != nil && (was == nil || *was != *f):
		g.fault.Store(&f)
		g.log.Error("idempotency store refuses every operation: the sqlite database path no longer names its open file",
			"path", f.Path, "problem", f.Problem, "fix", "restore the file (or accept the loss of its records) and restart the daemon")
	}
}
