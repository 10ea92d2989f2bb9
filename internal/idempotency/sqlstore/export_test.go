package sqlstore

import "context"

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
