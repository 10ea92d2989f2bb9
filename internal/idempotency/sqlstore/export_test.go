package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Truncate empties the record table between tests.
func (s *Store) Truncate(ctx context.Context) error {
	return s.write(ctx, func(ctx context.Context, q querier) error {
		_, err := s.exec(ctx, q, `DELETE FROM idempotency_record`)
		return err
	})
}

// WriteTransactions is how many transactions the group-commit writer has
// committed.
func (s *Store) WriteTransactions() int64 { return s.w.transactions.Load() }

// WriteSyncs is how many times the writer has synced the WAL.
func (s *Store) WriteSyncs() int64 { return s.w.syncs.Load() }

// WaitingWrites is how many callers wait to hand a write to the writer.
func (s *Store) WaitingWrites() int64 { return s.w.waiting.Load() }

// HoldWriter makes the writer's next transaction wait until the returned
// release is called, so the writes queued meanwhile form one batch. It
// returns once the writer is held.
func (s *Store) HoldWriter(ctx context.Context) (release func(), err error) {
	held, resume := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- s.w.do(ctx, func(context.Context, querier) error {
			select {
			case <-held:
			default:
				close(held)
			}
			<-resume
			return nil
		})
	}()
	select {
	case <-held:
	case err := <-errc:
		return nil, err
	}
	return func() {
		close(resume)
		<-errc
	}, nil
}

// WriteSQL runs query as one write of the writer's next batch.
func (s *Store) WriteSQL(ctx context.Context, query string) error {
	return s.write(ctx, func(ctx context.Context, q querier) error {
		_, err := s.exec(ctx, q, query)
		return err
	})
}

// WriterPragma reads PRAGMA name on the writer's connection.
func (s *Store) WriterPragma(ctx context.Context, name string) (string, error) {
	var value string
	err := s.write(ctx, func(ctx context.Context, q querier) error {
		st, err := q.prepared(ctx, "PRAGMA "+name)
		if err != nil {
			return err
		}
		return st.QueryRowContext(ctx).Scan(&value)
	})
	return value, err
}

// OpenPostgresBatched opens the PostgreSQL store with a group-commit writer
// as SQLite has, to measure whether PostgreSQL gains from it.
func OpenPostgresBatched(ctx context.Context, dsn string) (*Store, error) {
	pool, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	pool.SetMaxOpenConns(32)
	writeDB, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	writeDB.SetMaxOpenConns(1)
	return newStore(ctx, pool, writeDB, postgres, nil)
}

// AppliedVersions lists the recorded schema migrations.
func (s *Store) AppliedVersions(ctx context.Context) ([]int, error) {
	rows, err := s.pool.QueryContext(ctx, `SELECT version FROM mqprobe_schema_version ORDER BY version`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ListPlan is the database's plan for List(q), one line per step. On
// PostgreSQL sequential scans are disabled for the plan: on a test's few
// rows one would always win, hiding which index the query can use.
func (s *Store) ListPlan(ctx context.Context, q idempotency.ListQuery) (string, error) {
	query, args, err := s.listQuery(q, q.PageSize())
	if err != nil {
		return "", err
	}
	conn, err := s.pool.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	explain := "EXPLAIN QUERY PLAN "
	if s.d.name == "postgres" {
		explain = "EXPLAIN "
		if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
			return "", err
		}
		defer conn.ExecContext(ctx, "RESET enable_seqscan") //nolint:errcheck // the connection goes back to the pool either way
	}
	rows, err := conn.QueryContext(ctx, explain+query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(any)
		}
		if err := rows.Scan(dest...); err != nil {
			return "", err
		}
		// The step's text is the last column (SQLite's detail, PostgreSQL's QUERY PLAN).
		lines = append(lines, fmt.Sprint(*dest[len(dest)-1].(*any)))
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// CheckFile is the database file check every operation makes first.
func (s *Store) CheckFile() error { return s.file.check() }

// CheckFileEvery makes the database file check stand for d instead of
// fileCheckInterval, starting now.
func (s *Store) CheckFileEvery(d time.Duration) {
	s.file.interval = d
	s.file.next.Store(int64(time.Since(s.file.began)))
}

// Closing reports whether Close has begun: the writer was told to stop.
func (s *Store) Closing() bool {
	select {
	case <-s.w.stop:
		return true
	default:
		return false
	}
}

// ReadOnlyClaimCommit is the synchronous_commit setting of the sessions
// read-only claims use on PostgreSQL.
func (s *Store) ReadOnlyClaimCommit(ctx context.Context) (string, error) {
	var setting string
	err := s.relaxed.db.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&setting)
	return setting, err
}

// SeedAtVersion migrates db, a database of dialect "sqlite" or "postgres",
// to schema version (4 or later) and writes recs as that version's store
// did: every column then, nothing of later versions.
func SeedAtVersion(ctx context.Context, db *sql.DB, dialectName string, version int, recs []idempotency.Record) error {
	d := sqlite
	if dialectName == postgres.name {
		d = postgres
	}
	if err := migrateTo(ctx, db, d, version); err != nil {
		return err
	}
	insert := d.bind(`INSERT INTO idempotency_record (` + columns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
		$11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`)
	for _, r := range recs {
		if _, err := db.ExecContext(ctx, insert, r.PK, r.OperationType, r.IdempotencyKey, string(r.Status), r.RequestHash,
			nullable(r.ResponsePayload), r.HTTPStatus, d.timeArg(r.CreatedAt), d.timeArg(r.UpdatedAt), d.timeArg(r.ExpiresAt),
			r.ExpiresAt.Unix(), r.LeaseExpiresAt.UnixMilli(), r.LeaseToken, r.Attempt, r.Target, r.TraceID, r.DurationMs,
			r.ErrorMessage, r.Progress, r.Tenant, r.LeaseHolder); err != nil {
			return fmt.Errorf("seed %s: %w", r.PK, err)
		}
	}
	return nil
}
