package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// put writes a record of operation op, tenant and a fresh key with one
// Begin at the fixture's clock, then moves it to status; it returns the
// stored record.
func (f *fixture) put(op, tenant string, status idempotency.Status, ttl time.Duration) idempotency.Record {
	f.t.Helper()
	return f.putTarget(op, tenant, "", status, ttl)
}

// putTarget is put of a command against target ("QM1:DEV.QUEUE.1").
func (f *fixture) putTarget(op, tenant, target string, status idempotency.Status, ttl time.Duration) idempotency.Record {
	f.t.Helper()
	key := newKey()
	now := f.clock.Now()
	c := idempotency.Claim{PK: idempotency.PK(op, tenant, key), OperationType: op, Tenant: tenant, IdempotencyKey: key,
		RequestHash: hashA, LeaseToken: "token-" + key, Now: now, ExpiresAt: now.Add(ttl), LeaseExpiresAt: now.Add(lease),
		Target: target}
	rec, ok, err := f.store.Begin(f.ctx, c)
	if err != nil || !ok {
		f.t.Fatalf("Begin(%s) = %v, %v", c.PK, ok, err)
	}
	u := idempotency.Update{Now: now}
	switch status {
	case idempotency.StatusCompleted:
		u.Kind, u.ResponsePayload, u.HTTPStatus = idempotency.UpdateComplete, payload, 201
	case idempotency.StatusFailed:
		u.Kind, u.ErrorMessage = idempotency.UpdateFail, "MQRC 2085"
	default:
		return rec
	}
	if rec, err = f.store.Update(f.ctx, c.PK, c.LeaseToken, u); err != nil {
		f.t.Fatalf("Update(%s): %v", c.PK, err)
	}
	return rec
}

// listAll pages through q with pages of pageSize and returns the pks seen
// in order, failing on a page over its limit, a pk seen twice or a record
// out of newest-first order in a page that is not scanned. The records it lists must have been updated
// at distinct instants: DynamoDB's indexes order ties as they please.
func (f *fixture) listAll(q idempotency.ListQuery, pageSize int) listing {
	f.t.Helper()
	q.Limit = pageSize
	var (
		pks     []string
		last    idempotency.Record
		scanned bool
	)
	for range 200 {
		page, err := f.store.List(f.ctx, q)
		if err != nil {
			f.t.Fatalf("List(%+v): %v", q, err)
		}
		if len(page.Records) > pageSize {
			f.t.Fatalf("page of %d records, limit %d", len(page.Records), pageSize)
		}
		for _, r := range page.Records {
			if slices.Contains(pks, r.PK) {
				f.t.Fatalf("%s listed twice", r.PK)
			}
			if len(pks) > 0 && !page.Scanned && !newerThan(last, r) {
				f.t.Errorf("%s (updated %s) listed after %s (updated %s): want newest first", r.PK, r.UpdatedAt, last.PK, last.UpdatedAt)
			}
			last = r
			if !q.Matches(r) {
				f.t.Errorf("%s (%s, %s, tenant %q, updated %s) does not match %+v", r.PK, r.Status, r.OperationType, r.Tenant, r.UpdatedAt, q)
			}
			pks = append(pks, r.PK)
		}
		scanned = scanned || page.Scanned
		if page.Next == "" {
			return listing{pks: pks, scanned: scanned}
		}
		q.After = page.Next
	}
	f.t.Fatal("List never ended")
	return listing{}
}

// listing is what listAll saw: the pks in order, and whether a page was
// scanned (DynamoDB without an index for the filter: table order).
type listing struct {
	pks     []string
	scanned bool
}

// newerThan reports whether a comes before b in a listing: newest first,
// by pk among records updated at the same instant.
func newerThan(a, b idempotency.Record) bool { return idempotency.Newer(a, b) < 0 }

func sorted(pks []string) []string {
	out := slices.Clone(pks)
	slices.Sort(out)
	return out
}

func assertListed(t *testing.T, what string, got []string, want ...idempotency.Record) {
	t.Helper()
	var wantPKs []string
	for _, r := range want {
		wantPKs = append(wantPKs, r.PK)
	}
	if g, w := sorted(got), sorted(wantPKs); !slices.Equal(g, w) {
		t.Errorf("%s listed\n %v\nwant\n %v", what, g, w)
	}
}

// testList: every filter alone and combined selects exactly its records,
// newest first, across pages of several sizes, each record once, all
// fields intact.
func testList(t *testing.T, f *fixture) {
	// Each record a millisecond after the last: the order is then one.
	put := func(op, tenant, target string, status idempotency.Status, ttl time.Duration) idempotency.Record {
		t.Helper()
		f.clock.Advance(time.Millisecond)
		return f.putTarget(op, tenant, target, status, ttl)
	}
	const queue1, queue2, otherQM = "QM1:DEV.QUEUE.1", "QM1:DEV.QUEUE.2", "QM10:DEV.QUEUE.1"
	stuck := put(opProd, "", queue1, idempotency.StatusInProgress, time.Hour)
	oldDone := put("DEPTH", "", queue2, idempotency.StatusCompleted, time.Hour)
	expired := put(opProd, "", queue1, idempotency.StatusFailed, 5*time.Minute)
	f.clock.Advance(10 * time.Minute)
	cutoff := f.clock.Now()
	running := put(opProd, "", otherQM, idempotency.StatusInProgress, time.Hour)
	failed := put(opProd, "", "", idempotency.StatusFailed, time.Hour)
	done := put(opProd, "", queue1, idempotency.StatusCompleted, time.Hour)
	teamRunning := put(opProd, "team-a", queue1, idempotency.StatusInProgress, time.Hour)
	teamDepth := put("DEPTH", "team-a", "QM1:", idempotency.StatusCompleted, time.Hour)
	otherTeam := put(opProd, "team-b", queue2, idempotency.StatusCompleted, time.Hour)
	now := f.clock.Now()

	// Newest first: the reverse of the order they were written in.
	all := idempotency.ListQuery{AllTenants: true}
	everything := []idempotency.Record{otherTeam, teamDepth, teamRunning, done, failed, running, expired, oldDone, stuck}
	assertOrder(t, "everything", f.listAll(all, 1000), everything...)
	for _, size := range []int{1, 2, 4} {
		assertOrder(t, "everything, paged", f.listAll(all, size), everything...)
	}
	assertOrder(t, "implicit tenant", f.listAll(idempotency.ListQuery{}, 3), done, failed, running, expired, oldDone, stuck)
	assertOrder(t, "team-a", f.listAll(idempotency.ListQuery{Tenant: "team-a"}, 3), teamDepth, teamRunning)
	assertListed(t, "live", f.listAll(idempotency.ListQuery{AllTenants: true, LiveAt: now}, 3).pks,
		stuck, oldDone, running, failed, done, teamRunning, teamDepth, otherTeam)
	assertOrder(t, "IN_PROGRESS", f.listAll(idempotency.ListQuery{AllTenants: true, Status: idempotency.StatusInProgress}, 2),
		teamRunning, running, stuck)
	assertListed(t, "DEPTH", f.listAll(idempotency.ListQuery{AllTenants: true, OperationType: "DEPTH"}, 2).pks, oldDone, teamDepth)
	assertListed(t, "updated before the cutoff", f.listAll(idempotency.ListQuery{AllTenants: true, UpdatedBefore: cutoff}, 2).pks,
		stuck, oldDone, expired)
	assertListed(t, "stuck: IN_PROGRESS, untouched since the cutoff, live",
		f.listAll(idempotency.ListQuery{Status: idempotency.StatusInProgress, UpdatedBefore: cutoff, LiveAt: now}, 2).pks, stuck)
	assertListed(t, "implicit COMPLETED PRODUCE",
		f.listAll(idempotency.ListQuery{Status: idempotency.StatusCompleted, OperationType: opProd}, 1).pks, done)
	assertListed(t, "team-b FAILED", f.listAll(idempotency.ListQuery{Tenant: "team-b", Status: idempotency.StatusFailed}, 5).pks)

	// By target: a queue, or every queue of a queue manager (not QM10's).
	assertOrder(t, "QM1:DEV.QUEUE.1, every tenant",
		f.listAll(idempotency.ListQuery{AllTenants: true, QueueManager: "QM1", Queue: "DEV.QUEUE.1"}, 2), teamRunning, done, expired, stuck)
	assertOrder(t, "QM1:DEV.QUEUE.1, implicit tenant, live",
		f.listAll(idempotency.ListQuery{QueueManager: "QM1", Queue: "DEV.QUEUE.1", LiveAt: now}, 1), done, stuck)
	assertOrder(t, "QM1:DEV.QUEUE.1, COMPLETED",
		f.listAll(idempotency.ListQuery{AllTenants: true, QueueManager: "QM1", Queue: "DEV.QUEUE.1", Status: idempotency.StatusCompleted}, 1), done)
	assertOrder(t, "QM1, every tenant", f.listAll(idempotency.ListQuery{AllTenants: true, QueueManager: "QM1"}, 3),
		otherTeam, teamDepth, teamRunning, done, expired, oldDone, stuck)
	assertOrder(t, "QM1, team-a", f.listAll(idempotency.ListQuery{Tenant: "team-a", QueueManager: "QM1"}, 1), teamDepth, teamRunning)
	assertOrder(t, "QM10", f.listAll(idempotency.ListQuery{QueueManager: "QM10"}, 2), running)
	assertOrder(t, "QM1:NO.SUCH.QUEUE", f.listAll(idempotency.ListQuery{AllTenants: true, QueueManager: "QM1", Queue: "NO.SUCH.QUEUE"}, 2))

	// By time: updated at or after since, before until.
	since, until := running.UpdatedAt, teamDepth.UpdatedAt
	assertOrder(t, "since running, until teamDepth",
		f.listAll(idempotency.ListQuery{AllTenants: true, Since: since, Until: until}, 2), teamRunning, done, failed, running)
	assertOrder(t, "since running, implicit tenant, QM1",
		f.listAll(idempotency.ListQuery{QueueManager: "QM1", Since: since}, 2), done)
	assertOrder(t, "until the cutoff, team-a", f.listAll(idempotency.ListQuery{Tenant: "team-a", Until: cutoff}, 2))
	assertOrder(t, "since running, updated before the cutoff", f.listAll(idempotency.ListQuery{Since: since, UpdatedBefore: cutoff}, 2))
	assertOrder(t, "since running, team-a, IN_PROGRESS",
		f.listAll(idempotency.ListQuery{Tenant: "team-a", Status: idempotency.StatusInProgress, Since: since}, 2), teamRunning)

	// Records come back whole.
	page, err := f.store.List(f.ctx, idempotency.ListQuery{Tenant: "team-a", OperationType: "DEPTH", Limit: 10})
	if err != nil || len(page.Records) != 1 {
		t.Fatalf("List = %d records, %v", len(page.Records), err)
	}
	assertRecord(t, page.Records[0], teamDepth)
	if page.Next != "" {
		// A store may stop early, but not after a page that holds all there is.
		if rest, err := f.store.List(f.ctx, idempotency.ListQuery{Tenant: "team-a", OperationType: "DEPTH", Limit: 10, After: page.Next}); err != nil || len(rest.Records) != 0 {
			t.Errorf("page after the only match: %d records, %v", len(rest.Records), err)
		}
	}
	// A page is full unless the data ends: an indexed filter needs no short pages.
	page, err = f.store.List(f.ctx, idempotency.ListQuery{AllTenants: true, QueueManager: "QM1", Queue: "DEV.QUEUE.1", Limit: 3})
	if err != nil || len(page.Records) != 3 || page.Next == "" {
		t.Errorf("List of 3 of the 4 QM1:DEV.QUEUE.1 records = %d records, next %q, %v; want a full page and a cursor", len(page.Records), page.Next, err)
	}
	if _, err := f.store.List(f.ctx, idempotency.ListQuery{AllTenants: true, After: "not a cursor of this store"}); !errors.Is(err, idempotency.ErrInvalidCursor) {
		t.Errorf("List after a forged cursor = %v, want ErrInvalidCursor", err)
	}
}

// assertOrder: got lists exactly want's records, in want's order unless
// it was scanned.
func assertOrder(t *testing.T, what string, l listing, want ...idempotency.Record) {
	t.Helper()
	if l.scanned {
		assertListed(t, what+" (scanned)", l.pks, want...)
		return
	}
	got := l.pks
	wantPKs := []string{}
	for _, r := range want {
		wantPKs = append(wantPKs, r.PK)
	}
	if got == nil {
		got = []string{}
	}
	if !slices.Equal(got, wantPKs) {
		t.Errorf("%s listed\n %v\nwant, newest first,\n %v", what, got, wantPKs)
	}
}

// testDelete: Delete removes exactly one record, reports whether it did,
// and without Force spares a record claimed since, or one whose lease is
// alive at the instant given.
func testDelete(t *testing.T, f *fixture) {
	victim := f.put(opProd, "", idempotency.StatusInProgress, time.Hour)
	neighbour := f.put(opProd, "", idempotency.StatusCompleted, time.Hour)
	now := f.clock.Now()
	deleted, err := f.store.Delete(f.ctx, idempotency.Deletion{PK: victim.PK, Now: now, Force: true})
	if err != nil || !deleted {
		t.Fatalf("forced Delete(%s) of a live lease = %v, %v; want deleted", victim.PK, deleted, err)
	}
	if _, ok := f.get(victim.PK); ok {
		t.Errorf("%s still stored after Delete", victim.PK)
	}
	if _, ok := f.get(neighbour.PK); !ok {
		t.Errorf("Delete(%s) removed %s as well", victim.PK, neighbour.PK)
	}
	if deleted, err := f.store.Delete(f.ctx, idempotency.Deletion{PK: victim.PK, Now: now, Force: true}); err != nil || deleted {
		t.Errorf("second Delete = %v, %v; want nothing deleted", deleted, err)
	}

	stale := idempotency.Deletion{PK: neighbour.PK, LeaseToken: "token-of-an-older-claim", Now: now}
	if deleted, err := f.store.Delete(f.ctx, stale); err != nil || deleted {
		t.Errorf("Delete with a stale token = %v, %v; want nothing deleted", deleted, err)
	}
	if _, ok := f.get(neighbour.PK); !ok {
		t.Fatalf("Delete with a stale token removed %s", neighbour.PK)
	}
	if deleted, err := f.store.Delete(f.ctx, idempotency.Deletion{PK: neighbour.PK, LeaseToken: neighbour.LeaseToken, Now: now}); err != nil || !deleted {
		t.Errorf("Delete of a COMPLETED record with its token = %v, %v; want deleted", deleted, err)
	}
	if deleted, err := f.store.Delete(f.ctx, idempotency.Deletion{PK: "PRODUCE#never-written", LeaseToken: "some-token", Now: now}); err != nil || deleted {
		t.Errorf("Delete of an absent pk with a token = %v, %v; want nothing deleted", deleted, err)
	}

	running := f.put(opProd, "", idempotency.StatusInProgress, time.Hour)
	byToken := idempotency.Deletion{PK: running.PK, LeaseToken: running.LeaseToken, Now: f.clock.Now()}
	if deleted, err := f.store.Delete(f.ctx, byToken); err != nil || deleted {
		t.Errorf("Delete of an IN_PROGRESS record with a live lease = %v, %v; want nothing deleted", deleted, err)
	}
	f.clock.Advance(lease)
	byToken.Now = f.clock.Now()
	if deleted, err := f.store.Delete(f.ctx, byToken); err != nil || !deleted {
		t.Errorf("Delete of an IN_PROGRESS record whose lease expired = %v, %v; want deleted", deleted, err)
	}
}

// testDeleteSparesRenewedLease: a holder that heartbeats after the caller
// read its expired lease keeps its record (the token is unchanged, so the
// token alone would not fence it) and keeps running, checkpoint and all.
func testDeleteSparesRenewedLease(t *testing.T, f *fixture) {
	slow := f.put(opProd, "", idempotency.StatusInProgress, time.Hour)
	f.clock.Advance(lease + time.Second) // the holder is late: the lease ran out
	read, _ := f.get(slow.PK)
	if read.LeaseAlive(f.clock.Now()) {
		t.Fatal("test setup: the lease should have expired")
	}
	progress := `{"committed":200}`
	renewed, err := f.store.Update(f.ctx, slow.PK, slow.LeaseToken, idempotency.Update{Kind: idempotency.UpdateHeartbeat,
		Now: f.clock.Now(), LeaseExpiresAt: f.clock.Now().Add(lease), Progress: &progress})
	if err != nil {
		t.Fatalf("late heartbeat: %v", err)
	}
	d := idempotency.Deletion{PK: read.PK, LeaseToken: read.LeaseToken, Now: f.clock.Now()}
	if deleted, err := f.store.Delete(f.ctx, d); err != nil || deleted {
		t.Fatalf("Delete after the holder renewed = %v, %v; want nothing deleted", deleted, err)
	}
	if got, ok := f.get(slow.PK); !ok || got.Progress != progress || !got.LeaseExpiresAt.Equal(renewed.LeaseExpiresAt) {
		t.Fatalf("renewed record after Delete: %+v (stored %v), want it kept with its checkpoint", got, ok)
	}

	// Through the engine: the heartbeat lands between Evict's read and its
	// delete, and Evict reports the record changed.
	e := f.engine()
	late := f.put(opProd, "", idempotency.StatusInProgress, time.Hour)
	f.clock.Advance(lease + time.Second)
	f.store.BeforeDelete = func(idempotency.Deletion) error {
		_, err := f.store.Update(f.ctx, late.PK, late.LeaseToken, idempotency.Update{Kind: idempotency.UpdateHeartbeat,
			Now: f.clock.Now(), LeaseExpiresAt: f.clock.Now().Add(lease)})
		return err
	}
	_, err = e.Evict(f.ctx, idempotency.EvictRequest{OperationType: opProd, IdempotencyKey: late.IdempotencyKey, By: "test"})
	if !errors.Is(err, idempotency.ErrRecordChanged) {
		t.Fatalf("Evict racing a heartbeat = %v, want ErrRecordChanged", err)
	}
	if got, ok := f.get(late.PK); !ok || !got.LeaseAlive(f.clock.Now()) {
		t.Fatal("Evict deleted a record whose holder renewed its lease")
	}
}

// testEvict: the engine evicts finished and abandoned records, refuses a
// live lease unless forced, and the next claim then starts afresh.
func testEvict(t *testing.T, f *fixture) {
	e := f.engine()
	req := request(newKey(), hashA)
	res := f.begin(e, req, idempotency.Acquired)
	evict := idempotency.EvictRequest{OperationType: opProd, IdempotencyKey: req.IdempotencyKey, By: "test"}

	rec, err := e.Evict(f.ctx, evict)
	if !errors.Is(err, idempotency.ErrLeaseAlive) || rec.Status != idempotency.StatusInProgress {
		t.Fatalf("Evict of a live lease = %s, %v; want refused with ErrLeaseAlive", rec.Status, err)
	}
	if _, ok := f.get(req.PK()); !ok {
		t.Fatal("refused eviction deleted the record")
	}
	f.clock.Advance(takeoverAfter) // the holder died: its lease and the grace ran out
	if _, err := e.Evict(f.ctx, evict); err != nil {
		t.Fatalf("Evict of an expired lease: %v", err)
	}
	if _, err := e.Evict(f.ctx, evict); !errors.Is(err, idempotency.ErrNoRecord) {
		t.Errorf("second Evict = %v, want ErrNoRecord", err)
	}
	// Another process: this one's single-flight still counts the evicted
	// holder as running here.
	again := f.begin(f.engine(), req, idempotency.Acquired)
	if again.Record.Attempt != 1 {
		t.Errorf("claim after eviction is attempt %d, want a fresh 1", again.Record.Attempt)
	}
	if _, err := e.Complete(f.ctx, res.Lease, idempotency.Response{Payload: payload}); !errors.Is(err, idempotency.ErrLeaseLost) {
		t.Errorf("evicted holder's Complete = %v, want ErrLeaseLost", err)
	}

	evict.Force = true
	if rec, err := e.Evict(f.ctx, evict); err != nil || rec.LeaseToken != again.Record.LeaseToken {
		t.Fatalf("forced Evict of a live lease = %v (token %s), want the live record evicted", err, rec.LeaseToken)
	}
	if _, ok := f.get(req.PK()); ok {
		t.Error("forced eviction kept the record")
	}

	// A COMPLETED record replayed from the local cache is forgotten too.
	cached := f.engine(func(c *idempotency.Config) { c.LocalCacheSize = 8 })
	res = f.begin(cached, req, idempotency.Acquired)
	complete(t, f, cached, res)
	f.begin(cached, req, idempotency.Replay)
	evict.Force = false
	if _, err := cached.Evict(f.ctx, evict); err != nil {
		t.Fatalf("Evict of a COMPLETED record: %v", err)
	}
	f.begin(cached, req, idempotency.Acquired)
}

// testInspectAndListThroughEngine: the engine hides expired records and
// pages with an opaque cursor.
func testInspectAndListThroughEngine(t *testing.T, f *fixture) {
	e := f.engine()
	short := f.put(opProd, "team-a", idempotency.StatusCompleted, time.Minute)
	var want []idempotency.Record
	for range 5 {
		want = append(want, f.put(opProd, "team-a", idempotency.StatusInProgress, time.Hour))
	}
	f.clock.Advance(time.Minute)
	if _, ok, err := e.Inspect(f.ctx, opProd, "team-a", short.IdempotencyKey); err != nil || ok {
		t.Errorf("Inspect of an expired record = %v, %v; want absent", ok, err)
	}
	got, ok, err := e.Inspect(f.ctx, opProd, "team-a", want[0].IdempotencyKey)
	if err != nil || !ok {
		t.Fatalf("Inspect = %v, %v", ok, err)
	}
	assertRecord(t, got, want[0])
	if _, ok, _ := e.Inspect(f.ctx, opProd, "", want[0].IdempotencyKey); ok {
		t.Error("another tenant's record inspected")
	}

	var pks []string
	q := idempotency.RecordQuery{Tenant: "team-a", Status: idempotency.StatusInProgress, OlderThan: 30 * time.Second, Limit: 2}
	for range 20 {
		page, err := e.List(f.ctx, q)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, r := range page.Records {
			pks = append(pks, r.PK)
		}
		if page.Cursor == "" {
			break
		}
		q.Cursor = page.Cursor
	}
	assertListed(t, "engine listing", pks, want...)
	if page, err := e.List(f.ctx, idempotency.RecordQuery{Tenant: "team-a", OlderThan: 2 * time.Minute}); err != nil || len(page.Records) != 0 {
		t.Errorf("records older than their age listed: %d, %v", len(page.Records), err)
	}
}
