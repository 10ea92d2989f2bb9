package daemon_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
)

// slowCleanupStore is a store whose expired-record cleanup outlives its
// cancellation by a moment, and which records whether it was closed while a
// cleanup was still running.
type slowCleanupStore struct {
	idempotency.Store
	started       chan struct{}
	running       atomic.Bool
	closedInstead atomic.Bool
}

func (s *slowCleanupStore) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	s.running.Store(true)
	defer s.running.Store(false)
	select {
	case s.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	time.Sleep(100 * time.Millisecond) // a delete finishing its round trip
	return 0, ctx.Err()
}

func (s *slowCleanupStore) Close() error {
	if s.running.Load() {
		s.closedInstead.Store(true)
	}
	return s.Store.Close()
}

// TestShutdownWaitsForCleanupBeforeClosingTheStore: the expired-record
// cleanup is a goroutine of the daemon's; shutdown stops it and waits for it
// before it closes the store under it.
func TestShutdownWaitsForCleanupBeforeClosingTheStore(t *testing.T) {
	store := &slowCleanupStore{Store: memory.New(), started: make(chan struct{}, 1)}
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Cfg.Idempotency.Store = config.StoreSQLite // a store without native expiry: cleanup runs
		s.Cfg.Idempotency.CleanupInterval = 10 * time.Millisecond
		s.Opts.Store = store
	})
	select {
	case <-store.started:
	case <-time.After(10 * time.Second):
		t.Fatal("no cleanup ran")
	}
	h.Shutdown()
	if store.closedInstead.Load() {
		t.Error("the store was closed while its cleanup was still running")
	}
}
