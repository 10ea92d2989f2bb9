package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Factory returns an empty store for one test; the suite closes it.
type Factory func(t testing.TB) idempotency.Store

const (
	lease = 30 * time.Second
	// takeoverAfter is how long after its last renewal an engine's claim
	// can be taken over: its lease and the takeover grace (one more lease).
	takeoverAfter = 2 * lease
	hashA         = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	hashB         = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	opProd        = "PRODUCE"
	payload       = `{"enqueued":1000,"transactions":10}`
)

// fixture is one test's store, clock and engines. Each engine stands for a
// separate process: engines share the store and the clock but not their
// single-flight or cache.
type fixture struct {
	t     *testing.T
	store *Counting
	clock *Clock
	ctx   context.Context
}

func newFixture(t *testing.T, factory Factory) *fixture {
	store := factory(t)
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return &fixture{t: t, store: &Counting{Store: store},
		clock: NewClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)), ctx: context.Background()}
}

func (f *fixture) engine(mods ...func(*idempotency.Config)) *idempotency.Engine {
	f.t.Helper()
	return f.engineWith(mods)
}

// holding is an engine whose claims name holder.
func (f *fixture) holding(holder string) *idempotency.Engine {
	f.t.Helper()
	return f.engineWith(nil, idempotency.WithHolder(holder))
}

func (f *fixture) engineWith(mods []func(*idempotency.Config), opts ...idempotency.Option) *idempotency.Engine {
	f.t.Helper()
	cfg := idempotency.Config{Lease: lease, Clock: f.clock}
	for _, m := range mods {
		m(&cfg)
	}
	e, err := idempotency.New(f.store, cfg, nil, opts...)
	if err != nil {
		f.t.Fatalf("new engine: %v", err)
	}
	return e
}

func request(key, hash string) idempotency.Request {
	return idempotency.Request{OperationType: opProd, IdempotencyKey: key, RequestHash: hash,
		Target: "QM1:DEV.QUEUE.1", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"}
}

func newKey() string { return "key-" + uuid.NewString() }

func (f *fixture) begin(e *idempotency.Engine, req idempotency.Request, want idempotency.Outcome) idempotency.Result {
	f.t.Helper()
	res, err := e.Begin(f.ctx, req)
	if err != nil {
		f.t.Fatalf("Begin(%s): %v", req.PK(), err)
	}
	if res.Outcome != want {
		f.t.Fatalf("Begin(%s) = %s, want %s (record status %s, hash %.8s)", req.PK(), res.Outcome, want, res.Record.Status, res.Record.RequestHash)
	}
	return res
}

func (f *fixture) get(pk string) (idempotency.Record, bool) {
	f.t.Helper()
	rec, ok, err := f.store.Store.Get(f.ctx, pk)
	if err != nil {
		f.t.Fatalf("Get(%s): %v", pk, err)
	}
	return rec, ok
}

// Run runs the conformance suite against stores made by factory.
func Run(t *testing.T, factory Factory) {
	tests := []struct {
		name string
		fn   func(*testing.T, *fixture)
	}{
		{"FreshKeyAcquiredWithAllFields", testFresh},
		{"TenantsKeepEqualKeysApart", testTenants},
		{"InProgressSameHash", testInProgressSameHash},
		{"InProgressDifferentHashConflicts", testInProgressDifferentHash},
		{"TakeoverAfterLeaseExpiry", testTakeover},
		{"CompletedReplaysSameHash", testReplay},
		{"CompletedDifferentHashConflicts", testCompletedConflict},
		{"FailedRetriesSameHash", testFailedRetry},
		{"FailedDifferentHashConflicts", testFailedConflict},
		{"FailureResponseAndHolderRecorded", testFailureResponseAndHolder},
		{"ExpiredCountsAsAbsentThoughStored", testExpiredAbsent},
		{"ZombieIsFenced", testZombie},
		{"HeartbeatExtendsLease", testHeartbeat},
		{"HeartbeatKeepsRecordFromExpiring", testHeartbeatExtendsExpiry},
		{"CheckpointSurvivesTakeover", testCheckpoint},
		{"ReleaseAllowsImmediateTakeover", testRelease},
		{"TTLDefaultOverrideAndClamp", testTTL},
		{"BadInputWritesNothing", testBadInput},
		{"ConcurrentBeginsSameHash", testConcurrentSameHash},
		{"ConcurrentBeginsTwoHashes", testConcurrentTwoHashes},
		{"ConcurrentBeginsOfManyKeys", testConcurrentManyKeys},
		{"CleanupDeletesOnlyExpired", testCleanup},
		{"SingleFlightReachesStoreOnce", testSingleFlight},
		{"LocalCacheReplaysWithoutStore", testLocalCache},
		{"ListFiltersAndPages", testList},
		{"DeleteRemovesOneRecord", testDelete},
		{"DeleteSparesRenewedLease", testDeleteSparesRenewedLease},
		{"EvictRefusesLiveLeaseUnlessForced", testEvict},
		{"InspectAndListHideExpired", testInspectAndListThroughEngine},
		{"RecordAtDeclaredLimitIsStored", testRecordAtLimit},
		{"RecordOverLimitIsRefusedPermanently", testRecordOverLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newFixture(t, factory)) })
	}
}

func testFresh(t *testing.T, f *fixture) {
	key := newKey()
	now := f.clock.Now()
	res := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	if res.Source != idempotency.FromStore || res.Lease == nil {
		t.Fatalf("source %v lease %v, want store and a lease", res.Source, res.Lease)
	}
	stored, ok := f.get(opProd + "#" + key)
	if !ok {
		t.Fatal("no record stored")
	}
	for _, rec := range []idempotency.Record{res.Record, stored} {
		want := idempotency.Record{PK: opProd + "#" + key, OperationType: opProd, IdempotencyKey: key,
			Status: idempotency.StatusInProgress, RequestHash: hashA, CreatedAt: now, UpdatedAt: now,
			ExpiresAt: now.Add(24 * time.Hour), LeaseExpiresAt: now.Add(takeoverAfter), LeaseToken: rec.LeaseToken,
			Attempt: 1, Target: "QM1:DEV.QUEUE.1", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"}
		if rec.LeaseToken == "" {
			t.Error("empty lease token")
		}
		assertRecord(t, rec, want)
		if rec.TTL() != now.Add(24*time.Hour).Unix() {
			t.Errorf("ttl = %d, want epoch seconds %d", rec.TTL(), now.Add(24*time.Hour).Unix())
		}
	}
}

// testTenants: equal keys of the implicit tenant and of two named tenants
// are three records, each carrying its tenant, none replaying another.
func testTenants(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	for _, tenant := range []string{"", "team-a", "team-b"} {
		req := request(key, hashA)
		req.Tenant = tenant
		res := f.begin(e, req, idempotency.Acquired)
		if _, err := e.Complete(f.ctx, res.Lease, idempotency.Response{Payload: payload}); err != nil {
			t.Fatalf("Complete(%s): %v", req.PK(), err)
		}
	}
	for _, tenant := range []string{"", "team-a", "team-b"} {
		req := request(key, hashB)
		req.Tenant = tenant
		f.begin(e, req, idempotency.Conflict) // each tenant's own record decides
		stored, ok := f.get(req.PK())
		if !ok || stored.Tenant != tenant || stored.IdempotencyKey != key || stored.PK != req.PK() {
			t.Errorf("record of tenant %q: %+v (found %v)", tenant, stored, ok)
		}
	}
	if _, ok := f.get("PRODUCE@team-a#" + key); !ok {
		t.Errorf("no record under the documented pk PRODUCE@team-a#%s", key)
	}
}

func assertRecord(t *testing.T, got, want idempotency.Record) {
	t.Helper()
	g, w := fmt.Sprintf("%+v", normalize(got)), fmt.Sprintf("%+v", normalize(want))
	if g != w {
		t.Errorf("record\n got  %s\n want %s", g, w)
	}
}

func normalize(r idempotency.Record) idempotency.Record {
	for _, p := range []*time.Time{&r.CreatedAt, &r.UpdatedAt, &r.ExpiresAt, &r.LeaseExpiresAt} {
		*p = p.UTC()
	}
	return r
}

func testInProgressSameHash(t *testing.T, f *fixture) {
	key := newKey()
	first := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	f.clock.Advance(lease - time.Millisecond)
	res := f.begin(f.engine(), request(key, hashA), idempotency.InProgress)
	if res.Record.LeaseToken != first.Record.LeaseToken || res.Source != idempotency.FromStore {
		t.Errorf("in-progress answer should carry the holder's record from the store")
	}
}

func testInProgressDifferentHash(t *testing.T, f *fixture) {
	key := newKey()
	f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	f.begin(f.engine(), request(key, hashB), idempotency.Conflict)
	// Even once the holder's lease has run out, another body may not take it.
	f.clock.Advance(2 * lease)
	f.begin(f.engine(), request(key, hashB), idempotency.Conflict)
}

func testTakeover(t *testing.T, f *fixture) {
	key := newKey()
	first := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	f.clock.Advance(takeoverAfter)
	second := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	if second.Record.Attempt != 2 {
		t.Errorf("attempt = %d, want 2", second.Record.Attempt)
	}
	if second.Record.LeaseToken == first.Record.LeaseToken {
		t.Error("takeover kept the old lease token")
	}
	if !second.Record.CreatedAt.Equal(first.Record.CreatedAt) {
		t.Errorf("createdAt changed on takeover: %v -> %v", first.Record.CreatedAt, second.Record.CreatedAt)
	}
	if want := f.clock.Now().Add(takeoverAfter); !second.Record.LeaseExpiresAt.Equal(want) {
		t.Errorf("leaseExpiresAt = %v, want %v (lease and grace)", second.Record.LeaseExpiresAt, want)
	}
	f.clock.Advance(takeoverAfter)
	third := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	if third.Record.Attempt != 3 {
		t.Errorf("attempt = %d, want 3", third.Record.Attempt)
	}
}

func complete(t *testing.T, f *fixture, e *idempotency.Engine, res idempotency.Result) idempotency.Record {
	t.Helper()
	rec, err := e.Complete(f.ctx, res.Lease, idempotency.Response{Payload: payload, HTTPStatus: 201})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return rec
}

func testReplay(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	res := f.begin(e, request(key, hashA), idempotency.Acquired)
	f.clock.Advance(1500 * time.Millisecond)
	done := complete(t, f, e, res)
	if done.Status != idempotency.StatusCompleted || done.DurationMs != 1500 {
		t.Errorf("completed record: status %s durationMs %d, want COMPLETED 1500", done.Status, done.DurationMs)
	}
	f.clock.Advance(lease * 10)
	replay := f.begin(f.engine(), request(key, hashA), idempotency.Replay)
	if replay.Record.ResponsePayload != payload || replay.Record.HTTPStatus != 201 {
		t.Errorf("replayed %q/%d, want %q/201", replay.Record.ResponsePayload, replay.Record.HTTPStatus, payload)
	}
	if replay.Lease != nil {
		t.Error("a replay must not hand out a lease")
	}
}

func testCompletedConflict(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	complete(t, f, e, f.begin(e, request(key, hashA), idempotency.Acquired))
	res := f.begin(f.engine(), request(key, hashB), idempotency.Conflict)
	if res.Record.RequestHash != hashA {
		t.Errorf("conflict should report the stored hash")
	}
	if rec, _ := f.get(opProd + "#" + key); rec.Status != idempotency.StatusCompleted || rec.RequestHash != hashA {
		t.Errorf("conflict changed the record: %s %.8s", rec.Status, rec.RequestHash)
	}
}

func fail(t *testing.T, f *fixture, e *idempotency.Engine, res idempotency.Result) {
	t.Helper()
	if _, err := e.Fail(f.ctx, res.Lease, "MQRC_Q_MGR_NOT_AVAILABLE (2059)", idempotency.Response{}); err != nil {
		t.Fatalf("Fail: %v", err)
	}
}

func testFailedRetry(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	first := f.begin(e, request(key, hashA), idempotency.Acquired)
	fail(t, f, e, first)
	rec, _ := f.get(opProd + "#" + key)
	if rec.Status != idempotency.StatusFailed || rec.ErrorMessage != "MQRC_Q_MGR_NOT_AVAILABLE (2059)" {
		t.Errorf("failed record: %s %q", rec.Status, rec.ErrorMessage)
	}
	retry := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	if retry.Record.Attempt != 2 || retry.Record.ErrorMessage != "" || retry.Record.Status != idempotency.StatusInProgress {
		t.Errorf("retry: attempt %d status %s error %q, want 2 IN_PROGRESS and no error", retry.Record.Attempt, retry.Record.Status, retry.Record.ErrorMessage)
	}
}

// testFailureResponseAndHolder: a claim names its holder, a takeover names
// the new one, and a failure's response is stored until the retry that
// resumes from the checkpoint it kept.
func testFailureResponseAndHolder(t *testing.T, f *fixture) {
	key := newKey()
	pk := opProd + "#" + key
	holderA := f.holding("instance-a")
	first := f.begin(holderA, request(key, hashA), idempotency.Acquired)
	if first.Record.LeaseHolder != "instance-a" {
		t.Errorf("claim holder = %q, want instance-a", first.Record.LeaseHolder)
	}
	if err := holderA.Checkpoint(f.ctx, first.Lease, `{"committed":5000}`); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	failure := `{"status":"FAILED","progress":{"committed":5000}}`
	if _, err := holderA.Fail(f.ctx, first.Lease, "MQRC_Q_FULL (2053)", idempotency.Response{Payload: failure, HTTPStatus: 502}); err != nil {
		t.Fatalf("Fail with a response: %v", err)
	}
	rec, _ := f.get(pk)
	if rec.Status != idempotency.StatusFailed || rec.ResponsePayload != failure || rec.HTTPStatus != 502 ||
		rec.Progress != `{"committed":5000}` || rec.LeaseHolder != "instance-a" {
		t.Errorf("failed record: status %s payload %q http %d progress %q holder %q", rec.Status, rec.ResponsePayload, rec.HTTPStatus, rec.Progress, rec.LeaseHolder)
	}
	holderB := f.holding("instance-b")
	retry := f.begin(holderB, request(key, hashA), idempotency.Acquired)
	if retry.Record.LeaseHolder != "instance-b" || retry.Record.ResponsePayload != "" || retry.Record.HTTPStatus != 0 ||
		retry.Lease.Progress() != `{"committed":5000}` {
		t.Errorf("retry: holder %q payload %q http %d progress %q, want instance-b, no response, the checkpoint",
			retry.Record.LeaseHolder, retry.Record.ResponsePayload, retry.Record.HTTPStatus, retry.Lease.Progress())
	}
	if rec, _ := f.get(pk); rec.LeaseHolder != "instance-b" {
		t.Errorf("stored holder after retry = %q, want instance-b", rec.LeaseHolder)
	}
}

func testFailedConflict(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	fail(t, f, e, f.begin(e, request(key, hashA), idempotency.Acquired))
	f.begin(f.engine(), request(key, hashB), idempotency.Conflict)
}

func testExpiredAbsent(t *testing.T, f *fixture) {
	for _, status := range []idempotency.Status{idempotency.StatusInProgress, idempotency.StatusCompleted, idempotency.StatusFailed} {
		for _, hash := range []string{hashA, hashB} {
			key := newKey()
			e := f.engine()
			res := f.begin(e, request(key, hashA).WithTTL(time.Minute), idempotency.Acquired)
			switch status {
			case idempotency.StatusCompleted:
				complete(t, f, e, res)
			case idempotency.StatusFailed:
				fail(t, f, e, res)
			}
			f.clock.Advance(time.Minute)
			if _, ok := f.get(opProd + "#" + key); !ok {
				t.Fatalf("%s: expired record should still be stored until cleanup", status)
			}
			again := f.begin(f.engine(), request(key, hash), idempotency.Acquired)
			if again.Record.Attempt != 1 || again.Record.RequestHash != hash || again.Record.Progress != "" {
				t.Errorf("%s then %.4s: attempt %d hash %.4s progress %q, want a fresh record", status, hash, again.Record.Attempt, again.Record.RequestHash, again.Record.Progress)
			}
			if !again.Record.CreatedAt.Equal(f.clock.Now()) {
				t.Errorf("%s: createdAt %v, want now %v", status, again.Record.CreatedAt, f.clock.Now())
			}
		}
	}
}

func testZombie(t *testing.T, f *fixture) {
	ops := map[string]func(*idempotency.Engine, *idempotency.Lease) error{
		"Heartbeat":  func(e *idempotency.Engine, l *idempotency.Lease) error { return e.Heartbeat(f.ctx, l) },
		"Checkpoint": func(e *idempotency.Engine, l *idempotency.Lease) error { return e.Checkpoint(f.ctx, l, "999") },
		"Complete": func(e *idempotency.Engine, l *idempotency.Lease) error {
			_, err := e.Complete(f.ctx, l, idempotency.Response{Payload: `{"zombie":true}`})
			return err
		},
		"Fail": func(e *idempotency.Engine, l *idempotency.Lease) error {
			_, err := e.Fail(f.ctx, l, "late", idempotency.Response{})
			return err
		},
		"Release": func(e *idempotency.Engine, l *idempotency.Lease) error { return e.Release(f.ctx, l) },
	}
	for name, op := range ops {
		key := newKey()
		zombieEngine := f.engine()
		zombie := f.begin(zombieEngine, request(key, hashA), idempotency.Acquired)
		f.clock.Advance(takeoverAfter + time.Second)
		winnerEngine := f.engine()
		winner := f.begin(winnerEngine, request(key, hashA), idempotency.Acquired)
		before, _ := f.get(opProd + "#" + key)
		if err := op(zombieEngine, zombie.Lease); !errors.Is(err, idempotency.ErrLeaseLost) {
			t.Errorf("zombie %s: err = %v, want ErrLeaseLost", name, err)
		}
		after, _ := f.get(opProd + "#" + key)
		assertRecord(t, after, before)
		if _, err := winnerEngine.Complete(f.ctx, winner.Lease, idempotency.Response{Payload: payload}); err != nil {
			t.Errorf("winner Complete after zombie %s: %v", name, err)
		}
	}
}

func testHeartbeat(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	res := f.begin(e, request(key, hashA), idempotency.Acquired)
	f.clock.Advance(lease * 2 / 3)
	if err := e.Heartbeat(f.ctx, res.Lease); err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	if want := f.clock.Now().Add(lease); !res.Lease.Until().Equal(want) {
		t.Errorf("lease until %v, want %v", res.Lease.Until(), want)
	}
	f.clock.Advance(lease * 2 / 3) // past the original lease, inside the renewed one
	f.begin(f.engine(), request(key, hashA), idempotency.InProgress)
	f.clock.Advance(lease / 3)
	f.begin(f.engine(), request(key, hashA), idempotency.InProgress) // the takeover grace
	f.clock.Advance(lease)
	f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
}

func testHeartbeatExtendsExpiry(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	res := f.begin(e, request(key, hashA).WithTTL(time.Minute), idempotency.Acquired)
	for range 6 { // three minutes of heartbeats on a one-minute record
		f.clock.Advance(lease)
		if err := e.Heartbeat(f.ctx, res.Lease); err != nil {
			t.Fatalf("Heartbeat: %v", err)
		}
	}
	f.begin(f.engine(), request(key, hashA), idempotency.InProgress)
	f.begin(f.engine(), request(key, hashB), idempotency.Conflict)
	rec := complete(t, f, e, res)
	if want := f.clock.Now().Add(time.Minute); !rec.ExpiresAt.Equal(want) {
		t.Errorf("completed expiresAt %v, want TTL counted from completion %v", rec.ExpiresAt, want)
	}
}

func testCheckpoint(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	res := f.begin(e, request(key, hashA), idempotency.Acquired)
	if err := e.Checkpoint(f.ctx, res.Lease, `{"committed":500}`); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	f.clock.Advance(takeoverAfter)
	next := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	if next.Lease.Progress() != `{"committed":500}` || next.Lease.Attempt() != 2 {
		t.Errorf("takeover progress %q attempt %d, want the checkpoint and attempt 2", next.Lease.Progress(), next.Lease.Attempt())
	}
}

func testRelease(t *testing.T, f *fixture) {
	key := newKey()
	e := f.engine()
	res := f.begin(e, request(key, hashA), idempotency.Acquired)
	if err := e.Release(f.ctx, res.Lease); err != nil {
		t.Fatalf("Release: %v", err)
	}
	next := f.begin(f.engine(), request(key, hashA), idempotency.Acquired)
	if next.Record.Attempt != 2 {
		t.Errorf("attempt = %d, want 2", next.Record.Attempt)
	}
	if err := e.Heartbeat(f.ctx, res.Lease); !errors.Is(err, idempotency.ErrLeaseLost) {
		t.Errorf("heartbeat after release: %v, want ErrLeaseLost", err)
	}
}

func testTTL(t *testing.T, f *fixture) {
	e := f.engine(func(c *idempotency.Config) { c.MaxRecordTTL = 48 * time.Hour })
	now := f.clock.Now()
	for _, tc := range []struct {
		req  idempotency.Request
		want time.Duration
	}{
		{request(newKey(), hashA), 24 * time.Hour},
		{request(newKey(), hashA).WithTTL(90 * time.Second), 90 * time.Second},
		{request(newKey(), hashA).WithTTL(100 * 24 * time.Hour), 48 * time.Hour},
	} {
		res := f.begin(e, tc.req, idempotency.Acquired)
		if want := now.Add(tc.want); !res.Record.ExpiresAt.Equal(want) {
			t.Errorf("expiresAt %v, want %v", res.Record.ExpiresAt, want)
		}
		if stored, _ := f.get(tc.req.PK()); stored.TTL() != now.Add(tc.want).Unix() {
			t.Errorf("stored ttl %d, want %d", stored.TTL(), now.Add(tc.want).Unix())
		}
	}
}

func testBadInput(t *testing.T, f *fixture) {
	e := f.engine()
	for _, tc := range []struct {
		name string
		req  idempotency.Request
		arg  string
		key  bool
	}{
		{"empty key", request("", hashA), idempotency.ArgIdempotencyKey, true},
		{"long key", request(strings.Repeat("k", 256), hashA), idempotency.ArgIdempotencyKey, true},
		{"control character", request("bad\nkey", hashA), idempotency.ArgIdempotencyKey, true},
		{"non-ASCII", request("clé", hashA), idempotency.ArgIdempotencyKey, true},
		{"empty hash", request(newKey(), ""), idempotency.ArgRequestHash, false},
		{"zero ttl", request(newKey(), hashA).WithTTL(0), idempotency.ArgTTL, false},
		{"negative ttl", request(newKey(), hashA).WithTTL(-time.Second), idempotency.ArgTTL, false},
		{"empty operation", idempotency.Request{IdempotencyKey: newKey(), RequestHash: hashA}, idempotency.ArgOperationType, false},
	} {
		_, err := e.Begin(f.ctx, tc.req)
		var argErr *idempotency.ArgumentError
		if !errors.As(err, &argErr) || argErr.Arg != tc.arg {
			t.Errorf("%s: err = %v, want an ArgumentError naming %s", tc.name, err, tc.arg)
			continue
		}
		if !errors.Is(err, idempotency.ErrInvalidArgument) || errors.Is(err, idempotency.ErrInvalidKey) != tc.key {
			t.Errorf("%s: error kinds wrong: %v", tc.name, err)
		}
	}
	if n := f.store.Calls(); n != 0 {
		t.Errorf("bad input reached the store %d times", n)
	}
	if _, err := e.Begin(f.ctx, request(strings.Repeat("k", 255), hashA)); err != nil {
		t.Errorf("a 255-character key must be accepted: %v", err)
	}
}

// concurrentBegins runs n Begins on one key, each from its own engine (its
// own process), and counts the outcomes per hash.
func concurrentBegins(t *testing.T, f *fixture, n int, hashOf func(i int) string) map[string]map[idempotency.Outcome]int {
	key := newKey()
	engines := make([]*idempotency.Engine, n)
	for i := range engines {
		engines[i] = f.engine()
	}
	var (
		mu     sync.Mutex
		counts = map[string]map[idempotency.Outcome]int{}
		wg     sync.WaitGroup
		start  = make(chan struct{})
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := engines[i].Begin(f.ctx, request(key, hashOf(i)))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("Begin: %v", err)
				return
			}
			if counts[hashOf(i)] == nil {
				counts[hashOf(i)] = map[idempotency.Outcome]int{}
			}
			counts[hashOf(i)][res.Outcome]++
		}()
	}
	close(start)
	wg.Wait()
	return counts
}

func testConcurrentSameHash(t *testing.T, f *fixture) {
	counts := concurrentBegins(t, f, 64, func(int) string { return hashA })[hashA]
	if counts[idempotency.Acquired] != 1 || counts[idempotency.InProgress] != 63 {
		t.Errorf("outcomes %v, want exactly 1 acquired and 63 in progress", counts)
	}
}

func testConcurrentTwoHashes(t *testing.T, f *fixture) {
	counts := concurrentBegins(t, f, 64, func(i int) string {
		if i%2 == 0 {
			return hashA
		}
		return hashB
	})
	winner, loser := hashA, hashB
	if counts[hashB][idempotency.Acquired] == 1 {
		winner, loser = hashB, hashA
	}
	w, l := counts[winner], counts[loser]
	if w[idempotency.Acquired] != 1 || w[idempotency.InProgress] != 31 || len(w) != 2 {
		t.Errorf("winning hash outcomes %v, want 1 acquired and 31 in progress", w)
	}
	if l[idempotency.Conflict] != 32 || len(l) != 1 {
		t.Errorf("losing hash outcomes %v, want 32 conflicts", l)
	}
}

// testConcurrentManyKeys: three processes begin each of many keys at the
// same moment, as three instances sharing a queue receive a command's
// copies; each key is acquired exactly once. One race on one key can miss
// a store whose condition check and write are two steps (moto 5 acquired
// 48 of 300 keys twice); many keys find it.
func testConcurrentManyKeys(t *testing.T, f *fixture) {
	const keys, processes = 100, 3
	engines := make([]*idempotency.Engine, processes)
	for i := range engines {
		engines[i] = f.engine()
	}
	twice := 0
	for range keys {
		key := newKey()
		var (
			wg       sync.WaitGroup
			acquired atomic.Int32
			start    = make(chan struct{})
		)
		for _, e := range engines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res, err := e.Begin(f.ctx, request(key, hashA))
				if err != nil {
					t.Errorf("Begin %s: %v", key, err)
					return
				}
				if res.Outcome == idempotency.Acquired {
					acquired.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		switch n := acquired.Load(); {
		case n == 0:
			t.Errorf("key %s: no process acquired it", key)
		case n > 1:
			twice++
		}
	}
	if twice > 0 {
		t.Errorf("%d of %d keys acquired by more than one of %d processes at once", twice, keys, processes)
	}
}

func testCleanup(t *testing.T, f *fixture) {
	e := f.engine()
	var short, long []string
	for i := range 6 {
		req := request(newKey(), hashA).WithTTL(time.Minute)
		if i%2 == 1 {
			req = req.WithTTL(time.Hour)
			long = append(long, req.PK())
		} else {
			short = append(short, req.PK())
		}
		res := f.begin(e, req, idempotency.Acquired)
		if i < 3 {
			complete(t, f, e, res)
		}
	}
	f.clock.Advance(time.Minute)
	n, err := e.Cleanup(f.ctx)
	if err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if n != int64(len(short)) {
		t.Errorf("deleted %d, want %d", n, len(short))
	}
	for _, pk := range short {
		if _, ok := f.get(pk); ok {
			t.Errorf("%s expired but was kept", pk)
		}
	}
	for _, pk := range long {
		if _, ok := f.get(pk); !ok {
			t.Errorf("%s not expired but was deleted", pk)
		}
	}
	// Repeated and concurrent runs are harmless.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if n, err := e.Cleanup(f.ctx); err != nil || n != 0 {
				t.Errorf("repeated cleanup: n=%d err=%v", n, err)
			}
		}()
	}
	wg.Wait()
}

func testSingleFlight(t *testing.T, f *fixture) {
	release := make(chan struct{})
	f.store.BeforeBegin = func(idempotency.Claim) error { <-release; return nil }
	e := f.engine()
	key := newKey()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results = map[idempotency.Outcome]int{}
		sources = map[idempotency.Source]int{}
	)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.Begin(f.ctx, request(key, hashA))
			if err != nil {
				t.Errorf("Begin: %v", err)
				return
			}
			mu.Lock()
			results[res.Outcome]++
			sources[res.Source]++
			mu.Unlock()
		}()
	}
	close(release)
	wg.Wait()
	if got := f.store.Begins.Load(); got != 1 {
		t.Errorf("store Begin calls = %d, want 1", got)
	}
	if results[idempotency.Acquired] != 1 || results[idempotency.InProgress] != 63 || sources[idempotency.FromSingleFlight] != 63 {
		t.Errorf("outcomes %v sources %v, want 1 acquired and 63 in progress from single-flight", results, sources)
	}
	before := f.store.Calls()
	f.begin(e, request(key, hashB), idempotency.Conflict)
	if f.store.Calls() != before {
		t.Error("a conflicting copy in flight reached the store")
	}
}

func testLocalCache(t *testing.T, f *fixture) {
	e := f.engine(func(c *idempotency.Config) { c.LocalCacheSize = 16 })
	key := newKey()
	complete(t, f, e, f.begin(e, request(key, hashA).WithTTL(time.Minute), idempotency.Acquired))
	before := f.store.Calls()
	res := f.begin(e, request(key, hashA), idempotency.Replay)
	f.begin(e, request(key, hashB), idempotency.Conflict)
	if res.Source != idempotency.FromLocalCache || res.Record.ResponsePayload != payload {
		t.Errorf("replay source %v payload %q, want the local cache's", res.Source, res.Record.ResponsePayload)
	}
	if calls := f.store.Calls() - before; calls != 0 {
		t.Errorf("cached duplicates made %d store calls, want 0", calls)
	}
	// Replays found in the store warm the cache of another process.
	other := f.engine(func(c *idempotency.Config) { c.LocalCacheSize = 16 })
	f.begin(other, request(key, hashA), idempotency.Replay)
	before = f.store.Calls()
	f.begin(other, request(key, hashA), idempotency.Replay)
	if f.store.Calls() != before {
		t.Error("second replay in another process was not cached")
	}
	// The cache never outlives the record.
	f.clock.Advance(time.Minute)
	f.begin(e, request(key, hashA), idempotency.Acquired)
}
