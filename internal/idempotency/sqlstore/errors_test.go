package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
)

func claimAt(now time.Time) idempotency.Claim {
	key := "key-" + uuid.NewString()
	return idempotency.Claim{PK: "PRODUCE#" + key, OperationType: "PRODUCE", IdempotencyKey: key,
		RequestHash: strings.Repeat("a", 64), LeaseToken: uuid.NewString(), Now: now, ExpiresAt: now.Add(time.Hour),
		LeaseExpiresAt: now.Add(30 * time.Second), Target: "QM1:DEV.QUEUE.1"}
}

// TestPostgresRefusalIsPermanent: a value PostgreSQL refuses (a response
// that is not JSON, SQLSTATE 22P02) is a permanent error naming the store.
func TestPostgresRefusalIsPermanent(t *testing.T) {
	ctx := context.Background()
	s := openPostgres(t).(*sqlstore.Store)
	defer s.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	c := claimAt(now)
	if _, ok, err := s.Begin(ctx, c); err != nil || !ok {
		t.Fatalf("Begin: %v %v", ok, err)
	}
	_, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateComplete, Now: now,
		ResponsePayload: "not json", HTTPStatus: 200})
	if !idempotency.IsPermanent(err) || !strings.Contains(err.Error(), "PostgreSQL idempotency store") {
		t.Fatalf("completion with an invalid JSON response: %v, want a permanent error naming the store", err)
	}
	// The refused write changed nothing: the record is still the holder's.
	if _, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateComplete, Now: now,
		ResponsePayload: `{}`, HTTPStatus: 200}); err != nil {
		t.Errorf("completion after the refusal: %v", err)
	}
}

// TestSQLiteMissingTableIsPermanent: a database without the table (dropped
// under the daemon) refuses every write for good.
func TestSQLiteMissingTableIsPermanent(t *testing.T) {
	ctx := context.Background()
	s := openSQLite(t).(*sqlstore.Store)
	defer s.Close()
	now := time.Now().UTC().Truncate(time.Millisecond)
	c := claimAt(now)
	if _, ok, err := s.Begin(ctx, c); err != nil || !ok {
		t.Fatalf("Begin: %v %v", ok, err)
	}
	if err := s.WriteSQL(ctx, "DROP TABLE idempotency_record"); err != nil {
		t.Fatalf("drop table: %v", err)
	}
	_, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateHeartbeat, Now: now,
		LeaseExpiresAt: now.Add(time.Minute)})
	if !idempotency.IsPermanent(err) || !strings.Contains(err.Error(), "the table must exist") {
		t.Fatalf("heartbeat without the table: %v, want a permanent error saying the table must exist", err)
	}
}
