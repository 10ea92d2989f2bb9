package idempotency_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
)

// refusingStore refuses every checkpoint with a permanent error, counting
// the attempts.
type refusingStore struct {
	*memory.Store
	updates atomic.Int64
}

func (s *refusingStore) Update(ctx context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	if u.Kind == idempotency.UpdateHeartbeat && u.Progress != nil {
		s.updates.Add(1)
		return idempotency.Record{}, &idempotency.PermanentError{Store: "test store", Rule: "refuses checkpoints",
			Err: errors.New("ValidationException")}
	}
	return s.Store.Update(ctx, pk, token, u)
}

// TestCheckpointDoesNotRetryPermanentErrors: a checkpoint the store refuses
// for good fails at once, not after retrying for as long as the lease is
// renewed, and the holder can still record the command FAILED.
func TestCheckpointDoesNotRetryPermanentErrors(t *testing.T) {
	store := &refusingStore{Store: memory.New()}
	e, err := idempotency.New(store, idempotency.Config{Lease: 30 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := e.Begin(ctx, idempotency.Request{OperationType: "CONSUME", IdempotencyKey: "k1", RequestHash: "h"})
	if err != nil || res.Outcome != idempotency.Acquired {
		t.Fatalf("Begin: %v %v", res.Outcome, err)
	}
	started := time.Now()
	err = e.Checkpoint(ctx, res.Lease, `{"committed":1}`)
	if !idempotency.IsPermanent(err) {
		t.Fatalf("Checkpoint: %v, want the permanent error", err)
	}
	if n, d := store.updates.Load(), time.Since(started); n != 1 || d > 10*time.Second {
		t.Errorf("store tried %d times over %s, want once", n, d)
	}
	rec, err := e.Fail(ctx, res.Lease, err.Error(), idempotency.Response{})
	if err != nil || rec.Status != idempotency.StatusFailed {
		t.Errorf("Fail after the refusal: %v %v", rec.Status, err)
	}
}

// TestRecordSizeCountsFormattedTimes: RecordSize counts each instant as
// the length FormatTime gives it, without formatting it, whatever the year.
func TestRecordSizeCountsFormattedTimes(t *testing.T) {
	base := idempotency.RecordSize(idempotency.Record{})
	zeroLen := len(idempotency.FormatTime(time.Time{}))
	for _, at := range []time.Time{
		time.Date(2026, 11, 27, 18, 0, 0, 123456789, time.FixedZone("UTC+13", 13*3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		// UpdatedAt counts twice: as an attribute and as the listing key.
		rec := idempotency.Record{CreatedAt: at, UpdatedAt: at, ExpiresAt: at}
		want := base + 4*(len(idempotency.FormatTime(at))-zeroLen)
		if got := idempotency.RecordSize(rec); got != want {
			t.Errorf("instants at %v (formatted %q): size %d, want %d", at, idempotency.FormatTime(at), got, want)
		}
	}
}
