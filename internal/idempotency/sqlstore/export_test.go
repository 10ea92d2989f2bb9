package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Truncate empties the record table between tests.
func (s *Store) Truncate(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_record`)
	return err
}

// AppliedVersions lists the recorded schema migrations.
func (s *Store) AppliedVersions(ctx context.Context) ([]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version FROM mqprobe_schema_version ORDER BY version`)
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
	query, args := s.listQuery(q, q.PageSize())
	conn, err := s.db.Conn(ctx)
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
