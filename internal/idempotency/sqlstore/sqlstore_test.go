package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

var postgresDSN string

func TestMain(m *testing.M) {
	dsn, stop, err := testenv.Postgres()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FATAL: the PostgreSQL store tests need a server: %v\n", err)
		os.Exit(1)
	}
	postgresDSN = dsn
	code := m.Run()
	stop()
	os.Exit(code)
}

func openSQLite(t testing.TB) idempotency.Store {
	s, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "idempotency.db"))
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	return s
}

// openPostgres returns a store on an emptied table; tests run one at a time.
func openPostgres(t testing.TB) idempotency.Store {
	s, err := sqlstore.OpenPostgres(context.Background(), postgresDSN)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	if err := s.Truncate(context.Background()); err != nil {
		t.Fatalf("empty table: %v", err)
	}
	return s
}

func TestConformanceSQLite(t *testing.T) { storetest.Run(t, openSQLite) }

func TestConformancePostgres(t *testing.T) { storetest.Run(t, openPostgres) }

// TestMigrationIsIdempotentAndConcurrent opens many stores on one database at
// once: every migration must be applied exactly once, none may fail.
func TestMigrationIsIdempotentAndConcurrent(t *testing.T) {
	ctx := context.Background()
	for name, open := range map[string]func() (*sqlstore.Store, error){
		"postgres": func() (*sqlstore.Store, error) { return sqlstore.OpenPostgres(ctx, postgresDSN) },
		"sqlite": func() func() (*sqlstore.Store, error) {
			path := filepath.Join(t.TempDir(), "shared.db")
			return func() (*sqlstore.Store, error) { return sqlstore.OpenSQLite(ctx, path) }
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			var wg sync.WaitGroup
			stores := make([]*sqlstore.Store, 8)
			for i := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := open()
					if err != nil {
						t.Errorf("open: %v", err)
						return
					}
					stores[i] = s
				}()
			}
			wg.Wait()
			for _, s := range stores {
				if s == nil {
					continue
				}
				v, err := s.AppliedVersions(ctx)
				if err != nil {
					t.Fatalf("versions: %v", err)
				}
				if len(v) != sqlstore.SchemaVersion {
					t.Errorf("applied versions %v, want each of 1..%d once", v, sqlstore.SchemaVersion)
				}
				s.Close()
			}
		})
	}
}

func BenchmarkSQLite(b *testing.B) { storetest.Benchmark(b, openSQLite) }

func BenchmarkPostgres(b *testing.B) { storetest.Benchmark(b, openPostgres) }

// BenchmarkPostgresBatched runs BenchmarkPostgres's cases on a store whose
// writes go through SQLite's group-commit writer: the figures behind
// OpenPostgres keeping one statement per write on its pool.
func BenchmarkPostgresBatched(b *testing.B) {
	storetest.Benchmark(b, func(t testing.TB) idempotency.Store {
		s, err := sqlstore.OpenPostgresBatched(context.Background(), postgresDSN)
		if err != nil {
			t.Fatalf("open postgres: %v", err)
		}
		if err := s.Truncate(context.Background()); err != nil {
			t.Fatalf("empty table: %v", err)
		}
		return s
	})
}

// The SQLite file and its WAL hold keys and results: owner-only, whatever
// the umask.
func TestSQLiteFilesAreOwnerOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.db")
	s, err := sqlstore.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.Begin(context.Background(), idempotency.Claim{PK: "DEPTH#k", OperationType: "DEPTH", IdempotencyKey: "k",
		RequestHash: "h", LeaseToken: "t", Now: time.Now(), ExpiresAt: time.Now().Add(time.Hour), LeaseExpiresAt: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{path, path + "-wal"} {
		info, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if mode := info.Mode().Perm(); mode&0o077 != 0 {
			t.Errorf("%s has mode %v, want owner-only", filepath.Base(name), mode)
		}
	}
}

// TestListUsesTheIndexOfItsFilter: GET /idempotency lists one tenant's
// records, by status or not, and store list every tenant's, by status or
// target: each plan walks the index of its filter in newest-first order
// rather than every record, and on SQLite sorts nothing where the index
// gives the order.
func TestListUsesTheIndexOfItsFilter(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	for name, open := range map[string]func(testing.TB) idempotency.Store{"sqlite": openSQLite, "postgres": openPostgres} {
		t.Run(name, func(t *testing.T) {
			s := open(t).(*sqlstore.Store)
			defer s.Close()
			loadForPlans(t, s, now)
			for _, tc := range []struct {
				q       idempotency.ListQuery
				index   string
				ordered bool // the index gives the order: no sort
			}{
				{idempotency.ListQuery{Tenant: "team-a", LiveAt: now}, "idx_idempotency_tenant_listed", true},
				{idempotency.ListQuery{Tenant: "team-a", Status: idempotency.StatusInProgress, LiveAt: now}, "idx_idempotency_tenant_status_listed", true},
				{idempotency.ListQuery{AllTenants: true, LiveAt: now}, "idx_idempotency_listed", true},
				{idempotency.ListQuery{AllTenants: true, Status: idempotency.StatusInProgress, UpdatedBefore: now, LiveAt: now},
					"idx_idempotency_status_listed", true},
				{idempotency.ListQuery{AllTenants: true, QueueManager: "QM1", Queue: "DEV.QUEUE.1", LiveAt: now}, "idx_idempotency_target_listed", true},
				{idempotency.ListQuery{AllTenants: true, QueueManager: "QM1", LiveAt: now}, "idx_idempotency_target_listed", false},
				{idempotency.ListQuery{AllTenants: true, Since: now.Add(-time.Hour), Until: now, LiveAt: now,
					After: idempotency.ListPosition{At: now, PK: "DEPTH#k"}.String()}, "idx_idempotency_listed", true},
			} {
				tc.q.Limit = idempotency.DefaultListLimit // a page as the API and store list ask
				plan, err := s.ListPlan(ctx, tc.q)
				if err != nil {
					t.Fatalf("plan of %+v: %v", tc.q, err)
				}
				used := strings.Contains(plan, tc.index)
				if name == "postgres" && strings.HasPrefix(tc.index, "idx_idempotency_tenant_") {
					// PostgreSQL's planner picks between the tenant's two
					// indexes by the table's statistics: either keeps the
					// listing to the tenant's rows.
					used = strings.Contains(plan, "idx_idempotency_tenant_")
				}
				if !used {
					t.Errorf("plan of %+v does not use %s:\n%s", tc.q, tc.index, plan)
				}
				if name == "sqlite" && tc.ordered && strings.Contains(plan, "TEMP B-TREE") {
					t.Errorf("plan of %+v sorts what %s orders:\n%s", tc.q, tc.index, plan)
				}
			}
		})
	}
}

// loadForPlans fills s with records shaped like a deployment's (4 tenants,
// 100 queue managers of 4 queues each, one record in ten in progress,
// spread over a day) and has the database analyse them, so the planner
// chooses by these statistics rather than by whatever rows and statistics
// earlier tests left behind.
func loadForPlans(t *testing.T, s *sqlstore.Store, now time.Time) {
	t.Helper()
	ctx := context.Background()
	const records = 4000
	var wg sync.WaitGroup
	errs := make(chan error, records)
	sem := make(chan struct{}, 16)
	for i := range records {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			at := now.Add(-time.Duration(i) * 20 * time.Second)
			key := fmt.Sprintf("k%05d", i)
			_, _, err := s.Begin(ctx, idempotency.Claim{PK: "DEPTH#" + key, OperationType: "DEPTH", IdempotencyKey: key,
				Tenant: fmt.Sprintf("team-%c", 'a'+i%4), RequestHash: "h", LeaseToken: "t", Now: at,
				ExpiresAt: now.Add(24 * time.Hour), LeaseExpiresAt: at.Add(time.Minute),
				Target: fmt.Sprintf("QM%d:DEV.QUEUE.%d", 1+i%100, 1+i/100%4)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("load: %v", err)
		}
	}
	for _, sql := range []string{
		`UPDATE idempotency_record SET status = 'COMPLETED' WHERE idempotency_key NOT LIKE '%0'`,
		`ANALYZE idempotency_record`,
	} {
		if err := s.WriteSQL(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// TestPostgresReadOnlyClaimsCommitWithoutFlush: a read-only command's claim
// commits on sessions with synchronous_commit off, is seen at once by the
// store's other sessions and completes as any claim does; other claims keep
// the server's setting.
func TestPostgresReadOnlyClaimsCommitWithoutFlush(t *testing.T) {
	ctx := context.Background()
	s := openPostgres(t).(*sqlstore.Store)
	defer s.Close()
	if got, err := s.ReadOnlyClaimCommit(ctx); err != nil || got != "off" {
		t.Fatalf("read-only claims commit with synchronous_commit %q (%v), want off", got, err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, readOnly := range []bool{true, false} {
		key := fmt.Sprint("read-only-", readOnly)
		c := idempotency.Claim{PK: "DEPTH#" + key, OperationType: "DEPTH", IdempotencyKey: key, RequestHash: "h",
			LeaseToken: "token", Now: now, ExpiresAt: now.Add(time.Hour), LeaseExpiresAt: now.Add(time.Minute), ReadOnly: readOnly}
		if _, acquired, err := s.Begin(ctx, c); err != nil || !acquired {
			t.Fatalf("claim (read-only %v): acquired=%v, %v", readOnly, acquired, err)
		}
		if _, acquired, err := s.Begin(ctx, c); err != nil || acquired {
			t.Errorf("the same claim again (read-only %v): acquired=%v, %v; want refused", readOnly, acquired, err)
		}
		if rec, found, err := s.Get(ctx, c.PK); err != nil || !found || rec.Status != idempotency.StatusInProgress {
			t.Fatalf("read after the claim (read-only %v): %+v, found=%v, %v", readOnly, rec, found, err)
		}
		rec, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateComplete, Now: now,
			HTTPStatus: 200, ResponsePayload: "{}", ExpiresAt: c.ExpiresAt})
		if err != nil || rec.Status != idempotency.StatusCompleted {
			t.Errorf("complete (read-only %v): %+v, %v", readOnly, rec, err)
		}
	}
}
