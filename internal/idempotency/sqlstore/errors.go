package sqlstore

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	moderncsqlite "modernc.org/sqlite"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// MaxRecordBytes is the largest record the SQL stores hold, as
// idempotency.RecordSize measures it. Neither database needs a limit this
// low (SQLite's default string limit is 1 GB, PostgreSQL's text and JSON
// columns too); 1 MiB keeps one record one bounded read and one bounded
// result event (an SQS message is at most 1 MiB).
const MaxRecordBytes = 1 << 20

// Limits implements idempotency.Store.
func (s *Store) Limits() idempotency.Limits {
	name := "SQLite idempotency store"
	if s.d.name == postgres.name {
		name = "PostgreSQL idempotency store"
	}
	return idempotency.Limits{Store: name, MaxRecordBytes: MaxRecordBytes}
}

// SQLite result codes (primary, the low byte of an extended code) that no
// retry cures.
var sqliteRules = map[int]string{
	3:  "the database file must be readable and writable (SQLITE_PERM)",
	11: "the database file must not be corrupt (SQLITE_CORRUPT)",
	18: "a value must fit SQLite's length limit (SQLITE_TOOBIG)",
	19: "the record must satisfy the table's constraints (SQLITE_CONSTRAINT)",
	20: "a value must match its column's type (SQLITE_MISMATCH)",
	23: "the connection must be authorized (SQLITE_AUTH)",
	26: "the file must be an SQLite database (SQLITE_NOTADB)",
}

// PostgreSQL SQLSTATE classes no retry cures: data exceptions (a value too
// long, invalid JSON), integrity constraints, syntax or access rule
// violations (a missing table, no privilege), program limits (a row too big).
var postgresRules = map[string]string{
	"22": "a value must be valid for its column (SQLSTATE class 22, data exception)",
	"23": "the record must satisfy the table's constraints (SQLSTATE class 23)",
	"42": "the table must exist and the role must be allowed to write it (SQLSTATE class 42)",
	"54": "the record must stay within PostgreSQL's limits (SQLSTATE class 54)",
}

// classify marks err permanent when the database refused for a reason no
// retry changes; other errors (busy, connection lost, I/O) stay transient.
func (s *Store) classify(err error) error {
	if err == nil {
		return nil
	}
	var rule string
	var pgErr *pgconn.PgError
	var liteErr *moderncsqlite.Error
	switch {
	case errors.As(err, &pgErr) && len(pgErr.Code) == 5:
		rule = postgresRules[pgErr.Code[:2]]
	case errors.As(err, &liteErr):
		rule = sqliteRules[liteErr.Code()&0xff]
		if liteErr.Code()&0xff == 1 && strings.Contains(liteErr.Error(), "no such table") {
			rule = "the table must exist (SQLITE_ERROR: no such table)"
		}
	}
	if rule == "" {
		return err
	}
	return &idempotency.PermanentError{Store: s.Limits().Store, Rule: rule, Err: err}
}
