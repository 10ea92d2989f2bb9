package sqlstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// SQLiteConfig is the idempotency.sqlite section: where the SQLite store
// keeps its records and how durably it commits them.
type SQLiteConfig struct {
	Path        string `yaml:"path" desc:"SQLite database file (created with its directory if missing)"`
	Synchronous string `yaml:"synchronous" desc:"FULL: a claim survives a power loss or OS crash (a read-only command's — DEPTH, CONNECTION_TEST, a browse, a dry run — once its completion is synced: losing it only lets the command run again); NORMAL: faster, survives a process crash, but after a power loss or OS crash the last claims may be lost and their commands run again"`
}

// DefaultSQLiteConfig is the section's built-in value.
func DefaultSQLiteConfig() SQLiteConfig {
	return SQLiteConfig{Path: "./data/mqprobe.db", Synchronous: SynchronousFull}
}

// Validate checks the section, each broken rule a *configcheck.FieldError
// naming its idempotency.sqlite key.
func (c SQLiteConfig) Validate() error {
	var v configcheck.Errors
	if c.Path == "" {
		v.Fail("idempotency.sqlite.path", "required when idempotency.store is sqlite")
	}
	configcheck.OneOf(&v, "idempotency.sqlite.synchronous", c.Synchronous, SynchronousFull, SynchronousNormal)
	return v.Err()
}

// Open creates the file's directory (owner-only) if missing and opens the
// store in it; errors name the key they come from.
func (c SQLiteConfig) Open(ctx context.Context, opts ...SQLiteOption) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return nil, fmt.Errorf("idempotency.sqlite.path: %w", err)
	}
	s, err := OpenSQLite(ctx, c.Path, append([]SQLiteOption{WithSynchronous(c.Synchronous)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("idempotency.sqlite.path %s: %w", c.Path, err)
	}
	return s, nil
}

// PostgresConfig is the idempotency.postgres section.
type PostgresConfig struct {
	DSN string `yaml:"dsn" secret:"dsn" desc:"PostgreSQL connection string (URL or key=value); required when idempotency.store is postgres"`
}

// Validate checks the section, naming the idempotency.postgres key.
func (c PostgresConfig) Validate() error {
	if c.DSN == "" {
		return &configcheck.FieldError{Key: "idempotency.postgres.dsn", Rule: "required when idempotency.store is postgres"}
	}
	return nil
}

// Open opens the store on the DSN's database; errors name the key.
func (c PostgresConfig) Open(ctx context.Context) (*Store, error) {
	s, err := OpenPostgres(ctx, c.DSN)
	if err != nil {
		return nil, fmt.Errorf("idempotency.postgres.dsn: %w", err)
	}
	return s, nil
}
