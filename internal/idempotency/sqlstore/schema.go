package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrations are applied in order, each once, recorded in
// mqprobe_schema_version. Never edit one that has shipped: append.
var migrations = []string{
	// 1: idempotency_record, keyed by pk, with every record attribute.
	`CREATE TABLE IF NOT EXISTS idempotency_record (
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
	CREATE INDEX IF NOT EXISTS idx_idempotency_expires ON idempotency_record (expires_at);`,
	// 2: the named tenant a record belongs to ('' for the implicit tenant).
	`ALTER TABLE idempotency_record ADD COLUMN tenant VARCHAR(63) NOT NULL DEFAULT ''`,
	// 3: List by status walks this index in pk order (finding stuck
	// IN_PROGRESS records reads only those, not the whole table).
	`CREATE INDEX IF NOT EXISTS idx_idempotency_status_pk ON idempotency_record (status, pk)`,
	// 4: the instance that claimed the record last ('' before this version).
	`ALTER TABLE idempotency_record ADD COLUMN lease_holder VARCHAR(255) NOT NULL DEFAULT ''`,
	// 5: List of one tenant (what GET /idempotency asks) walks the tenant's
	// records in pk order, by status too when it filters by one, rather
	// than every tenant's.
	`CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_pk ON idempotency_record (tenant, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_status_pk ON idempotency_record (tenant, status, pk)`,
	// 6: List returns the newest first, filtered by tenant, status or
	// target (issue 35): each filter's index walks its records in
	// (updated_at, pk) order, so a page reads only the records it returns.
	// The pk-ordered indexes of 3 and 5 serve nothing any more.
	`DROP INDEX IF EXISTS idx_idempotency_status_pk;
	DROP INDEX IF EXISTS idx_idempotency_tenant_pk;
	DROP INDEX IF EXISTS idx_idempotency_tenant_status_pk;
	CREATE INDEX IF NOT EXISTS idx_idempotency_updated ON idempotency_record (updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_status_updated ON idempotency_record (status, updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_updated ON idempotency_record (tenant, updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_tenant_status_updated ON idempotency_record (tenant, status, updated_at, pk);
	CREATE INDEX IF NOT EXISTS idx_idempotency_target_updated ON idempotency_record (target{{bytewise}}, updated_at, pk)`,
}

// SchemaVersion is the schema version this build migrates to.
var SchemaVersion = len(migrations)

// migrate brings the schema to SchemaVersion; safe to run concurrently and
// repeatedly.
func migrate(ctx context.Context, db *sql.DB, d dialect) error {
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
	for v := current + 1; v <= len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, d.ddlTypes.Replace(migrations[v-1])); err != nil {
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
