package dynamodb_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	store "github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
)

// TestBackendRefusalsArePermanent: what DynamoDB refuses for good (an item
// over 400 KB, a missing table) comes back as a permanent error naming the
// table and the rule, so the engine never retries it.
func TestBackendRefusalsArePermanent(t *testing.T) {
	onEachBackend(t, func(t *testing.T, _ backend) {
		ctx := context.Background()
		s := newStore(t, newClient(t))
		now := time.Now().UTC().Truncate(time.Millisecond)
		c := claim("too-large", strings.Repeat("a", 64), now)
		if _, ok, err := s.Begin(ctx, c); err != nil || !ok {
			t.Fatalf("Begin: %v %v", ok, err)
		}
		// Written past the engine's own check: the backend's refusal.
		progress := strings.Repeat("x", 410_000)
		_, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateHeartbeat, Now: now,
			LeaseExpiresAt: now.Add(time.Minute), Progress: &progress})
		var perm *idempotency.PermanentError
		if !idempotency.IsPermanent(err) || !errors.As(err, &perm) {
			t.Fatalf("update to a 410,000-byte item: %v, want a permanent error", err)
		}
		if perm.Store != "DynamoDB table "+s.Table() || !strings.Contains(perm.Rule, "400 KB") {
			t.Errorf("permanent error names store %q rule %q, want the table and the item limit", perm.Store, perm.Rule)
		}

		missing := store.New(newClient(t), "mqprobe-no-such-table")
		_, err = missing.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateHeartbeat, Now: now,
			LeaseExpiresAt: now.Add(time.Minute)})
		if !idempotency.IsPermanent(err) || !strings.Contains(err.Error(), "the table must exist") {
			t.Errorf("update on a missing table: %v, want a permanent error saying the table must exist", err)
		}

		// A cancelled call is not the store's verdict: it stays transient.
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Update(cancelled, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateHeartbeat, Now: now,
			LeaseExpiresAt: now.Add(time.Minute)}); err == nil || idempotency.IsPermanent(err) {
			t.Errorf("cancelled update: %v, want a transient error", err)
		}
	})
}
