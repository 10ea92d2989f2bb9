package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SQLite synchronous modes OpenSQLite accepts (PRAGMA synchronous, in WAL
// mode).
const (
	// SynchronousFull syncs the WAL at every commit: a committed claim
	// survives a power loss or an OS crash. The default.
	SynchronousFull = "FULL"
	// SynchronousNormal syncs only at checkpoints: a commit survives the
	// process crashing, but the last ones may roll back on a power loss or
	// an OS crash, so a command claimed just before could run twice.
	SynchronousNormal = "NORMAL"
)

// SQLiteOption tunes OpenSQLite.
type SQLiteOption func(*sqliteOptions)

type sqliteOptions struct {
	synchronous string
	log         *slog.Logger
}

// WithSynchronous sets the synchronous mode: SynchronousFull or
// SynchronousNormal.
func WithSynchronous(mode string) SQLiteOption {
	return func(o *sqliteOptions) { o.synchronous = mode }
}

// WithLogger is where the store says that its database file was lost
// (FileError); slog.Default() without it.
func WithLogger(log *slog.Logger) SQLiteOption {
	return func(o *sqliteOptions) { o.log = log }
}

// OpenSQLite opens (creating if needed) the SQLite store in the file at path,
// in WAL mode with synchronous=FULL unless an option says otherwise, and
// migrates its schema. Writes go through one connection that commits the
// writes waiting for it together (group commit); reads use a pool of their
// own, which in WAL mode never waits for the writer. Once path (or its
// WAL) no longer names the file opened there, every operation fails with a
// *FileError.
//
// FULL is not SQLite's own: SQLite would sync the WAL inside every COMMIT,
// holding up the next batch. The writer's connection runs NORMAL (no sync at
// commit) and the store syncs the WAL file itself after each COMMIT, on
// another goroutine, answering a batch's writes once that sync is done: the
// same durability for every answered write, with the sync of one batch
// overlapping the execution of the next. A record can be read (by another
// caller's Get or Begin) in the moment between its COMMIT and that sync;
// after a power loss in that moment its writer's caller was never answered,
// as with any write the crash interrupted.
func OpenSQLite(ctx context.Context, path string, opts ...SQLiteOption) (*Store, error) {
	o := sqliteOptions{synchronous: SynchronousFull, log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.synchronous != SynchronousFull && o.synchronous != SynchronousNormal {
		return nil, fmt.Errorf("open sqlite %s: synchronous must be %s or %s (got %q)", path, SynchronousFull, SynchronousNormal, o.synchronous)
	}
	if path == ":memory:" {
		// Each connection would open a database of its own.
		return nil, errors.New("open sqlite: the store needs a file: its reader and writer connections share it (got \":memory:\")")
	}
	// Records hold results and keys: the file is owner-only. SQLite gives
	// its -wal and -shm files the database file's mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	f.Close()
	// SQLite's own checkpoints run on the writer's connection between its
	// transactions: there they catch up with the WAL, so the WAL restarts
	// and stays small. (A checkpointer on a connection of its own never
	// catches up with a busy writer: the WAL grew without bound.) Its
	// temporary storage is memory: a batch's statements keep the pages an
	// earlier one changed in a statement journal, which would otherwise
	// spill to a file, two writes a page, once past 64 KiB; it holds at
	// most a batch's (or a cleanup DELETE's) pages.
	writeDB, err := openSQLiteDB(ctx, path, 1, "synchronous(NORMAL)", "temp_store(MEMORY)")
	if err != nil {
		return nil, err
	}
	readers := max(4, runtime.GOMAXPROCS(0))
	readDB, err := openSQLiteDB(ctx, path, readers, "query_only(ON)")
	if err != nil {
		writeDB.Close()
		return nil, err
	}
	var wal *walFile
	var sync func() error
	if o.synchronous == SynchronousFull {
		wal = &walFile{path: path + "-wal"}
		sync = wal.sync
	}
	s, err := newStore(ctx, readDB, writeDB, sqlite, sync)
	if err != nil {
		return nil, err
	}
	s.wal = wal
	// Taken once the schema is migrated: the migration's writes made the WAL.
	if s.file, err = newFileGuard(path, o.log); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// walFile is the SQLite WAL file the writer syncs (synchronous=FULL). The
// writer's connection keeps the database open, so the file is never
// removed while the store is.
type walFile struct {
	path string
	f    *os.File // opened at the first sync, after a commit created the file
}

// sync flushes the WAL to stable storage; only the writer's sync goroutine
// calls it.
func (w *walFile) sync() error {
	if w.f == nil {
		f, err := os.OpenFile(w.path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		w.f = f
	}
	return w.f.Sync()
}

func (w *walFile) close() error {
	if w == nil || w.f == nil {
		return nil
	}
	return w.f.Close()
}

// openSQLiteDB opens a pool of at most conns connections to the WAL
// database at path, each with the extra pragmas.
func openSQLiteDB(ctx context.Context, path string, conns int, pragmas ...string) (*sql.DB, error) {
	q := url.Values{}
	// busy_timeout first: the pragmas run in order, and switching a fresh
	// file to WAL takes a lock that another process opening it at the same
	// moment may hold (it answered SQLITE_BUSY at once, without the wait).
	for _, p := range append([]string{"busy_timeout(10000)", "journal_mode(WAL)", "foreign_keys(ON)"}, pragmas...) {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return db, nil
}

// OpenPostgres connects to PostgreSQL (a libpq URL or key=value DSN) and
// migrates the schema. Each write is its own statement on a pool of 32
// connections: PostgreSQL runs them in parallel and flushes concurrent
// commits together itself, so SQLite's group-commit writer only serialises
// them and adds BEGIN and COMMIT round trips — measured with
// BenchmarkPostgresBatched against BenchmarkPostgres (new/c32: 2.7k vs
// 4.6k commands/s; new/c1: 1.4k vs 2.8k).
//
// A read-only command's claim (idempotency.Claim.ReadOnly) goes through a
// second pool of up to relaxedConns connections whose sessions commit with
// synchronous_commit off: PostgreSQL answers its COMMIT before flushing the
// WAL, and the completion's synchronous commit flushes it with everything
// before.
func OpenPostgres(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	relaxedCfg := cfg.Copy()
	if relaxedCfg.RuntimeParams == nil {
		relaxedCfg.RuntimeParams = map[string]string{}
	}
	relaxedCfg.RuntimeParams["synchronous_commit"] = "off"
	db, relaxed := stdlib.OpenDB(*cfg), stdlib.OpenDB(*relaxedCfg)
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	relaxed.SetMaxOpenConns(relaxedConns)
	relaxed.SetMaxIdleConns(relaxedConns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		relaxed.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	s, err := newStore(ctx, db, nil, postgres, nil)
	if err != nil {
		relaxed.Close()
		return nil, err
	}
	s.relaxed = &stmtPool{db: relaxed}
	return s, nil
}

// relaxedConns bounds the PostgreSQL connections read-only claims use.
const relaxedConns = 8

// stmtPool is a pool with the statements prepared on it, by query text;
// close closes both.
type stmtPool struct {
	db    *sql.DB
	stmts sync.Map
}

func (p *stmtPool) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	cached, ok := p.stmts.Load(query)
	if !ok {
		st, err := p.db.PrepareContext(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		if cached, ok = p.stmts.LoadOrStore(query, st); ok {
			st.Close()
		}
	}
	return cached.(*sql.Stmt), nil
}

func (p *stmtPool) close() error {
	if p == nil {
		return nil
	}
	p.stmts.Range(func(_, st any) bool {
		st.(*sql.Stmt).Close()
		return true
	})
	return p.db.Close()
}
