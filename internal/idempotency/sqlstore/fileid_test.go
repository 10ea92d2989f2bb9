package sqlstore_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

func claimOf(key string) idempotency.Claim {
	now := time.Now()
	return idempotency.Claim{PK: "DEPTH#" + key, OperationType: "DEPTH", IdempotencyKey: key, RequestHash: "h",
		LeaseToken: "t-" + key, Now: now, ExpiresAt: now.Add(time.Hour), LeaseExpiresAt: now.Add(time.Minute)}
}

// TestSQLiteRefusesOnceItsFileIsGone loses the database file under an open
// store in each way an operator or a mount can, and expects every
// operation refused with a FileError naming the path and what happened,
// and one ERROR line however many operations were refused.
func TestSQLiteRefusesOnceItsFileIsGone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lose    func(t *testing.T, dir, path string)
		file    string // the path the error names, relative to dir
		problem string
	}{
		{"directory removed", func(t *testing.T, dir, _ string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}, "data/records.db", "was deleted"},
		{"file replaced", func(t *testing.T, _, path string) {
			// What restoring a backup over the live file does.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+".restore", data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".restore", path); err != nil {
				t.Fatal(err)
			}
		}, "data/records.db", "names another file"},
		{"WAL deleted", func(t *testing.T, _, path string) {
			if err := os.Remove(path + "-wal"); err != nil {
				t.Fatal(err)
			}
		}, "data/records.db-wal", "was deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "records.db")
			var logs testenv.Buffer
			s, err := sqlstore.OpenSQLite(ctx, path, sqlstore.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.CheckFileEvery(10 * time.Millisecond)
			if _, acquired, err := s.Begin(ctx, claimOf("before")); err != nil || !acquired {
				t.Fatalf("begin before the loss: acquired %v, %v", acquired, err)
			}

			tc.lose(t, dir, path)
			// Each check stands for its interval: the loss shows within it.
			var refused error
			testenv.Until(10*time.Second, func() bool {
				_, _, refused = s.Begin(ctx, claimOf("after"))
				return refused != nil
			})
			var fe *sqlstore.FileError
			if !errors.As(refused, &fe) {
				t.Fatalf("begin after the loss: %v, want a FileError", refused)
			}
			if want := filepath.Join(dir, filepath.Base(tc.file)); fe.Path != want || !strings.Contains(fe.Problem, tc.problem) {
				t.Errorf("FileError names %s %q, want %s %q", fe.Path, fe.Problem, want, tc.problem)
			}
			t.Logf("refused: %v", refused)
			for i := 0; i < 20; i++ {
				_, _, err := s.Get(ctx, "DEPTH#before")
				_, updErr := s.Update(ctx, "DEPTH#before", "t-before", idempotency.Update{Kind: idempotency.UpdateComplete, Now: time.Now(), HTTPStatus: 200})
				_, listErr := s.List(ctx, idempotency.ListQuery{AllTenants: true, Limit: 10})
				_, delErr := s.Delete(ctx, idempotency.Deletion{PK: "DEPTH#before", Force: true})
				_, cleanErr := s.DeleteExpired(ctx, time.Now())
				for op, err := range map[string]error{"get": err, "update": updErr, "list": listErr, "delete": delErr, "cleanup": cleanErr} {
					if !errors.As(err, &fe) {
						t.Fatalf("%s after the loss: %v, want a FileError", op, err)
					}
				}
				time.Sleep(time.Millisecond)
			}
			if n := strings.Count(logs.String(), "level=ERROR"); n != 1 || !strings.Contains(logs.String(), fe.Path) {
				t.Errorf("%d ERROR lines, want one naming %s:\n%s", n, fe.Path, logs.String())
			}
		})
	}
}

// BenchmarkFileCheck is what the file check adds to each operation: with
// its finding standing (as between checks, the interval being a second),
// and with a check (a stat of the database and one of its WAL) on every
// call.
func BenchmarkFileCheck(b *testing.B) {
	for _, tc := range []struct {
		name  string
		every time.Duration
	}{{"standing", time.Hour}, {"stat-each-call", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "records.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			s.CheckFileEvery(tc.every)
			for b.Loop() {
				if err := s.CheckFile(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
