package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migration is one schema version's DDL: the same text for every dialect,
// or a text per dialect (both set) where they differ. Its {{...}} names are
// the dialect's ddlTypes.
type migration struct {
	all              string
	sqlite, postgres string
}

// text is m's DDL for d.
func (m migration) text(d dialect) string {
	switch {
	case m.all != "":
		return d.ddlTypes.Replace(m.all)
	case d.name == "postgres":
		return d.ddlTypes.Replace(m.postgres)
	default:
		return d.ddlTypes.Replace(m.sqlite)
	}
}

// migrations are applied in order, each once, recorded in
// mqprobe_schema_version. Never edit one that has shipped: append.
var migrations = []migration{
	// 1: idempotency_record, keyed by pk, with every record attribute.
	{all: `CREATE TABLE IF NOT EXISTS idempotency_record (
		pk               VARCHAR(300) PRIMARY KEY,
		operation_type   VARCHAR(40)  NOT NULL,
		idempotency_key  VARCHAR(255) NOT NULL,
		status           VARCHAR(20)  NOT NULL,
		request_hash     VARCHAR(128) NOT NULL,
		response_payload {{json}},
		http_status      INTEGER      NOT NULL DEFAULT 0,
		created_at       {{ts}}       NOT NULL,
		updated_at       {{ts}}       NOT NULL,
		expires_at       {{ts}}       NOT NULL,
		ttl              {{int64}}    NOT NULL,
		lease_expires_at {{int64}}    NOT NULL,
		lease_token      VARCHAR(64)  NOT NULL,
		attempt          INTEGER      NOT NULL,
		target           {{text}}     NOT NULL DEFAULT '',
		trace_id         VARCHAR(64)  NOT NULL DEFAULT '',
		duration_ms      {{int64}}    NOT NULL DEFAULT 0,
		error_message    {{text}}     NOT NULL DEFAULT '',
		progress         {{text}}     NOT NULL DEFAULT ''
	);
	CREATE INDEX IF NOT EXISTS idx_idempotency_key ON idempotency_record (idempotency_key);
	CREATE INDEX IF NOT EXISTS idx_idempotency_expires ON idempotency_record (expires_at);`},
	// 2: the named tenant a record belongs to ('' for the implicit tenant).
	{all: `ALTER TABLE idempotency_record ADD COLUMN tenant VARCHAR(63) NOT NULL DEFAULT ''`},
	// 3: List by status walks this index in pk order (finding stuck
	// IN_PROGRESS records reads only those, not the whole table).
	{all: `CREATE INDEX IF NOT EXISTS idx_idempotency_status_pk ON idempotency_record (status, pk)`},
	// 4: the instance that claimed the record last ('' before this version).
	{all: `ALTER TABLE idempotency_record ADD COLUMN lease_holder VARCHAR(255) NOT NULL DEFAULT ''`},
	// 5: List of one tenant (what GET /idempotency asks) walks the tenant's
	// records in pk order, by status too when it filters by one, rather
	// than every tenant's.
	{all: `CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_pk ON idempotency_record (tenant, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_status_pk ON idempotency_record (tenant, status, pk)`},
	// 6: List returns the newest first, filtered by tenant, status or
	// target (issue 35): each filter's index walks its records in
	// (updated_at, pk) order, so a page reads only the records it returns.
	// The pk-ordered indexes of 3 and 5 serve nothing any more.
	{all: `DROP INDEX IF EXISTS idx_idempotency_status_pk;
	DROP INDEX IF EXISTS idx_idempotency_tenant_pk;
	DROP INDEX IF EXISTS idx_idempotency_tenant_status_pk;
	CREATE INDEX IF NOT EXISTS idx_idempotency_updated ON idempotency_record (updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_status_updated ON idempotency_record (status, updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_updated ON idempotency_record (tenant, updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_status_updated ON idempotency_record (tenant, status, updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_target_updated ON idempotency_record (target{{bytewise}}, updated_at, pk)`},
	// 7: List orders by listed_at, the instant of the claim or of the
	// completion (or failure), which heartbeats and PRODUCE checkpoints
	// leave alone: updated_at, which every write changes, made each of them
	// rewrite all five listing indexes' entries (on PostgreSQL it also kept
	// every update from being HOT). Records already stored are listed at
	// their updated_at. idx_idempotency_key served no query.
	//
	// The SQLite table stays a rowid table: rebuilt WITHOUT ROWID (one
	// b-tree keyed on pk) it wrote more pages, not fewer — 17.6 against 16.1
	// per DEPTH command alone, 6.3 against 3.4 at 16 to a transaction
	// (BenchmarkSQLitePages) — as a row of about 900 bytes then lands, at
	// its claim and again at its completion, in a random leaf of the pk
	// order rather than in the rowid order's last one, and every index
	// entry carries the pk rather than a rowid.
	{sqlite: `ALTER TABLE idempotency_record ADD COLUMN listed_at {{ts}} NOT NULL DEFAULT 0;
	UPDATE idempotency_record SET listed_at = updated_at;
	` + dropUpdatedIndexes + listedIndexes,
		postgres: `ALTER TABLE idempotency_record ADD COLUMN listed_at {{ts}};
	UPDATE idempotency_record SET listed_at = updated_at;
	ALTER TABLE idempotency_record ALTER COLUMN listed_at SET NOT NULL;
	` + dropUpdatedIndexes + listedIndexes},
}

// dropUpdatedIndexes drops the indexes migration 7 replaces.
const dropUpdatedIndexes = `DROP INDEX IF EXISTS idx_idempotency_key;
	DROP INDEX IF EXISTS idx_idempotency_updated;
	DROP INDEX IF EXISTS idx_idempotency_status_updated;
	DROP INDEX IF EXISTS idx_idempotency_tenant_updated;
	DROP INDEX IF EXISTS idx_idempotency_tenant_status_updated;
	DROP INDEX IF EXISTS idx_idempotency_target_updated;
	`

// listedIndexes are migration 7's listing indexes: each of List's filters
// (every record, a status, a tenant, a tenant's status, a target) walks
// its records newest first.
const listedIndexes = `CREATE INDEX idx_idempotency_listed ON idempotency_record (listed_at, pk);
	CREATE INDEX idx_idempotency_status_listed ON idempotency_record (status, listed_at, pk);
	CREATE INDEX idx_idempotency_tenant_listed ON idempotency_record (tenant, listed_at, pk);
	CREATE INDEX idx_idempotency_tenant_status_listed ON idempotency_record (tenant, status, listed_at, pk);
	CREATE INDEX idx_idempotency_target_listed ON idempotency_record (target{{bytewise}}, listed_at, pk)`

// SchemaVersion is the schema version this build migrates to.
var SchemaVersion = len(migrations)

// migrate brings the schema to SchemaVersion; safe to run concurrently and
// repeatedly.
func migrate(ctx context.Context, db *sql.DB, d dialect) error {
	return migrateTo(ctx, db, d, len(migrations))
}

// migrateTo brings the schema to version (tests make databases of earlier
// versions with it).
func migrateTo(ctx context.Context, db *sql.DB, d dialect, version int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if d.lockMigrations != "" {
		if _, err := tx.ExecContext(ctx, d.lockMigrations); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS mqprobe_schema_version (
		version INTEGER PRIMARY KEY, applied_at VARCHAR(40) NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: version table: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM mqprobe_schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: read version: %w", err)
	}
	if current > len(migrations) {
		return fmt.Errorf("migrate: database schema version %d is newer than this build's %d", current, len(migrations))
	}
	for v := current + 1; v <= version; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v-1].text(d)); err != nil {
			return fmt.Errorf("migrate: apply version %d: %w", v, err)
		}
		if _, err := tx.ExecContext(ctx, d.bind(`INSERT INTO mqprobe_schema_version (version, applied_at) VALUES ($1, $2)`),
			v, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return fmt.Errorf("migrate: record version %d: %w", v, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}
