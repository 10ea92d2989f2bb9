package idempotency_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
)

// auditLog returns a logger writing JSON lines to a buffer, and a func
// that decodes the lines written so far.
func auditLog(t *testing.T) (*slog.Logger, func() []map[string]any) {
	var buf bytes.Buffer
	return slog.New(slog.NewJSONHandler(&buf, nil)), func() []map[string]any {
		t.Helper()
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if l == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			lines = append(lines, m)
		}
		return lines
	}
}

// committedCheckpoint reads a test checkpoint {"committed":N}: resumable
// when N > 0, as PRODUCE's is.
func committedCheckpoint(_, progress string) (int, bool) {
	var cp struct{ Committed int }
	if json.Unmarshal([]byte(progress), &cp) != nil {
		return 0, false
	}
	return cp.Committed, cp.Committed > 0
}

// TestEvictRefusesAResumableRecordUnlessForced: a FAILED record whose
// checkpoint a retry resumes from is kept (the retry would otherwise put
// the committed messages again) unless forced; the audit lines carry the
// committed count.
func TestEvictRefusesAResumableRecordUnlessForced(t *testing.T) {
	log, lines := auditLog(t)
	e, err := idempotency.New(memory.New(), idempotency.Config{}, log, idempotency.WithCheckpointReader(committedCheckpoint))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	res, err := e.Begin(ctx, req("resumable"))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Checkpoint(ctx, res.Lease, `{"committed":200}`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Fail(ctx, res.Lease, "MQRC_Q_FULL", idempotency.Response{}); err != nil {
		t.Fatal(err)
	}
	evict := idempotency.EvictRequest{OperationType: "PRODUCE", IdempotencyKey: "resumable", By: "test"}
	rec, err := e.Evict(ctx, evict)
	var resumable *idempotency.ResumableError
	if !errors.Is(err, idempotency.ErrResumable) || !errors.As(err, &resumable) || resumable.Committed != 200 ||
		rec.Status != idempotency.StatusFailed || !strings.Contains(err.Error(), "200 committed messages") {
		t.Fatalf("Evict of a resumable FAILED record = %v (%+v), want ErrResumable naming 200 committed", err, resumable)
	}
	if _, found, _ := e.Inspect(ctx, "PRODUCE", "", "resumable"); !found {
		t.Fatal("refused eviction deleted the record")
	}
	evict.Force = true
	if _, err := e.Evict(ctx, evict); err != nil {
		t.Fatalf("forced Evict of a resumable record: %v", err)
	}
	if _, found, _ := e.Inspect(ctx, "PRODUCE", "", "resumable"); found {
		t.Fatal("forced eviction kept the record")
	}
	audit := lines()
	if len(audit) != 2 {
		t.Fatalf("%d audit lines, want 2: %v", len(audit), audit)
	}
	if a := audit[0]; a["outcome"] != "refused_resumable" || a["committed"] != float64(200) {
		t.Errorf("refusal audit line %v, want outcome refused_resumable, committed 200", a)
	}
	if a := audit[1]; a["outcome"] != "evicted" || a["committed"] != float64(200) || a["resumable"] != true || a["level"] != "WARN" {
		t.Errorf("forced eviction audit line %v, want a warning with committed 200, resumable", a)
	}

	// A FAILED record with nothing committed has nothing to resume.
	res, _ = e.Begin(ctx, req("fresh-failure"))
	if _, err := e.Fail(ctx, res.Lease, "MQRC_UNKNOWN_OBJECT_NAME", idempotency.Response{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Evict(ctx, idempotency.EvictRequest{OperationType: "PRODUCE", IdempotencyKey: "fresh-failure"}); err != nil {
		t.Fatalf("Evict of a FAILED record without a checkpoint: %v", err)
	}
}

// TestEvictWithoutACheckpointReaderKeepsAnyCheckpoint: with no reader the
// engine cannot tell, and keeps what may be resumable.
func TestEvictWithoutACheckpointReaderKeepsAnyCheckpoint(t *testing.T) {
	e := newEngine(t, memory.New(), idempotency.Config{})
	ctx := t.Context()
	res, _ := e.Begin(ctx, req("opaque"))
	if err := e.Checkpoint(ctx, res.Lease, `{"anything":1}`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Fail(ctx, res.Lease, "failed", idempotency.Response{}); err != nil {
		t.Fatal(err)
	}
	_, err := e.Evict(ctx, idempotency.EvictRequest{OperationType: "PRODUCE", IdempotencyKey: "opaque"})
	var resumable *idempotency.ResumableError
	if !errors.As(err, &resumable) || resumable.Committed != -1 || strings.Contains(err.Error(), "-1") {
		t.Fatalf("Evict = %v, want ErrResumable with the count unknown", err)
	}
}

// TestEvictAuditsInvalidArguments: a refused bad request leaves its audit
// line too.
func TestEvictAuditsInvalidArguments(t *testing.T) {
	log, lines := auditLog(t)
	e, err := idempotency.New(memory.New(), idempotency.Config{}, log)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Evict(t.Context(), idempotency.EvictRequest{OperationType: "produce", IdempotencyKey: "k", By: "cli user=alice"})
	if !errors.Is(err, idempotency.ErrInvalidArgument) {
		t.Fatalf("Evict of a lower-case operation type = %v, want an argument error", err)
	}
	audit := lines()
	if len(audit) != 1 || audit[0]["outcome"] != "invalid" || audit[0]["by"] != "cli user=alice" || audit[0]["error"] == nil ||
		audit[0]["tenant"] != "default" {
		t.Fatalf("audit lines %v, want one invalid outcome naming who asked, the implicit tenant and the error", audit)
	}
}

// TestEvictLeavesOtherEnginesCachesAlone pins the documented limitation
// (EvictCacheNote): another process that cached the COMPLETED record keeps
// replaying it from memory, while the evicting one runs the key afresh, and
// the audit line says so.
func TestEvictLeavesOtherEnginesCachesAlone(t *testing.T) {
	store := &storetest.Counting{Store: memory.New()}
	log, lines := auditLog(t)
	evicting, err := idempotency.New(store, idempotency.Config{LocalCacheSize: 8}, log)
	if err != nil {
		t.Fatal(err)
	}
	other := newEngine(t, store, idempotency.Config{LocalCacheSize: 8})
	ctx := t.Context()
	res, _ := evicting.Begin(ctx, req("cached"))
	if _, err := evicting.Complete(ctx, res.Lease, idempotency.Response{Payload: `{}`, HTTPStatus: 201}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*idempotency.Engine{evicting, other} {
		if r, err := e.Begin(ctx, req("cached")); err != nil || r.Outcome != idempotency.Replay {
			t.Fatalf("replay before eviction: %v %v", r.Outcome, err)
		}
	}
	if _, err := evicting.Evict(ctx, idempotency.EvictRequest{OperationType: "PRODUCE", IdempotencyKey: "cached"}); err != nil {
		t.Fatal(err)
	}
	if r, err := other.Begin(ctx, req("cached")); err != nil || r.Outcome != idempotency.Replay || r.Source != idempotency.FromLocalCache {
		t.Errorf("other process after eviction: %v from %v, %v; want a replay from its cache", r.Outcome, r.Source, err)
	}
	if r, err := evicting.Begin(ctx, req("cached")); err != nil || r.Outcome != idempotency.Acquired {
		t.Errorf("evicting process after eviction: %v, %v; want the key run afresh", r.Outcome, err)
	}
	if audit := lines(); len(audit) != 1 || audit[0]["note"] != idempotency.EvictCacheNote {
		t.Errorf("audit lines %v, want the cache note on the COMPLETED record's eviction", audit)
	}
}

// TestListRejectsAForgedCursor: a forged cursor, too long for any store's
// position or not one at all, is a bad argument, not a store failure.
func TestListRejectsAForgedCursor(t *testing.T) {
	e := newEngine(t, memory.New(), idempotency.Config{})
	forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("x", idempotency.MaxCursorBytes+1)))
	_, err := e.List(t.Context(), idempotency.RecordQuery{Cursor: forged})
	var arg *idempotency.ArgumentError
	if !errors.As(err, &arg) || arg.Arg != idempotency.ArgCursor {
		t.Fatalf("List with a %d-character cursor = %v, want an argument error naming cursor", len(forged), err)
	}
	notACursor := base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("x", idempotency.MaxPKLength)))
	if _, err := e.List(t.Context(), idempotency.RecordQuery{Cursor: notACursor}); !errors.As(err, &arg) || arg.Arg != idempotency.ArgCursor {
		t.Fatalf("List with a cursor of no page = %v, want an argument error naming cursor", err)
	}
	longest := idempotency.ListPosition{At: time.Now(), PK: strings.Repeat("x", idempotency.MaxPKLength)}.String()
	if _, err := e.List(t.Context(), idempotency.RecordQuery{Cursor: base64.RawURLEncoding.EncodeToString([]byte(longest))}); err != nil {
		t.Fatalf("List with a cursor of the longest pk: %v", err)
	}
}

// TestForcedEvictionOfAFinishedRecordSparesAClaimTakenMeanwhile: force
// overrides a live lease or a checkpoint the operator saw, not a retry
// that claimed the record between Evict's read and its delete.
func TestForcedEvictionOfAFinishedRecordSparesAClaimTakenMeanwhile(t *testing.T) {
	store := &storetest.Counting{Store: memory.New()}
	e := newEngine(t, store, idempotency.Config{}, idempotency.WithCheckpointReader(committedCheckpoint))
	retrying := newEngine(t, store, idempotency.Config{})
	ctx := t.Context()
	res, _ := e.Begin(ctx, req("retried"))
	if err := e.Checkpoint(ctx, res.Lease, `{"committed":100}`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Fail(ctx, res.Lease, "MQRC_Q_FULL", idempotency.Response{}); err != nil {
		t.Fatal(err)
	}
	store.BeforeDelete = func(idempotency.Deletion) error {
		r, err := retrying.Begin(ctx, req("retried"))
		if err == nil && r.Outcome != idempotency.Acquired {
			t.Errorf("retry meanwhile: %v", r.Outcome)
		}
		return err
	}
	_, err := e.Evict(ctx, idempotency.EvictRequest{OperationType: "PRODUCE", IdempotencyKey: "retried", Force: true})
	if !errors.Is(err, idempotency.ErrRecordChanged) {
		t.Fatalf("forced Evict racing a retry = %v, want ErrRecordChanged", err)
	}
	if rec, found, _ := e.Inspect(ctx, "PRODUCE", "", "retried"); !found || rec.Attempt != 2 {
		t.Fatalf("the retry's claim: found %v, attempt %d; want attempt 2 kept", found, rec.Attempt)
	}
}
