package idempotency

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/mqprobe/mqprobe/internal/result"
)

// Outcome is Begin's decision.
type Outcome int

// Begin outcomes.
const (
	// Acquired: the caller holds the record and must run the command, then
	// Complete or Fail it.
	Acquired Outcome = iota + 1
	// Replay: the command already completed; Result.Record holds its response.
	Replay
	// InProgress: another worker holds the command; try again later.
	InProgress
	// Conflict: the key was used for a different request.
	Conflict
	// Claimable: nothing decides the command, and a claim would acquire it.
	// Only a Begin of a Request.DecideOnly answers it, having written nothing.
	Claimable
)

func (o Outcome) String() string {
	switch o {
	case Acquired:
		return "acquired"
	case Replay:
		return "replay"
	case InProgress:
		return "in_progress"
	case Conflict:
		return "conflict"
	case Claimable:
		return "claimable"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Source says what answered a Begin.
type Source int

// Sources of a decision.
const (
	FromStore        Source = iota + 1 // one conditional write (plus, rarely, a read)
	FromSingleFlight                   // a copy in flight in this process answered
	FromLocalCache                     // the local LRU of COMPLETED records answered
	FromDisabled                       // deduplication is off
)

// Result is Begin's answer.
type Result struct {
	Outcome Outcome
	// Record is the record as written (Acquired) or as found (otherwise).
	Record Record
	// Lease is set when Outcome is Acquired.
	Lease  *Lease
	Source Source
}

// Response is what Complete stores for replays.
type Response struct {
	Payload    string // JSON document
	HTTPStatus int
}

// Engine decides whether commands run, replay, wait or are refused.
type Engine struct {
	store    Store
	cfg      Config
	disabled bool
	clock    Clock
	log      *slog.Logger
	flights  flights
	cache    *lru.Cache[string, Record]
	// holder names this process in the records it claims; readCheckpoint
	// reads the handlers' checkpoints (see WithHolder, WithCheckpointReader).
	holder         string
	readCheckpoint func(operationType, progress string) (committed int, resumable bool)
}

// Option sets what an engine knows of the process it runs in.
type Option func(*Engine)

// WithHolder names this process in the records it claims
// (Record.LeaseHolder), so an operator can tell which instance runs a
// command; without it they are unnamed.
func WithHolder(name string) Option { return func(e *Engine) { e.holder = name } }

// WithCheckpointReader reads a record's checkpoint (Record.Progress) for
// Evict: how many messages it says are committed and whether the next
// attempt of the command resumes from it. Checkpoints are the handlers',
// opaque to the engine; without a reader every checkpoint reads as
// resumable, its count unknown (-1).
func WithCheckpointReader(read func(operationType, progress string) (committed int, resumable bool)) Option {
	return func(e *Engine) { e.readCheckpoint = read }
}

// New returns an engine over store. With deduplication off
// (cfg.Enabled false) the store is never used.
func New(store Store, cfg Config, log *slog.Logger, opts ...Option) (*Engine, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	e := &Engine{store: store, cfg: cfg, disabled: !cfg.Deduplicates(), clock: cfg.Clock, log: log, flights: flights{m: map[string]*flight{}},
		readCheckpoint: func(string, string) (int, bool) { return -1, true }}
	for _, opt := range opts {
		opt(e)
	}
	if cfg.LocalCacheSize > 0 {
		cache, err := lru.New[string, Record](cfg.LocalCacheSize)
		if err != nil {
			return nil, fmt.Errorf("idempotency local cache: %w", err)
		}
		e.cache = cache
	}
	if e.disabled {
		log.Warn("IDEMPOTENCY IS DISABLED: every command runs, duplicates included, and nothing is recorded",
			slog.String("setting", "idempotency.enabled=false"))
	} else if store == nil {
		return nil, errors.New("idempotency: a store is required unless idempotency is disabled")
	}
	return e, nil
}

// Config returns the engine's effective configuration.
func (e *Engine) Config() Config { return e.cfg }

// Deduplicates reports whether the engine deduplicates: false when
// idempotency is off and every command runs.
func (e *Engine) Deduplicates() bool { return !e.disabled }

// now is the clock at record precision (milliseconds), so what a store
// returns equals what the engine wrote.
func (e *Engine) now() time.Time { return e.clock.Now().UTC().Truncate(time.Millisecond) }

// TTL returns the record TTL for a request: its own or the default, clamped.
func (e *Engine) TTL(req Request) time.Duration {
	ttl := e.cfg.RecordTTL
	if req.ttlSet {
		ttl = req.ttl
	}
	return min(ttl, e.cfg.MaxRecordTTL)
}

const beginAttempts = 3

// Begin claims the command req names, or says why it may not run. Bad
// arguments return an *ArgumentError and write nothing; store failures
// return an error matching ErrStoreUnavailable and decide nothing.
func (e *Engine) Begin(ctx context.Context, req Request) (Result, error) {
	if err := req.validate(); err != nil {
		return Result{}, err
	}
	pk := req.PK()
	if e.disabled && req.decideOnly {
		return Result{Outcome: Claimable, Source: FromDisabled}, nil
	}
	if e.disabled {
		now := e.now()
		rec := Record{PK: pk, OperationType: req.OperationType, Tenant: req.Tenant, IdempotencyKey: req.IdempotencyKey,
			Status: StatusInProgress, RequestHash: req.RequestHash, CreatedAt: now, UpdatedAt: now,
			ExpiresAt: now.Add(e.TTL(req)), LeaseHolder: e.holder, Attempt: 1, Target: req.Target, TraceID: req.TraceID}
		return Result{Outcome: Acquired, Record: rec, Source: FromDisabled,
			Lease: &Lease{disabled: true, pk: pk, attempt: 1, startedAt: now}}, nil
	}
	if res, ok := e.fromCache(pk, req.RequestHash); ok {
		return res, nil
	}
	if req.decideOnly {
		return e.decide(ctx, req)
	}
	for {
		f, leader := e.flights.join(pk, req.RequestHash)
		if leader {
			return e.lead(ctx, req, f)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return Result{}, storeError("begin", context.Cause(ctx))
		}
		if f.err != nil {
			return Result{}, f.err
		}
		if f.held {
			// This process runs the command now: same hash waits, another is refused.
			out := InProgress
			if f.hash != req.RequestHash {
				out = Conflict
			}
			return Result{Outcome: out, Record: f.rec, Source: FromSingleFlight}, nil
		}
		if out, decided := classify(f.rec, req.RequestHash, e.now()); decided {
			return Result{Outcome: out, Record: f.rec, Source: FromSingleFlight}, nil
		}
		// The leader's answer does not decide ours (say, a FAILED record we may
		// retry): go to the store ourselves.
	}
}

// decide answers a DecideOnly request from the stored record, by the
// decision table a claim goes by; it writes nothing.
func (e *Engine) decide(ctx context.Context, req Request) (Result, error) {
	rec, ok, err := e.store.Get(ctx, req.PK())
	if err != nil {
		return Result{}, storeError("begin", err)
	}
	if ok {
		if out, decided := classify(rec, req.RequestHash, e.now()); decided {
			if out == Replay {
				e.remember(rec)
			}
			return Result{Outcome: out, Record: rec, Source: FromStore}, nil
		}
	}
	return Result{Outcome: Claimable, Source: FromStore}, nil
}

// lead performs the store round trip for the flight f it registered.
func (e *Engine) lead(ctx context.Context, req Request, f *flight) (res Result, err error) {
	defer func() {
		f.finish(res, err)
		if res.Outcome != Acquired {
			e.flights.end(f)
		}
	}()
	ttl := e.TTL(req)
	for range beginAttempts {
		now := e.now()
		claim := Claim{
			PK: req.PK(), OperationType: req.OperationType, Tenant: req.Tenant, IdempotencyKey: req.IdempotencyKey,
			RequestHash: req.RequestHash, LeaseToken: uuid.NewString(), LeaseHolder: e.holder, Now: now,
			ExpiresAt: now.Add(ttl), LeaseExpiresAt: e.recordedLeaseEnd(now),
			Target: req.Target, TraceID: req.TraceID, ReadOnly: req.ReadOnly,
		}
		rec, acquired, err := e.store.Begin(ctx, claim)
		if err != nil {
			return Result{}, storeError("begin", err)
		}
		if acquired {
			lease := &Lease{engine: e, flight: f, pk: claim.PK, token: claim.LeaseToken, attempt: rec.Attempt,
				progress: rec.Progress, ttl: ttl, startedAt: now, leaseUntil: e.holderLeaseEnd(rec), expiresAt: rec.ExpiresAt, written: rec}
			return Result{Outcome: Acquired, Record: rec, Lease: lease, Source: FromStore}, nil
		}
		if rec.PK == "" {
			continue // deleted between the write and the read: try again
		}
		if out, decided := classify(rec, req.RequestHash, now); decided {
			if out == Replay {
				e.remember(rec)
			}
			return Result{Outcome: out, Record: rec, Source: FromStore}, nil
		}
	}
	return Result{}, fmt.Errorf("begin %s: %w", req.PK(), ErrInconsistentState)
}

// classify applies the decision table to a stored record; decided is false
// when the record is one a claim with hash would acquire.
func classify(rec Record, hash string, now time.Time) (out Outcome, decided bool) {
	if rec.Expired(now) {
		return 0, false
	}
	if rec.RequestHash != hash {
		return Conflict, true
	}
	switch rec.Status {
	case StatusCompleted:
		return Replay, true
	case StatusInProgress:
		if rec.LeaseAlive(now) {
			return InProgress, true
		}
	}
	return 0, false
}

func (e *Engine) fromCache(pk, hash string) (Result, bool) {
	if e.cache == nil {
		return Result{}, false
	}
	rec, ok := e.cache.Get(pk)
	if !ok {
		return Result{}, false
	}
	if rec.Expired(e.now()) {
		e.cache.Remove(pk)
		return Result{}, false
	}
	out := Replay
	if rec.RequestHash != hash {
		out = Conflict
	}
	return Result{Outcome: out, Record: rec, Source: FromLocalCache}, true
}

func (e *Engine) remember(rec Record) {
	if e.cache != nil && rec.Status == StatusCompleted {
		e.cache.Add(rec.PK, rec)
	}
}

// Get reads the record of an operation type, tenant ("" for the implicit
// one) and key, or reports it absent (or expired).
func (e *Engine) Get(ctx context.Context, operationType, tenant, key string) (Record, bool, error) {
	if err := ValidateKey(key); err != nil {
		return Record{}, false, err
	}
	if e.disabled {
		return Record{}, false, nil
	}
	rec, ok, err := e.store.Get(ctx, PK(operationType, tenant, key))
	if err != nil {
		return Record{}, false, storeError("get", err)
	}
	if !ok || rec.Expired(e.now()) {
		return Record{}, false, nil
	}
	return rec, true, nil
}

// StoredResult reads the outcome recorded for an operation type, tenant and
// key (see Record.Stored), or reports it absent (or expired); errors are
// Get's. Readers that only need the outcome, such as the HTTP API's
// GET /tests/{id}, use it rather than the record.
func (e *Engine) StoredResult(ctx context.Context, operationType, tenant, key string) (result.Stored, bool, error) {
	rec, ok, err := e.Get(ctx, operationType, tenant, key)
	if err != nil || !ok {
		return result.Stored{}, false, err
	}
	return rec.Stored(), true, nil
}

// flights is the in-process single-flight: one store round trip per pk at a
// time, and no store round trip at all while this process holds the pk.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	pk   string
	hash string
	done chan struct{}
	// Set before done is closed.
	rec  Record
	err  error
	held bool // the leader acquired and still holds the lease
}

func (fs *flights) join(pk, hash string) (*flight, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[pk]; ok {
		return f, false
	}
	f := &flight{pk: pk, hash: hash, done: make(chan struct{})}
	fs.m[pk] = f
	return f, true
}

func (fs *flights) end(f *flight) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m[f.pk] == f {
		delete(fs.m, f.pk)
	}
}

func (f *flight) finish(res Result, err error) {
	f.rec, f.err, f.held = res.Record, err, err == nil && res.Outcome == Acquired
	close(f.done)
}
