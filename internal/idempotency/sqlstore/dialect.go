package sqlstore

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// dialect holds what differs between the SQL databases.
type dialect struct {
	name string
	// ddlTypes fills the column types of the schema.
	ddlTypes *strings.Replacer
	// placeholder renders the n-th (1-based) bind parameter.
	placeholder func(n int) string
	// timeArg renders an instant for a timestamp column.
	timeArg func(time.Time) any
	// skipLocked is appended to the cleanup's row selection.
	skipLocked string
	// beginReturnsExisting: Begin's single statement also returns the row it
	// could not overwrite (PostgreSQL CTE); otherwise a read follows
	// (SQLite, which has no DML in CTEs).
	beginReturnsExisting bool
	// lockMigrations serialises concurrent schema migrations.
	lockMigrations string
	// bytewise follows the target column where it is compared: ranges of
	// targets compare bytes, whatever the database's collation.
	bytewise string
	// unexpiredSince is List's expiry condition on its (bound) argument,
	// written so no index of expires_at can serve it: the planner would
	// otherwise pick the expiry index over the newest-first one and sort
	// every live record, nearly all of them.
	unexpiredSince func(arg string) string
	// beginWrite opens a batched write transaction; SQLite takes the write
	// lock at once, so a batch never fails to upgrade a read lock.
	beginWrite string
}

var postgres = dialect{
	name: "postgres",
	ddlTypes: strings.NewReplacer("{{ts}}", "TIMESTAMPTZ", "{{json}}", "JSON", "{{int64}}", "BIGINT", "{{text}}", "TEXT",
		"{{bytewise}}", ` COLLATE "C"`),
	placeholder:          func(n int) string { return fmt.Sprintf("$%d", n) },
	timeArg:              func(t time.Time) any { return t.UTC() },
	skipLocked:           " FOR UPDATE SKIP LOCKED",
	beginReturnsExisting: true,
	lockMigrations:       "SELECT pg_advisory_xact_lock(7465626573)",
	beginWrite:           "BEGIN",
	bytewise:             ` COLLATE "C"`,
	unexpiredSince:       func(arg string) string { return "expires_at + INTERVAL '0 seconds' > " + arg },
}

var sqlite = dialect{
	name: "sqlite",
	// Instants are epoch milliseconds: exact, ordered, and cheap to compare.
	// SQLite's default collation (BINARY) already compares bytes.
	ddlTypes:    strings.NewReplacer("{{ts}}", "INTEGER", "{{json}}", "TEXT", "{{int64}}", "INTEGER", "{{text}}", "TEXT", "{{bytewise}}", ""),
	placeholder: func(n int) string { return fmt.Sprintf("?%d", n) },
	timeArg:     func(t time.Time) any { return t.UnixMilli() },
	beginWrite:  "BEGIN IMMEDIATE",
	// SQLite's unary + keeps a column from using its index.
	unexpiredSince: func(arg string) string { return "+expires_at > " + arg },
}

var paramRE = regexp.MustCompile(`\$(\d+)`)

// bind rewrites $N parameters for the dialect.
func (d dialect) bind(query string) string {
	if d.name == "postgres" {
		return query
	}
	return paramRE.ReplaceAllStringFunc(query, func(p string) string {
		var n int
		fmt.Sscanf(p[1:], "%d", &n)
		return d.placeholder(n)
	})
}
