package idempotency

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Argument names of the record operations, used in ArgumentError.
const (
	ArgStatus    = "status"
	ArgOlderThan = "olderThan"
	ArgLimit     = "limit"
	ArgCursor    = "cursor"
	ArgTarget    = "target"
	ArgSince     = "since"
	ArgUntil     = "until"
)

// DefaultListLimit is the page size of List when the query names none.
const DefaultListLimit = 100

var (
	// ErrNoRecord means there is no record (or only an expired one) to evict.
	ErrNoRecord = errors.New("idempotency: no record")
	// ErrLeaseAlive means Evict refused an IN_PROGRESS record whose holder's
	// lease is alive: the holder is still working, and once the record is
	// gone the next copy of the command claims it afresh and runs it a
	// second time alongside. Only a forced eviction takes that risk.
	ErrLeaseAlive = errors.New("idempotency: lease alive")
	// ErrRecordChanged means the record was claimed again, or its holder
	// renewed its lease, between Evict's read and its delete; nothing was
	// deleted, and inspecting it again shows its new state.
	ErrRecordChanged = errors.New("idempotency: record changed during evict")
	// ErrResumable is matched by a *ResumableError: Evict refused a record
	// whose checkpoint the next attempt resumes from.
	ErrResumable = errors.New("idempotency: record is resumable")
)

// MaxPKLength is the longest pk a store holds (the SQL column is
// VARCHAR(300)).
const MaxPKLength = 300

// MaxCursorBytes bounds a decoded List cursor: a store's position holds a
// pk, an instant, and on DynamoDB an index's keys (tenant and target).
const MaxCursorBytes = 1024

// maxObjectName is the longest IBM MQ queue manager or queue name.
const maxObjectName = 48

// EvictCacheNote is the limitation of Evict an operator must know: only the
// evicting engine forgets the record.
const EvictCacheNote = "instances with idempotency.localCacheSize > 0 that replayed this COMPLETED record may replay it " +
	"from memory until it leaves their cache (pushed out by newer replays, or its expiresAt passes) or they restart"

// Inspect reads the record of an operation type, tenant ("" for the
// implicit one) and key, lease token included, or reports it absent (or
// expired). Bad arguments return an *ArgumentError.
func (e *Engine) Inspect(ctx context.Context, operationType, tenant, key string) (Record, bool, error) {
	if err := validateScope(operationType, tenant); err != nil {
		return Record{}, false, err
	}
	return e.Get(ctx, operationType, tenant, key)
}

// RecordQuery selects the records List returns; zero fields select
// everything of the tenant.
type RecordQuery struct {
	Status        Status // IN_PROGRESS, COMPLETED or FAILED; "" for any
	OperationType string // "" for any
	// Tenant, with AllTenants false, is the one tenant listed ("" the
	// implicit tenant).
	Tenant     string
	AllTenants bool
	// Target selects the commands against a queue manager ("QM1") or one
	// of its queues ("QM1:DEV.QUEUE.1", as Record.Target shows it); "" for
	// any.
	Target string
	// OlderThan selects records nobody updated for at least this long (a
	// stuck IN_PROGRESS record's holder stopped heartbeating); 0 for any.
	OlderThan time.Duration
	// Since and Until select records updated at or after Since and before
	// Until; zero leaves that end open.
	Since, Until time.Time
	// Limit is the most records a page holds, up to MaxListLimit; 0 means
	// DefaultListLimit.
	Limit int
	// Cursor continues a listing: the Cursor of the previous page.
	Cursor string
}

// RecordPage is one page of List, newest first.
type RecordPage struct {
	Records []Record
	// Cursor continues the listing in RecordQuery.Cursor; "" at the end. A
	// page may be short, even empty, while Cursor is set.
	Cursor string
	// Scan says no index serves the query's filters: the store read its
	// table, matching or not (DynamoDB), and a page may be short.
	Scan bool
}

// List returns one page of the unexpired records q selects. Bad arguments
// return an *ArgumentError naming the field; store failures match
// ErrStoreUnavailable. With deduplication disabled there are no records.
func (e *Engine) List(ctx context.Context, q RecordQuery) (RecordPage, error) {
	sq, err := e.storeQuery(q)
	if err != nil || e.disabled {
		return RecordPage{}, err
	}
	page, err := e.store.List(ctx, sq)
	if errors.Is(err, ErrInvalidCursor) {
		return RecordPage{}, &ArgumentError{Arg: ArgCursor, Rule: "must be the cursor of a previous page"}
	}
	if err != nil {
		return RecordPage{}, storeError("list", err)
	}
	out := RecordPage{Records: page.Records, Scan: page.Scanned}
	if page.Next != "" {
		out.Cursor = base64.RawURLEncoding.EncodeToString([]byte(page.Next))
	}
	return out, nil
}

func (e *Engine) storeQuery(q RecordQuery) (ListQuery, error) {
	switch q.Status {
	case "", StatusInProgress, StatusCompleted, StatusFailed:
	default:
		return ListQuery{}, &ArgumentError{Arg: ArgStatus, Rule: fmt.Sprintf("must be IN_PROGRESS, COMPLETED or FAILED (got %q)", q.Status)}
	}
	if q.OperationType != "" {
		if err := validateOperationType(q.OperationType); err != nil {
			return ListQuery{}, err
		}
	}
	if err := validateTenant(q.Tenant); err != nil {
		return ListQuery{}, err
	}
	if q.OlderThan < 0 {
		return ListQuery{}, &ArgumentError{Arg: ArgOlderThan, Rule: fmt.Sprintf("must not be negative (got %s)", q.OlderThan)}
	}
	if q.Limit < 0 || q.Limit > MaxListLimit {
		return ListQuery{}, &ArgumentError{Arg: ArgLimit, Rule: fmt.Sprintf("must be between 1 and %d (got %d)", MaxListLimit, q.Limit)}
	}
	qmgr, queue, err := parseTargetFilter(q.Target)
	if err != nil {
		return ListQuery{}, err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return ListQuery{}, &ArgumentError{Arg: ArgUntil, Rule: fmt.Sprintf("must be after since (got since %s, until %s)",
			FormatTime(q.Since), FormatTime(q.Until))}
	}
	// Bounded before decoding: a forged cursor is a bad argument, not a key
	// the store rejects as a failure.
	if len(q.Cursor) > base64.RawURLEncoding.EncodedLen(MaxCursorBytes) {
		return ListQuery{}, &ArgumentError{Arg: ArgCursor, Rule: fmt.Sprintf("must be the cursor of a previous page (at most %d characters, got %d)",
			base64.RawURLEncoding.EncodedLen(MaxCursorBytes), len(q.Cursor))}
	}
	after, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err != nil {
		return ListQuery{}, &ArgumentError{Arg: ArgCursor, Rule: "must be the cursor of a previous page"}
	}
	now := e.now()
	sq := ListQuery{Status: q.Status, OperationType: q.OperationType, Tenant: q.Tenant, AllTenants: q.AllTenants,
		QueueManager: qmgr, Queue: queue, Since: q.Since, Until: q.Until,
		LiveAt: now, Limit: cmp.Or(q.Limit, DefaultListLimit), After: string(after)}
	if q.OlderThan > 0 {
		sq.UpdatedBefore = now.Add(-q.OlderThan)
	}
	return sq, nil
}

// parseTargetFilter splits RecordQuery.Target into its queue manager and
// queue ("" when it names a queue manager only).
func parseTargetFilter(target string) (qmgr, queue string, err error) {
	if target == "" {
		return "", "", nil
	}
	qmgr, queue, _ = strings.Cut(target, ":")
	for _, name := range []string{qmgr, queue} {
		if len(name) > maxObjectName || !configcheck.IsMQName(name) {
			return "", "", &ArgumentError{Arg: ArgTarget, Rule: fmt.Sprintf("must be a queue manager (QM1) or a queue manager and a queue "+
				"(QM1:DEV.QUEUE.1), each at most %d characters of A-Z, a-z, 0-9, '.', '/', '_' and '%%' (got %q)", maxObjectName, target)}
		}
	}
	if qmgr == "" {
		return "", "", &ArgumentError{Arg: ArgTarget, Rule: fmt.Sprintf("must start with a queue manager name (got %q)", target)}
	}
	return qmgr, queue, nil
}

// EvictRequest names the record Evict removes and who asks.
type EvictRequest struct {
	OperationType  string
	Tenant         string // "" for the implicit tenant
	IdempotencyKey string
	// Force evicts a record Evict would otherwise refuse: an IN_PROGRESS
	// one whose lease is alive (the operator's decision that its holder is
	// gone or may run it twice), or a resumable one (the next copy then
	// starts over and repeats the committed messages).
	Force bool
	// By says who asks, for the audit line ("http", "cli user=alice").
	By string
}

// ResumableError is Evict's refusal of a FAILED record, or an IN_PROGRESS
// one whose lease expired, holding a checkpoint the next attempt resumes
// from: once the record is gone the next copy starts over and puts (or
// expects to get) the committed messages again. It matches ErrResumable.
type ResumableError struct {
	PK        string
	Status    Status
	Attempt   int
	Committed int // messages the checkpoint says are committed; -1 unknown
}

func (e *ResumableError) Error() string {
	committed := "a checkpoint"
	if e.Committed >= 0 {
		committed = fmt.Sprintf("a checkpoint of %d committed messages", e.Committed)
	}
	return fmt.Sprintf("evict %s: %s attempt %d holds %s that the next copy of the command resumes from; "+
		"evicting it makes that copy start over", e.PK, e.Status, e.Attempt, committed)
}

// Is matches ErrResumable.
func (e *ResumableError) Is(target error) bool { return target == ErrResumable }

// Evict deletes a record so the next copy of its command runs afresh, and
// writes one audit line whatever the outcome, bad arguments included. It
// returns the record it found: deleted, or the reason it was not. Errors:
// *ArgumentError for bad arguments, ErrNoRecord when there is none (or it
// expired), ErrLeaseAlive for a live IN_PROGRESS record and a
// *ResumableError (ErrResumable) for a resumable one unless Force is set,
// ErrRecordChanged when it was claimed again or renewed meanwhile, and
// ErrStoreUnavailable for store failures.
//
// Only this engine's local cache forgets the record: see EvictCacheNote.
// Checking the store before every cached replay would defeat the cache,
// and a COMPLETED record is evicted rarely and deliberately, so the
// operator is told instead (in the audit line of a COMPLETED record).
func (e *Engine) Evict(ctx context.Context, req EvictRequest) (rec Record, err error) {
	audit := evictAudit{committed: -1}
	defer func() { e.auditEviction(ctx, req, rec, audit, err) }()
	if err := validateScope(req.OperationType, req.Tenant); err != nil {
		return Record{}, err
	}
	if err := ValidateKey(req.IdempotencyKey); err != nil {
		return Record{}, err
	}
	rec, found, err := e.Get(ctx, req.OperationType, req.Tenant, req.IdempotencyKey)
	if err != nil {
		return Record{}, err
	}
	if !found {
		return Record{}, fmt.Errorf("evict %s: %w", PK(req.OperationType, req.Tenant, req.IdempotencyKey), ErrNoRecord)
	}
	now := e.now()
	audit.liveLease = rec.Status == StatusInProgress && rec.LeaseAlive(now)
	if audit.liveLease && !req.Force {
		return rec, fmt.Errorf("evict %s: attempt %d holds its lease until %s: %w",
			rec.PK, rec.Attempt, FormatTime(rec.LeaseExpiresAt), ErrLeaseAlive)
	}
	if rec.Status != StatusCompleted && rec.Progress != "" {
		audit.committed, audit.resumable = e.readCheckpoint(rec.OperationType, rec.Progress)
		if audit.resumable && !req.Force {
			return rec, &ResumableError{PK: rec.PK, Status: rec.Status, Attempt: rec.Attempt, Committed: audit.committed}
		}
	}
	// Fenced by the token read above and the lease at now — a claim taken,
	// or a lease renewed, since the read is not ours to drop — unless the
	// operator forced past a live lease: then whoever holds it now.
	deleted, err := e.store.Delete(ctx, Deletion{PK: rec.PK, LeaseToken: rec.LeaseToken, Now: now, Force: audit.liveLease})
	if err != nil {
		return rec, storeError("evict", err)
	}
	if !deleted {
		return rec, fmt.Errorf("evict %s: %w", rec.PK, ErrRecordChanged)
	}
	if e.cache != nil {
		e.cache.Remove(rec.PK)
	}
	return rec, nil
}

// evictAudit is what Evict learnt of the record, for its audit line.
type evictAudit struct {
	liveLease bool
	resumable bool
	committed int // -1: no checkpoint read
}

// auditEviction writes the audit line of one Evict: who, tenant,
// operation, key, forced, and what became of it.
func (e *Engine) auditEviction(ctx context.Context, req EvictRequest, rec Record, a evictAudit, err error) {
	outcome := "evicted"
	switch {
	case errors.Is(err, ErrInvalidArgument):
		outcome = "invalid"
	case errors.Is(err, ErrNoRecord):
		outcome = "not_found"
	case errors.Is(err, ErrLeaseAlive):
		outcome = "refused_lease_alive"
	case errors.Is(err, ErrResumable):
		outcome = "refused_resumable"
	case errors.Is(err, ErrRecordChanged):
		outcome = "changed"
	case err != nil:
		outcome = "undecided"
	}
	attrs := []any{"key", req.IdempotencyKey, "operation", req.OperationType, "tenant", tenant.Tenant{Name: req.Tenant}.Label(),
		"by", req.By, "forced", req.Force, "outcome", outcome}
	if rec.PK != "" {
		attrs = append(attrs, "status", string(rec.Status), "attempt", rec.Attempt)
	}
	if a.committed >= 0 {
		attrs = append(attrs, "committed", a.committed)
	}
	level := slog.LevelInfo
	switch {
	case outcome == "evicted" && a.liveLease:
		// The operator overrode a live lease: its holder may still be running.
		attrs = append(attrs, "lease_alive", true, "lease_expires_at", FormatTime(rec.LeaseExpiresAt))
		level = slog.LevelWarn
	case outcome == "evicted" && a.resumable:
		// The operator threw a checkpoint away: the next copy repeats its messages.
		attrs = append(attrs, "resumable", true)
		level = slog.LevelWarn
	case outcome == "evicted" && rec.Status == StatusCompleted:
		attrs = append(attrs, "note", EvictCacheNote)
	case outcome == "invalid" || outcome == "undecided":
		attrs = append(attrs, "error", err)
		level = slog.LevelWarn
	}
	e.log.Log(ctx, level, "evict", attrs...)
}
