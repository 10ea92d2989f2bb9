package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
)

// previousVersion is the schema version of the release before migration 7.
const previousVersion = 6

// TestMigrationKeepsRecordsAndTheirOrder: a database of the previous
// release's schema version, holding records that release wrote, migrates
// when this build opens it; it then lists the same records in the same
// order (newest first by when they were last written, as that release
// listed them) and every field of every record survives.
func TestMigrationKeepsRecordsAndTheirOrder(t *testing.T) {
	ctx := context.Background()
	// seedAndOpen writes recs as the previous version did into the
	// database the driver opens at dsn, then opens it as this version's
	// store does.
	seedAndOpen := func(t *testing.T, recs []idempotency.Record, driver, dsn, dialect string,
		open func(context.Context, string) (*sqlstore.Store, error)) *sqlstore.Store {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := sqlstore.SeedAtVersion(ctx, db, dialect, previousVersion, recs); err != nil {
			t.Fatal(err)
		}
		s, err := open(ctx, dsn)
		if err != nil {
			t.Fatalf("open the previous version's database: %v", err)
		}
		return s
	}
	for name, seed := range map[string]func(t *testing.T, recs []idempotency.Record) *sqlstore.Store{
		"sqlite": func(t *testing.T, recs []idempotency.Record) *sqlstore.Store {
			path := filepath.Join(t.TempDir(), "records.db")
			return seedAndOpen(t, recs, "sqlite", "file:"+path, "sqlite", func(ctx context.Context, _ string) (*sqlstore.Store, error) {
				return sqlstore.OpenSQLite(ctx, path)
			})
		},
		"postgres": func(t *testing.T, recs []idempotency.Record) *sqlstore.Store {
			return seedAndOpen(t, recs, "pgx", schemaOfItsOwn(t), "postgres", sqlstore.OpenPostgres)
		},
	} {
		t.Run(name, func(t *testing.T) {
			recs := previousRecords()
			s := seed(t, recs)
			defer s.Close()
			if v, err := s.AppliedVersions(ctx); err != nil || len(v) != sqlstore.SchemaVersion {
				t.Fatalf("applied versions %v, %v; want 1..%d", v, err, sqlstore.SchemaVersion)
			}
			want := slices.Clone(recs)
			slices.SortFunc(want, idempotency.Newer) // the previous release's order
			var got []idempotency.Record
			q := idempotency.ListQuery{AllTenants: true, Limit: 7}
			for {
				page, err := s.List(ctx, q)
				if err != nil {
					t.Fatalf("List: %v", err)
				}
				got = append(got, page.Records...)
				if page.Next == "" {
					break
				}
				q.After = page.Next
			}
			if len(got) != len(want) {
				t.Fatalf("listed %d records, want %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("listed #%d:\n %+v\nwant\n %+v", i, got[i], want[i])
				}
			}
			// The tenant's listing walks its new index in the same order.
			page, err := s.List(ctx, idempotency.ListQuery{Tenant: "team-a", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var tenant []string
			for _, r := range want {
				if r.Tenant == "team-a" {
					tenant = append(tenant, r.PK)
				}
			}
			if g := pks(page.Records); !slices.Equal(g, tenant) {
				t.Errorf("team-a listed %v, want %v", g, tenant)
			}
		})
	}
}

// previousRecords are records as the previous release left them: finished
// and running ones, of two tenants, some heartbeated since their claim
// (updated after created), with payloads, errors and checkpoints.
func previousRecords() []idempotency.Record {
	base := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	var recs []idempotency.Record
	for i := range 30 {
		created := base.Add(time.Duration(i) * time.Minute)
		key := fmt.Sprintf("key-%02d", i)
		tenant := ""
		if i%3 == 0 {
			tenant = "team-a"
		}
		r := idempotency.Record{PK: idempotency.PK("PRODUCE", tenant, key), OperationType: "PRODUCE", Tenant: tenant,
			IdempotencyKey: key, RequestHash: strings.Repeat("h", 64), CreatedAt: created,
			// Out of creation order: a heartbeat or a completion came later.
			UpdatedAt: created.Add(time.Duration((i*7)%30) * time.Minute), ExpiresAt: created.Add(24 * time.Hour),
			LeaseExpiresAt: created.Add(time.Minute), LeaseToken: "token-" + key, Attempt: 1 + i%2,
			Target: fmt.Sprintf("QM1:DEV.QUEUE.%d", i%4), TraceID: strings.Repeat("a", 32), LeaseHolder: "host/1"}
		switch i % 3 {
		case 0:
			r.Status, r.ResponsePayload, r.HTTPStatus, r.DurationMs = idempotency.StatusCompleted, `{"put":100}`, 201, int64(i)
		case 1:
			r.Status, r.ErrorMessage, r.HTTPStatus, r.DurationMs = idempotency.StatusFailed, "MQRC 2085", 502, int64(i)
		default:
			r.Status, r.Progress = idempotency.StatusInProgress, `{"committed":200}`
		}
		recs = append(recs, r)
	}
	return recs
}

// schemaOfItsOwn is the test server's DSN with a new, empty schema first on
// the search path, dropped when the test ends.
func schemaOfItsOwn(t *testing.T) string {
	t.Helper()
	schema := "migrate_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	admin, err := sql.Open("pgx", postgresDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(postgresDSN, "?") {
		sep = "&"
	}
	return postgresDSN + sep + "search_path=" + schema
}

func pks(recs []idempotency.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.PK
	}
	return out
}
