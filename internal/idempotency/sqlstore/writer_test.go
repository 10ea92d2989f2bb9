package sqlstore_test

import (
	"context"
	"errors"
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

func openSQLiteStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	s, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "records.db"))
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func claim(key string) idempotency.Claim {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return idempotency.Claim{PK: "DEPTH#" + key, OperationType: "DEPTH", IdempotencyKey: key, RequestHash: "h",
		LeaseToken: "token-" + key, Now: now, ExpiresAt: now.Add(time.Hour), LeaseExpiresAt: now.Add(time.Minute)}
}

// hold holds the writer and returns its release; the test fails if the
// writer cannot be held.
func hold(t *testing.T, s *sqlstore.Store) func() {
	t.Helper()
	release, err := s.HoldWriter(context.Background())
	if err != nil {
		t.Fatalf("hold writer: %v", err)
	}
	return release
}

// waitQueued waits until n writes wait for the writer.
func waitQueued(t *testing.T, s *sqlstore.Store, n int64) {
	t.Helper()
	if !testenv.Until(10*time.Second, func() bool { return s.WaitingWrites() >= n }) {
		t.Fatalf("%d writes waiting after 10s, want %d", s.WaitingWrites(), n)
	}
}

// TestConcurrentClaimsShareATransaction: claims arriving while the writer
// is busy are committed together, each with its own answer.
func TestConcurrentClaimsShareATransaction(t *testing.T) {
	s := openSQLiteStore(t)
	ctx := context.Background()
	const claims = 20
	release := hold(t, s)
	before := s.WriteTransactions()
	var wg sync.WaitGroup
	errs := make([]error, claims)
	for i := range claims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, acquired, err := s.Begin(ctx, claim(fmt.Sprint(i)))
			if err == nil && (!acquired || rec.IdempotencyKey != fmt.Sprint(i) || rec.Attempt != 1) {
				err = fmt.Errorf("Begin = %+v, %v; want its own record acquired", rec, acquired)
			}
			errs[i] = err
		}()
	}
	waitQueued(t, s, claims)
	release()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("claim %d: %v", i, err)
		}
	}
	// The claims join the held write's transaction, or (if its sync was
	// still running) the one after it.
	if got := s.WriteTransactions() - before; got > 2 {
		t.Errorf("%d claims took %d transactions, want them batched into at most 2", claims, got)
	}
	for i := range claims {
		if _, ok, err := s.Get(ctx, claim(fmt.Sprint(i)).PK); err != nil || !ok {
			t.Errorf("claim %d not stored after its Begin returned: %v, %v", i, ok, err)
		}
	}
}

// TestFailingWriteFailsAlone: a write that fails in a batch gets its error;
// the others in that batch still commit and succeed.
func TestFailingWriteFailsAlone(t *testing.T) {
	s := openSQLiteStore(t)
	ctx := context.Background()
	release := hold(t, s)
	var wg sync.WaitGroup
	begins := make([]error, 4)
	for i := range begins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, begins[i] = s.Begin(ctx, claim(fmt.Sprint(i)))
		}()
	}
	var bad error
	wg.Add(1)
	go func() {
		defer wg.Done()
		bad = s.WriteSQL(ctx, `INSERT INTO no_such_table VALUES (1)`)
	}()
	waitQueued(t, s, int64(len(begins))+1)
	release()
	wg.Wait()
	if bad == nil {
		t.Error("the failing write succeeded")
	}
	for i, err := range begins {
		if err != nil {
			t.Errorf("claim %d batched with a failing write: %v", i, err)
		}
		if _, ok, err := s.Get(ctx, claim(fmt.Sprint(i)).PK); err != nil || !ok {
			t.Errorf("claim %d not stored: %v, %v", i, ok, err)
		}
	}
}

// TestCancelledWriteIsWithdrawn: a caller whose context ends while its
// write waits gets the context's error, and the write never happens.
func TestCancelledWriteIsWithdrawn(t *testing.T) {
	s := openSQLiteStore(t)
	release := hold(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	c := claim("cancelled")
	go func() {
		_, _, err := s.Begin(ctx, c)
		errc <- err
	}()
	waitQueued(t, s, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Begin of a cancelled caller = %v, want context.Canceled", err)
	}
	release()
	if _, ok, err := s.Get(context.Background(), c.PK); err != nil || ok {
		t.Errorf("the withdrawn claim was stored (%v, %v)", ok, err)
	}
}

// TestCloseFailsWaitingWrites: Close lets the batch in progress finish,
// fails the writes still waiting with ErrClosed and stops the writer; later
// writes fail at once.
func TestCloseFailsWaitingWrites(t *testing.T) {
	s, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "records.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	release, err := s.HoldWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 3)
	for i := range 3 {
		go func() {
			_, _, err := s.Begin(ctx, claim(fmt.Sprint(i)))
			errc <- err
		}()
	}
	waitQueued(t, s, 3)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	// Close waits for the held batch: release it once Close has begun.
	testenv.Eventually(t, 10*time.Second, "Close begun", s.Closing)
	release()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	for range 3 {
		if err := <-errc; !errors.Is(err, sqlstore.ErrClosed) {
			t.Errorf("waiting Begin after Close = %v, want ErrClosed", err)
		}
	}
	if _, _, err := s.Begin(ctx, claim("late")); !errors.Is(err, sqlstore.ErrClosed) {
		t.Errorf("Begin after Close = %v, want ErrClosed", err)
	}
}

// TestUpdateReturnsWhatItsKindPromises: a heartbeat returns the expiries it
// wrote; a completion the whole record (idempotency.Store.Update).
func TestUpdateReturnsWhatItsKindPromises(t *testing.T) {
	s := openSQLiteStore(t)
	ctx := context.Background()
	c := claim("update")
	if _, _, err := s.Begin(ctx, c); err != nil {
		t.Fatal(err)
	}
	now := c.Now.Add(time.Second)
	progress := `{"committed":3}`
	hb := idempotency.Update{Kind: idempotency.UpdateHeartbeat, Now: now, LeaseExpiresAt: now.Add(time.Minute),
		ExpiresAt: now.Add(2 * time.Hour), Progress: &progress}
	rec, err := s.Update(ctx, c.PK, c.LeaseToken, hb)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.LeaseExpiresAt.Equal(hb.LeaseExpiresAt) || !rec.ExpiresAt.Equal(hb.ExpiresAt) {
		t.Errorf("heartbeat returned lease %s, expiry %s; want %s, %s", rec.LeaseExpiresAt, rec.ExpiresAt, hb.LeaseExpiresAt, hb.ExpiresAt)
	}
	done := idempotency.Update{Kind: idempotency.UpdateComplete, Now: now, ExpiresAt: now.Add(time.Hour), ResponsePayload: `{"depth":1}`, HTTPStatus: 200}
	rec, err = s.Update(ctx, c.PK, c.LeaseToken, done)
	if err != nil {
		t.Fatal(err)
	}
	stored, _, _ := s.Get(ctx, c.PK)
	if rec != stored || rec.Progress != progress || rec.Status != idempotency.StatusCompleted {
		t.Errorf("completion returned %+v, want the stored record %+v", rec, stored)
	}
}

// TestFullSyncsBeforeAnswering: with synchronous=FULL every write is
// answered after a sync of the WAL that follows its commit; with NORMAL
// the WAL is never synced by the writer.
func TestFullSyncsBeforeAnswering(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{sqlstore.SynchronousFull, sqlstore.SynchronousNormal} {
		t.Run(mode, func(t *testing.T) {
			s, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "records.db"), sqlstore.WithSynchronous(mode))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i := range 5 {
				before := s.WriteSyncs()
				if _, _, err := s.Begin(ctx, claim(fmt.Sprint(i))); err != nil {
					t.Fatal(err)
				}
				synced := s.WriteSyncs() > before
				if synced != (mode == sqlstore.SynchronousFull) {
					t.Errorf("claim %d answered with synced=%v, want %v", i, synced, mode == sqlstore.SynchronousFull)
				}
			}
		})
	}
	if _, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "records.db"), sqlstore.WithSynchronous("OFF")); err == nil ||
		!strings.Contains(err.Error(), "synchronous must be FULL or NORMAL") {
		t.Errorf("open with synchronous OFF = %v, want an error naming the rule", err)
	}
}

// TestReadOnlyClaimIsAnsweredAtCommit: with FULL, a read-only command's
// claim is answered once committed, without a sync of its own, and its
// completion syncs as every other write does; mixed with durable writes
// from many callers, every write is answered.
func TestReadOnlyClaimIsAnsweredAtCommit(t *testing.T) {
	ctx := context.Background()
	s, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "records.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 5 {
		c := claim(fmt.Sprint("read-only-", i))
		c.ReadOnly = true
		before := s.WriteSyncs()
		_, acquired, err := s.Begin(ctx, c)
		if err != nil || !acquired {
			t.Fatalf("read-only claim %d: acquired=%v, %v", i, acquired, err)
		}
		if after := s.WriteSyncs(); after != before {
			t.Errorf("read-only claim %d answered after %d syncs, want none", i, after-before)
		}
		if got, found, err := s.Get(ctx, c.PK); err != nil || !found || got.Status != idempotency.StatusInProgress {
			t.Fatalf("read after the read-only claim %d: %+v, found=%v, %v", i, got, found, err)
		}
		before = s.WriteSyncs()
		if _, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateComplete, Now: c.Now,
			HTTPStatus: 200, ResponsePayload: "{}", ExpiresAt: c.ExpiresAt}); err != nil {
			t.Fatalf("complete %d: %v", i, err)
		}
		if s.WriteSyncs() == before {
			t.Errorf("completion %d answered before a sync", i)
		}
	}

	const writers = 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := claim(fmt.Sprint("mixed-", i))
			c.ReadOnly = i%2 == 0
			if _, acquired, err := s.Begin(ctx, c); err != nil || !acquired {
				errs <- fmt.Errorf("claim %d (read-only %v): acquired=%v, %v", i, c.ReadOnly, acquired, err)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("mixed read-only and durable claims not all answered within 30s")
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestWALStaysBounded: under a steady stream of writes the WAL is
// checkpointed and restarted, rather than growing with every write.
func TestWALStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "records.db")
	s, err := sqlstore.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				c := claim(fmt.Sprintf("%d-%d", g, i))
				if _, _, err := s.Begin(ctx, c); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateComplete,
					Now: c.Now, ExpiresAt: c.ExpiresAt, ResponsePayload: `{"depth":1}`, HTTPStatus: 200}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	wal, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	// 4,800 commands write some 100 MiB of WAL frames; SQLite restarts the
	// WAL after each checkpoint of 1,000 pages (4 MiB).
	if wal.Size() > 16<<20 {
		t.Errorf("WAL is %d MiB after 4,800 commands, want it restarted after checkpoints (a few MiB)", wal.Size()>>20)
	}
}

// TestStatementJournalsStayInMemory: a batch's statements that change pages
// an earlier statement of the batch changed keep the pages' previous content
// in a statement journal, which SQLite otherwise spills to a temporary file
// past 64 KiB — two write system calls a page. The writer's connection keeps
// temporary storage in memory (BenchmarkSQLite/new/c32: 11–24% more
// commands a second, five alternating pairs).
func TestStatementJournalsStayInMemory(t *testing.T) {
	s := openSQLite(t).(*sqlstore.Store)
	defer s.Close()
	const memory = "2"
	if got, err := s.WriterPragma(context.Background(), "temp_store"); err != nil || got != memory {
		t.Fatalf("writer's temp_store = %q (%v), want %s (MEMORY)", got, err, memory)
	}
}
