package sqlstore_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// pagesTableSize is how many completed records the table holds before a
// pages benchmark measures: enough for every b-tree to have interior pages.
const pagesTableSize = 5000

// depthPayload stands for a DEPTH command's stored response (about 600
// bytes, as the daemon's DEPTH answers are).
var depthPayload = `{"operationType":"DEPTH","status":"COMPLETED","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},` +
	`"result":{"queueType":"LOCAL","currentDepth":0,"maxDepth":5000,"openInputCount":0,"openOutputCount":0,` +
	`"depthShare":0,"uncommittedMessages":0,"oldestMessageAgeSeconds":0,"lastPutAt":"2026-11-27T10:00:00.000Z",` +
	`"lastGetAt":"2026-11-27T10:00:00.000Z","queueTime":{"shortMs":0,"longMs":0},"verdict":"OK"},` +
	`"traceId":"` + strings.Repeat("0", 32) + `","durationMs":1,"idempotencyKey":"` + strings.Repeat("k", 36) + `",` +
	`"startedAt":"2026-11-27T10:00:00.000Z","completedAt":"2026-11-27T10:00:00.001Z","attempt":1,` +
	`"instance":"` + strings.Repeat("i", 60) + `"}`

// BenchmarkSQLitePages counts the pages (WAL frames) the SQLite store
// writes per command, with SQLite's own checkpoints off: the frames in the
// WAL after the commands, which a checkpoint just before emptied. The counts depend on the schema and
// on how many commands share a transaction, not on the machine's load:
//   - depth/c1: a DEPTH-shaped command, claim and completion, each write a
//     transaction of its own (nothing to group with);
//   - depth/c16: 16 such commands whose claims share one transaction and
//     whose completions share the next, as group commit makes them at 16 in
//     flight;
//   - checkpoint/c1: a heartbeat storing a PRODUCE checkpoint (progress);
//   - heartbeat/c1: a heartbeat renewing the lease only.
//
// Each reports "pages/cmd" (per write for the heartbeats).
func BenchmarkSQLitePages(b *testing.B) {
	ctx := context.Background()
	for _, conc := range []int{1, 16} {
		b.Run(fmt.Sprintf("depth/c%d", conc), func(b *testing.B) {
			s, path := pagesStore(b)
			n := 0
			measurePages(b, path, func() {
				for i := range b.N {
					depthCommands(b, s, pagesKey("depth", i), conc)
					n += conc
				}
			}, &n)
		})
	}
	for _, progress := range []bool{true, false} {
		name := "heartbeat/c1"
		if progress {
			name = "checkpoint/c1"
		}
		b.Run(name, func(b *testing.B) {
			s, path := pagesStore(b)
			held := make([]idempotency.Claim, 16)
			for i := range held {
				held[i] = pagesClaim(pagesKey("held", 0)(i))
				if _, ok, err := s.Begin(ctx, held[i]); err != nil || !ok {
					b.Fatalf("claim %s = %v, %v", held[i].PK, ok, err)
				}
			}
			n, start := 0, time.Now()
			measurePages(b, path, func() {
				for i := range b.N {
					c := held[i%len(held)]
					// A second apart: a write that changes nothing writes no page.
					now := start.Add(time.Duration(i+1) * time.Second)
					u := idempotency.Update{Kind: idempotency.UpdateHeartbeat, Now: now, LeaseExpiresAt: now.Add(time.Minute)}
					if progress {
						p := `{"committed":` + strings.Repeat("9", 6) + `,"sequence":` + strings.Repeat("9", 6) + `}`
						u.Progress = &p
					}
					if _, err := s.Update(ctx, c.PK, c.LeaseToken, u); err != nil {
						b.Fatal(err)
					}
					n++
				}
			}, &n)
		})
	}
}

// pagesStore opens a SQLite store with checkpoints off (synchronous NORMAL:
// the sync mode changes no page written) on a copy of pagesTemplate's
// database, and returns it with its path.
func pagesStore(b *testing.B) (*sqlstore.Store, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "pages.db")
	if err := os.WriteFile(path, pagesTemplate(b), 0o600); err != nil {
		b.Fatal(err)
	}
	s, err := sqlstore.OpenSQLite(context.Background(), path, sqlstore.WithSynchronous(sqlstore.SynchronousNormal))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.WriteSQL(context.Background(), "PRAGMA wal_autocheckpoint = 0"); err != nil {
		b.Fatal(err)
	}
	return s, path
}

// pagesTemplate is a database file holding pagesTableSize completed DEPTH
// records, made once per process: every run starts from a copy.
func pagesTemplate(b *testing.B) []byte {
	b.Helper()
	c := &pagesTemplateCache
	c.Lock()
	defer c.Unlock()
	if c.data != nil {
		return c.data
	}
	path := filepath.Join(b.TempDir(), "template.db")
	s, err := sqlstore.OpenSQLite(context.Background(), path, sqlstore.WithSynchronous(sqlstore.SynchronousNormal))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < pagesTableSize; i += 50 {
		depthCommands(b, s, pagesKey("fill", i), 50)
	}
	// The last connection closing checkpoints the WAL into the file.
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		b.Fatal("the template's WAL outlived its store")
	}
	if c.data, err = os.ReadFile(path); err != nil {
		b.Fatal(err)
	}
	return c.data
}

var pagesTemplateCache struct {
	sync.Mutex
	data []byte
}

// depthCommands runs n DEPTH-shaped commands whose claims share one
// transaction and whose completions share the next; key(i) names the i-th.
func depthCommands(b *testing.B, s *sqlstore.Store, key func(int) string, n int) {
	b.Helper()
	ctx := context.Background()
	claims := make([]idempotency.Claim, n)
	for i := range claims {
		claims[i] = pagesClaim(key(i))
	}
	batch(b, s, n, func(i int) error {
		_, ok, err := s.Begin(ctx, claims[i])
		if err == nil && !ok {
			b.Errorf("claim %s refused", claims[i].PK)
		}
		return err
	})
	batch(b, s, n, func(i int) error {
		now := time.Now()
		// As the engine completes: the record's TTL counts from now.
		_, err := s.Update(ctx, claims[i].PK, claims[i].LeaseToken, idempotency.Update{Kind: idempotency.UpdateComplete,
			Now: now, ExpiresAt: now.Add(24 * time.Hour), ResponsePayload: depthPayload, HTTPStatus: 200, DurationMs: 1})
		return err
	})
}

// batch runs write(0..n-1) as one transaction of the writer: held until all
// n wait for it (n = 1 runs it alone).
func batch(b *testing.B, s *sqlstore.Store, n int, write func(i int) error) {
	b.Helper()
	if n == 1 {
		if err := write(0); err != nil {
			b.Fatal(err)
		}
		return
	}
	release, err := s.HoldWriter(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- write(i) })
	}
	if !testenv.Until(10*time.Second, func() bool { return s.WaitingWrites() >= int64(n) }) {
		b.Fatalf("%d writes waiting after 10s, want %d", s.WaitingWrites(), n)
	}
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// pagesKey names the i-th command of a run: a hex string like a UUID's
// (keys land all over the pk index), the same on every run.
func pagesKey(run string, base int) func(int) string {
	return func(i int) string {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d/%d", run, base, i))
		return hex.EncodeToString(sum[:16])
	}
}

func pagesClaim(key string) idempotency.Claim {
	now := time.Now()
	return idempotency.Claim{PK: idempotency.PK("DEPTH", "", key), OperationType: "DEPTH", IdempotencyKey: key,
		RequestHash: strings.Repeat("h", 64), LeaseToken: "token-" + key, LeaseHolder: "host-1/4242",
		Now: now, ExpiresAt: now.Add(24 * time.Hour), LeaseExpiresAt: now.Add(time.Minute),
		Target: "QM1:DEV.QUEUE.1", TraceID: strings.Repeat("0", 32)}
}

// measurePages runs fn and reports the WAL frames it appended per *n
// commands: a checkpoint of everything before (so the next write starts
// the WAL afresh) and SQLite's count of the frames in the WAL after, both
// on a connection of their own.
func measurePages(b *testing.B, path string, fn func(), n *int) {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	walFrames(b, db)
	b.ResetTimer()
	fn()
	b.StopTimer()
	b.ReportMetric(float64(walFrames(b, db))/float64(*n), "pages/cmd")
}

// walFrames checkpoints the WAL into the database and returns how many
// frames it held.
func walFrames(b *testing.B, db *sql.DB) int {
	b.Helper()
	var busy, log, done int
	if err := db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &done); err != nil {
		b.Fatal(err)
	}
	if busy != 0 || done != log {
		b.Fatalf("checkpoint of %d frames did %d (busy %d)", log, done, busy)
	}
	return log
}
