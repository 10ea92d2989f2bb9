package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// jsonOfSize returns a JSON document of exactly n bytes (n >= 8).
func jsonOfSize(n int) string {
	return `{"p":"` + strings.Repeat("x", n-8) + `"}`
}

// progressRoom is the progress length that makes res's record exactly its
// store's limit.
func progressRoom(f *fixture, res idempotency.Result) int {
	rec := res.Record
	rec.Progress = ""
	return f.store.Limits().MaxRecordBytes - idempotency.RecordSize(rec) - len("progress")
}

// testRecordAtLimit: a record of exactly the declared size is written and
// read back whole, as a checkpoint and as a completion.
func testRecordAtLimit(t *testing.T, f *fixture) {
	if f.store.Limits().MaxRecordBytes <= 0 {
		t.Fatalf("store declares no record limit (%+v)", f.store.Limits())
	}
	e := f.engine()
	res := f.begin(e, request(newKey(), hashA), idempotency.Acquired)
	progress := jsonOfSize(progressRoom(f, res))
	if err := e.Checkpoint(f.ctx, res.Lease, progress); err != nil {
		t.Fatalf("Checkpoint of a record at the store's limit: %v", err)
	}
	got, _ := f.get(res.Record.PK)
	if got.Progress != progress {
		t.Fatalf("stored progress has %d bytes, want the %d written", len(got.Progress), len(progress))
	}
	if n := idempotency.RecordSize(got); n != f.store.Limits().MaxRecordBytes {
		t.Errorf("record size %d, want exactly the limit %d", n, f.store.Limits().MaxRecordBytes)
	}

	// A completion's response fills the room a small checkpoint leaves.
	res = f.begin(e, request(newKey(), hashA), idempotency.Acquired)
	if err := e.Checkpoint(f.ctx, res.Lease, `{"committed":1}`); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	rec := res.Record
	rec.Progress = `{"committed":1}`
	room := f.store.Limits().MaxRecordBytes - idempotency.RecordSize(rec) - len("responsePayload")
	body := jsonOfSize(room)
	done, err := e.Complete(f.ctx, res.Lease, idempotency.Response{Payload: body, HTTPStatus: 200})
	if err != nil {
		t.Fatalf("Complete of a record at the store's limit: %v", err)
	}
	if got, _ := f.get(res.Record.PK); got.ResponsePayload != body || done.Status != idempotency.StatusCompleted {
		t.Errorf("completed record holds %d response bytes, want %d", len(got.ResponsePayload), len(body))
	}
}

// testRecordOverLimit: one byte over the limit is refused at once with a
// permanent error naming the store; the record keeps its last checkpoint and
// its holder can still end it with a smaller outcome.
func testRecordOverLimit(t *testing.T, f *fixture) {
	e := f.engine()
	res := f.begin(e, request(newKey(), hashA), idempotency.Acquired)
	if err := e.Checkpoint(f.ctx, res.Lease, `{"committed":7}`); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	limits := f.store.Limits()
	started := time.Now()
	err := e.Checkpoint(f.ctx, res.Lease, jsonOfSize(progressRoom(f, res)+1))
	if !idempotency.IsPermanent(err) || !errors.Is(err, idempotency.ErrRecordTooLarge) {
		t.Fatalf("Checkpoint one byte over the limit: %v, want a permanent ErrRecordTooLarge", err)
	}
	if !strings.Contains(err.Error(), limits.Store) || !strings.Contains(err.Error(), "at most") {
		t.Errorf("error %q does not name the store %q and its rule", err, limits.Store)
	}
	if d := time.Since(started); d > 5*time.Second {
		t.Errorf("refusal took %s: a permanent error must not be retried", d)
	}
	got, _ := f.get(res.Record.PK)
	if got.Progress != `{"committed":7}` || got.Status != idempotency.StatusInProgress {
		t.Errorf("record after the refusal: status %s progress %q, want the last checkpoint kept", got.Status, got.Progress)
	}

	// A completion over the limit is refused too, and the lease stays its
	// holder's: it records a failure instead, one outcome.
	_, err = e.Complete(f.ctx, res.Lease, idempotency.Response{Payload: jsonOfSize(limits.MaxRecordBytes), HTTPStatus: 200})
	if !idempotency.IsPermanent(err) {
		t.Fatalf("Complete over the limit: %v, want a permanent error", err)
	}
	failed, err := e.Fail(f.ctx, res.Lease, "result too large for the store", idempotency.Response{})
	if err != nil {
		t.Fatalf("Fail after a refused completion: %v", err)
	}
	if failed.Status != idempotency.StatusFailed {
		t.Errorf("status %s after Fail, want FAILED", failed.Status)
	}
}
