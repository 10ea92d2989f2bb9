package idempotency_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/result"
)

func newEngine(t *testing.T, store idempotency.Store, cfg idempotency.Config, opts ...idempotency.Option) *idempotency.Engine {
	t.Helper()
	e, err := idempotency.New(store, cfg, nil, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func req(key string) idempotency.Request {
	return idempotency.Request{OperationType: "PRODUCE", IdempotencyKey: key, RequestHash: "h1"}
}

// TestHoldRenewsLeaseBeyondItsPeriod runs a function for several lease
// periods: heartbeats keep the claim, so a second process sees InProgress.
// The periods pass on the fake clock of a synctest bubble.
func TestHoldRenewsLeaseBeyondItsPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &storetest.Counting{Store: memory.New()}
		cfg := idempotency.Config{Lease: 90 * time.Millisecond}
		e := newEngine(t, store, cfg)
		res, err := e.Begin(t.Context(), req("hold"))
		if err != nil || res.Outcome != idempotency.Acquired {
			t.Fatalf("Begin: %v %v", res.Outcome, err)
		}
		err = e.Hold(t.Context(), res.Lease, func(ctx context.Context) error {
			check := time.NewTicker(cfg.Lease / 4)
			defer check.Stop()
			for deadline := time.Now().Add(4 * cfg.Lease); time.Now().Before(deadline); <-check.C {
				other := newEngine(t, store, cfg)
				r, err := other.Begin(ctx, req("hold"))
				if err != nil || r.Outcome != idempotency.InProgress {
					t.Errorf("second process during Hold: %v %v, want in progress", r.Outcome, err)
					return nil
				}
			}
			return ctx.Err()
		})
		if err != nil {
			t.Fatalf("Hold: %v", err)
		}
		if store.Updates.Load() < 6 {
			t.Errorf("%d heartbeats over four lease periods, want at least 6 (every lease/3)", store.Updates.Load())
		}
		if _, err := e.Complete(t.Context(), res.Lease, idempotency.Response{Payload: `{}`}); err != nil {
			t.Fatalf("Complete after Hold: %v", err)
		}
	})
}

// TestHoldCancelsTheMomentTheLeaseIsLost lets another process take the
// record over; the holder's next heartbeat must cancel its function.
func TestHoldCancelsTheMomentTheLeaseIsLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := storetest.NewClock(time.Now())
		holderStore := &storetest.Counting{Store: memory.New()}
		gate := make(chan struct{})
		holderStore.BeforeUpdate = func(idempotency.Update) error { <-gate; return nil }
		cfg := idempotency.Config{Lease: 60 * time.Millisecond, Clock: clock}
		holder := newEngine(t, holderStore, cfg)
		res, err := holder.Begin(t.Context(), req("zombie"))
		if err != nil {
			t.Fatal(err)
		}
		thief := newEngine(t, holderStore.Store, cfg)
		clock.Advance(time.Minute)
		if r, err := thief.Begin(t.Context(), req("zombie")); err != nil || r.Outcome != idempotency.Acquired {
			t.Fatalf("takeover: %v %v", r.Outcome, err)
		}
		close(gate) // the holder's heartbeat now reaches the store and is fenced

		var cause error
		start := time.Now()
		err = holder.Hold(t.Context(), res.Lease, func(ctx context.Context) error {
			select {
			case <-ctx.Done():
				cause = context.Cause(ctx)
				return ctx.Err()
			case <-time.After(10 * time.Second):
				return errors.New("function was never cancelled")
			}
		})
		if !errors.Is(err, idempotency.ErrLeaseLost) || !errors.Is(cause, idempotency.ErrLeaseLost) {
			t.Fatalf("Hold = %v (cause %v), want ErrLeaseLost", err, cause)
		}
		if waited := time.Since(start); waited > 2*time.Second {
			t.Errorf("cancelled after %v; the first heartbeat (lease/3) should have done it", waited)
		}
		if _, err := holder.Complete(t.Context(), res.Lease, idempotency.Response{}); !errors.Is(err, idempotency.ErrLeaseLost) {
			t.Errorf("Complete after a lost lease: %v, want ErrLeaseLost", err)
		}
	})
}

// TestHoldGivesUpWhenTheStoreStaysDown: renewals fail, and once the lease it
// last confirmed has run out the function is cancelled; the lease is not
// lost, so the outcome can still be recorded when the store answers.
func TestHoldGivesUpWhenTheStoreStaysDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &storetest.Counting{Store: memory.New()}
		down := errors.New("connection refused")
		store.BeforeUpdate = func(idempotency.Update) error { return down }
		e := newEngine(t, store, idempotency.Config{Lease: 90 * time.Millisecond})
		res, err := e.Begin(t.Context(), req("outage"))
		if err != nil {
			t.Fatal(err)
		}
		err = e.Hold(t.Context(), res.Lease, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
		if !errors.Is(err, idempotency.ErrLeaseExpired) || errors.Is(err, idempotency.ErrLeaseLost) ||
			!errors.Is(err, idempotency.ErrStoreUnavailable) || !errors.Is(err, down) {
			t.Fatalf("Hold = %v, want lease expired because the store is unavailable", err)
		}
		if store.Updates.Load() < 2 {
			t.Errorf("only %d renewal attempts before giving up", store.Updates.Load())
		}
		store.BeforeUpdate = nil
		if rec, err := e.Fail(t.Context(), res.Lease, "stopped", idempotency.Response{}); err != nil || rec.Status != idempotency.StatusFailed {
			t.Errorf("Fail after the lease ran out unrenewed: %v %v, want it recorded", rec.Status, err)
		}
	})
}

// TestFinishRetriesPastTheLease: a Complete whose store stays down for many
// lease periods keeps retrying, tells its caller once that the outcome is
// pending, keeps duplicates in this process InProgress, and lands when the
// store answers.
func TestFinishRetriesPastTheLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &storetest.Counting{Store: memory.New()}
		const lease = 100 * time.Millisecond
		e := newEngine(t, store, idempotency.Config{Lease: lease})
		res, err := e.Begin(t.Context(), req("pending"))
		if err != nil {
			t.Fatal(err)
		}
		var down atomic.Bool
		down.Store(true)
		store.BeforeUpdate = func(idempotency.Update) error {
			if down.Load() {
				return errors.New("connection refused")
			}
			return nil
		}
		var notices atomic.Int32
		ctx := idempotency.WithStoreRetryNotice(t.Context(), func(err error) {
			if !errors.Is(err, idempotency.ErrStoreUnavailable) {
				t.Errorf("notice %v, want a store error", err)
			}
			notices.Add(1)
		})
		done := make(chan error, 1)
		go func() {
			rec, err := e.Complete(ctx, res.Lease, idempotency.Response{Payload: `{"ok":true}`, HTTPStatus: 201})
			if err == nil && rec.Status != idempotency.StatusCompleted {
				err = fmt.Errorf("status %s", rec.Status)
			}
			done <- err
		}()
		time.Sleep(10 * lease)
		synctest.Wait()
		if dup, err := e.Begin(t.Context(), req("pending")); err != nil || dup.Outcome != idempotency.InProgress {
			t.Errorf("duplicate while the outcome is pending: %v %v, want in progress", dup.Outcome, err)
		}
		select {
		case err := <-done:
			t.Fatalf("Complete returned while the store was down: %v", err)
		default:
		}
		down.Store(false)
		if err := <-done; err != nil {
			t.Fatalf("Complete once the store answers: %v", err)
		}
		if n := notices.Load(); n != 1 {
			t.Errorf("%d pending notices, want 1", n)
		}
		if dup, err := e.Begin(t.Context(), req("pending")); err != nil || dup.Outcome != idempotency.Replay {
			t.Errorf("duplicate after the outcome landed: %v %v, want replay", dup.Outcome, err)
		}
	})
}

// TestTakeoverWaitsAGrace: a holder that stopped renewing keeps its record
// for one lease more than its own lease: a second instance is refused
// until then, and takes over after. Time passes on a fake clock.
func TestTakeoverWaitsAGrace(t *testing.T) {
	store, clock := memory.New(), storetest.NewClock(time.Now())
	const lease = time.Second
	holder := newEngine(t, store, idempotency.Config{Lease: lease, Clock: clock})
	res, err := holder.Begin(t.Context(), req("grace"))
	if err != nil {
		t.Fatal(err)
	}
	if want := clock.Now().Add(lease); !res.Lease.Until().Equal(want) {
		t.Errorf("holder's lease until %v, want %v", res.Lease.Until(), want)
	}
	other := newEngine(t, store, idempotency.Config{Lease: lease, Clock: clock})
	clock.Advance(lease + lease/2)
	if r, err := other.Begin(t.Context(), req("grace")); err != nil || r.Outcome != idempotency.InProgress {
		t.Fatalf("Begin 1.5 leases after the last renewal: %v %v, want in progress (grace)", r.Outcome, err)
	}
	clock.Advance(lease/2 + time.Millisecond)
	r, err := other.Begin(t.Context(), req("grace"))
	if err != nil || r.Outcome != idempotency.Acquired || r.Record.Attempt != 2 {
		t.Fatalf("Begin after lease and grace: %v attempt %d %v, want acquired, attempt 2", r.Outcome, r.Record.Attempt, err)
	}
	if _, err := holder.Complete(t.Context(), res.Lease, idempotency.Response{}); !errors.Is(err, idempotency.ErrLeaseLost) {
		t.Errorf("the old holder's Complete after the takeover: %v, want ErrLeaseLost", err)
	}
}

// TestRecoveringHolderBeatsASecondInstance races a second instance against
// a holder whose store connection fails past its lease: the holder stops
// working, the second instance keeps getting InProgress during the grace,
// and the holder's outcome lands when its store comes back, so the second
// instance replays it rather than running the command again.
func TestRecoveringHolderBeatsASecondInstance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shared := memory.New()
		const lease = time.Second
		holderStore := &storetest.Counting{Store: shared}
		holder := newEngine(t, holderStore, idempotency.Config{Lease: lease})
		other := newEngine(t, shared, idempotency.Config{Lease: lease})
		res, err := holder.Begin(t.Context(), req("race"))
		if err != nil {
			t.Fatal(err)
		}
		var cut atomic.Bool
		holderStore.BeforeUpdate = func(idempotency.Update) error {
			if cut.Load() {
				return errors.New("connection reset by peer")
			}
			return nil
		}
		landed := make(chan error, 1)
		go func() {
			err := holder.Hold(t.Context(), res.Lease, func(ctx context.Context) error {
				cut.Store(true) // the holder's store goes away as its work ends
				<-ctx.Done()
				return ctx.Err()
			})
			if !errors.Is(err, idempotency.ErrLeaseExpired) {
				t.Errorf("Hold = %v, want the lease expired", err)
			}
			_, err = holder.Fail(t.Context(), res.Lease, "stopped: store down", idempotency.Response{})
			landed <- err
		}()
		// The second instance tries every 100 ms while the holder is cut off.
		tries := time.NewTicker(lease / 10)
		defer tries.Stop()
		for range 15 {
			<-tries.C
			if r, err := other.Begin(t.Context(), req("race")); err != nil || r.Outcome != idempotency.InProgress {
				t.Fatalf("second instance at %s: %v %v, want in progress", time.Since(res.Record.CreatedAt), r.Outcome, err)
			}
		}
		cut.Store(false) // 1.5 leases in: the holder's store is back
		if err := <-landed; err != nil {
			t.Fatalf("holder's Fail once its store is back: %v", err)
		}
		time.Sleep(2 * lease)
		r, err := other.Begin(t.Context(), req("race"))
		if err != nil || r.Outcome != idempotency.Acquired || r.Record.Attempt != 2 {
			t.Fatalf("second instance after the holder failed: %v attempt %d %v, want a retry (attempt 2) of the recorded failure", r.Outcome, r.Record.Attempt, err)
		}
	})
}

func TestStoreFailuresAreTyped(t *testing.T) {
	store := &storetest.Counting{Store: memory.New()}
	down := errors.New("dial tcp 127.0.0.1:5432: connection refused")
	store.BeforeBegin = func(idempotency.Claim) error { return down }
	e := newEngine(t, store, idempotency.Config{})
	_, err := e.Begin(t.Context(), req("k"))
	var se *idempotency.StoreError
	if !errors.Is(err, idempotency.ErrStoreUnavailable) || !errors.As(err, &se) || se.Op != "begin" || !errors.Is(err, down) {
		t.Fatalf("Begin with the store down: %v", err)
	}
}

// TestCompleteRetriesATransientStoreFailure: a COMPLETED write that fails
// once is retried within the lease rather than left IN_PROGRESS.
func TestCompleteRetriesATransientStoreFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &storetest.Counting{Store: memory.New()}
		e := newEngine(t, store, idempotency.Config{Lease: time.Second})
		res, err := e.Begin(t.Context(), req("retry"))
		if err != nil {
			t.Fatal(err)
		}
		failures := 2
		store.BeforeUpdate = func(idempotency.Update) error {
			if failures > 0 {
				failures--
				return errors.New("timeout")
			}
			return nil
		}
		rec, err := e.Complete(t.Context(), res.Lease, idempotency.Response{Payload: `{"ok":true}`, HTTPStatus: 201})
		if err != nil || rec.Status != idempotency.StatusCompleted {
			t.Fatalf("Complete: %v %v", rec.Status, err)
		}
		if store.Updates.Load() != 3 {
			t.Errorf("%d update calls, want 3", store.Updates.Load())
		}
	})
}

// unansweredStore applies a final write and then fails it, as a store
// whose answer is lost on the way back (a connection cut after COMMIT),
// while unanswered is above 0.
type unansweredStore struct {
	idempotency.Store
	unanswered atomic.Int32
}

func (s *unansweredStore) Update(ctx context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	rec, err := s.Store.Update(ctx, pk, token, u)
	if err == nil && u.Kind != idempotency.UpdateHeartbeat && s.unanswered.Add(-1) >= 0 {
		return idempotency.Record{}, errors.New("read tcp 127.0.0.1:5432: connection reset by peer")
	}
	return rec, err
}

// TestFinalWriteLandedUnanswered: a COMPLETED or FAILED write that the
// store applied but whose answer was lost fails its fence when retried;
// the holder finds its own outcome in the record and finishes with it
// rather than reporting the command taken over. A record another worker
// took over still reports the lease lost.
func TestFinalWriteLandedUnanswered(t *testing.T) {
	finals := map[string]func(*idempotency.Engine, *idempotency.Lease) (idempotency.Record, error){
		"complete": func(e *idempotency.Engine, l *idempotency.Lease) (idempotency.Record, error) {
			return e.Complete(t.Context(), l, idempotency.Response{Payload: `{"enqueued":40}`, HTTPStatus: 201})
		},
		"fail": func(e *idempotency.Engine, l *idempotency.Lease) (idempotency.Record, error) {
			return e.Fail(t.Context(), l, "queue full", idempotency.Response{Payload: `{"enqueued":0}`, HTTPStatus: 502})
		},
	}
	want := map[string]idempotency.Status{"complete": idempotency.StatusCompleted, "fail": idempotency.StatusFailed}
	for name, final := range finals {
		t.Run(name, func(t *testing.T) {
			store := &unansweredStore{Store: memory.New()}
			e := newEngine(t, store, idempotency.Config{Lease: time.Minute})
			res, err := e.Begin(t.Context(), req("unanswered-"+name))
			if err != nil {
				t.Fatal(err)
			}
			store.unanswered.Store(1)
			rec, err := final(e, res.Lease)
			if err != nil || rec.Status != want[name] || rec.Attempt != 1 {
				t.Fatalf("%s whose first write landed unanswered: %s attempt %d, %v; want %s by attempt 1", name, rec.Status, rec.Attempt, err, want[name])
			}
		})
	}
	t.Run("taken-over", func(t *testing.T) {
		const lease = time.Second
		store, clock := &storetest.Counting{Store: memory.New()}, storetest.NewClock(time.Now())
		e := newEngine(t, store, idempotency.Config{Lease: lease, Clock: clock})
		res, err := e.Begin(t.Context(), req("taken-over"))
		if err != nil {
			t.Fatal(err)
		}
		// The first write fails unapplied; before its retry the claim runs
		// out (the fake clock) and another worker takes it over.
		other := newEngine(t, store.Store, idempotency.Config{Lease: lease, Clock: clock})
		failed := false
		store.BeforeUpdate = func(idempotency.Update) error {
			if failed {
				return nil
			}
			failed = true
			clock.Advance(2*lease + time.Millisecond)
			if took, err := other.Begin(t.Context(), req("taken-over")); err != nil || took.Outcome != idempotency.Acquired {
				t.Fatalf("takeover: %v %v", took.Outcome, err)
			}
			return errors.New("timeout")
		}
		if rec, err := e.Complete(t.Context(), res.Lease, idempotency.Response{Payload: `{}`, HTTPStatus: 201}); !errors.Is(err, idempotency.ErrLeaseLost) {
			t.Fatalf("Complete after a takeover: %s, %v; want ErrLeaseLost", rec.Status, err)
		}
	})
}

// TestCheckpointRetriesATransientStoreFailure: a checkpoint of committed
// work that fails is retried.
func TestCheckpointRetriesATransientStoreFailure(t *testing.T) {
	store := &storetest.Counting{Store: memory.New()}
	e := newEngine(t, store, idempotency.Config{Lease: 300 * time.Millisecond})
	res, err := e.Begin(t.Context(), req("checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	down := errors.New("connection refused")
	failures := 2
	store.BeforeUpdate = func(idempotency.Update) error {
		if failures > 0 {
			failures--
			return down
		}
		return nil
	}
	if err := e.Checkpoint(t.Context(), res.Lease, `{"committed":10}`); err != nil {
		t.Fatalf("Checkpoint through two store failures: %v", err)
	}
	if rec, _, err := store.Get(t.Context(), res.Record.PK); err != nil || rec.Progress != `{"committed":10}` || store.Updates.Load() != 3 {
		t.Errorf("progress %q (%v) after %d update calls, want the checkpoint after 3", rec.Progress, err, store.Updates.Load())
	}

}

// TestCheckpointWaitsUpToCheckpointWait: a checkpoint whose store stays
// down is retried past the lease, for idempotency.checkpointWait, then
// gives up with the store's error.
func TestCheckpointWaitsUpToCheckpointWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &storetest.Counting{Store: memory.New()}
		const wait = 5 * time.Second
		e := newEngine(t, store, idempotency.Config{Lease: 300 * time.Millisecond, CheckpointWait: wait})
		res, err := e.Begin(t.Context(), req("checkpoint"))
		if err != nil {
			t.Fatal(err)
		}
		down := errors.New("connection refused")
		store.BeforeUpdate = func(idempotency.Update) error { return down }
		began := time.Now()
		err = e.Checkpoint(t.Context(), res.Lease, `{"committed":20}`)
		if !errors.Is(err, idempotency.ErrStoreUnavailable) || !errors.Is(err, down) || !strings.Contains(err.Error(), "idempotency.checkpointWait") {
			t.Fatalf("Checkpoint with the store down = %v, want the store's error naming idempotency.checkpointWait", err)
		}
		if waited := time.Since(began); waited < wait || waited > wait+2*time.Second {
			t.Errorf("gave up after %s, want after checkpointWait (%s)", waited, wait)
		}
	})
}

func TestDisabledRunsEverythingAndStoresNothing(t *testing.T) {
	store := &storetest.Counting{Store: memory.New()}
	e := newEngine(t, store, idempotency.Config{Enabled: new(false)})
	for range 2 {
		res, err := e.Begin(t.Context(), req("same"))
		if err != nil || res.Outcome != idempotency.Acquired || res.Source != idempotency.FromDisabled {
			t.Fatalf("Begin while disabled: %v %v %v", res.Outcome, res.Source, err)
		}
		if err := e.Hold(t.Context(), res.Lease, func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Complete(t.Context(), res.Lease, idempotency.Response{Payload: `{}`}); err != nil {
			t.Fatal(err)
		}
	}
	if store.Calls() != 0 {
		t.Errorf("disabled engine made %d store calls", store.Calls())
	}
	if _, err := e.Begin(t.Context(), req("")); !errors.Is(err, idempotency.ErrInvalidKey) {
		t.Errorf("bad keys are still refused when disabled: %v", err)
	}
}

func TestConfigValidateNamesTheSetting(t *testing.T) {
	for cfg, want := range map[*idempotency.Config]string{
		{RecordTTL: -time.Second}:                            "idempotency.recordTTL",
		{RecordTTL: 48 * time.Hour, MaxRecordTTL: time.Hour}: "idempotency.maxRecordTTL",
		{Lease: time.Millisecond}:                            "idempotency.lease",
		{LocalCacheSize: -1}:                                 "idempotency.localCacheSize",
	} {
		if _, err := idempotency.New(memory.New(), *cfg, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %+v: error %v, want one naming %s", *cfg, err, want)
		}
	}
	if _, err := idempotency.New(nil, idempotency.Config{}, nil); err == nil {
		t.Error("an enabled engine without a store must be refused")
	}
}

func TestRecordJSONUsesSpecAttributes(t *testing.T) {
	created := time.Date(2025, 10, 29, 12, 0, 0, 0, time.UTC)
	rec := idempotency.Record{
		PK: "PRODUCE#5c1e", OperationType: "PRODUCE", IdempotencyKey: "5c1e", Status: idempotency.StatusCompleted,
		RequestHash: "f1c4", ResponsePayload: `{"processedMessages":100}`, HTTPStatus: 201,
		CreatedAt: created, UpdatedAt: created.Add(2 * time.Second), ExpiresAt: created.Add(24 * time.Hour),
		LeaseExpiresAt: created.Add(30 * time.Second), LeaseToken: "tok", Attempt: 1, Target: "QM1:DEV.QUEUE.1",
	}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]any
	if err := json.Unmarshal(data, &attrs); err != nil {
		t.Fatal(err)
	}
	for attr, want := range map[string]any{
		"pk": "PRODUCE#5c1e", "status": "COMPLETED", "createdAt": "2025-10-29T12:00:00.000Z",
		"updatedAt": "2025-10-29T12:00:02.000Z", "expiresAt": "2025-10-30T12:00:00.000Z",
		"ttl": float64(1761825600), "leaseExpiresAt": float64(1761739230000), "attempt": float64(1),
		"responsePayload": `{"processedMessages":100}`, "httpStatus": float64(201),
	} {
		if attrs[attr] != want {
			t.Errorf("%s = %v, want %v", attr, attrs[attr], want)
		}
	}
	var back idempotency.Record
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back != rec {
		t.Errorf("round trip:\n got  %+v\n want %+v", back, rec)
	}
}

// TestStoredResultIsTheOutcomeWithoutTheRecord: readers by key get status,
// payload and error message, and nothing for an absent or expired record.
func TestStoredResultIsTheOutcomeWithoutTheRecord(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	e := newEngine(t, memory.New(), idempotency.Config{Lease: time.Minute, RecordTTL: time.Hour, Clock: clock})
	claim := func(key string) *idempotency.Lease {
		t.Helper()
		res, err := e.Begin(t.Context(), req(key))
		if err != nil || res.Outcome != idempotency.Acquired {
			t.Fatalf("Begin(%s): %v %v", key, res.Outcome, err)
		}
		return res.Lease
	}
	if _, err := e.Complete(t.Context(), claim("done"), idempotency.Response{Payload: `{"sent":3}`, HTTPStatus: 201}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Fail(t.Context(), claim("failed"), "MQRC_Q_FULL", idempotency.Response{}); err != nil {
		t.Fatal(err)
	}
	claim("running")
	for key, want := range map[string]result.Stored{
		"done":    {Status: result.StatusCompleted, Data: json.RawMessage(`{"sent":3}`)},
		"failed":  {Status: result.StatusFailed, Error: "MQRC_Q_FULL"},
		"running": {Status: result.StatusInProgress},
	} {
		got, ok, err := e.StoredResult(t.Context(), "PRODUCE", "", key)
		if err != nil || !ok || got.Status != want.Status || string(got.Data) != string(want.Data) || got.Error != want.Error {
			t.Errorf("StoredResult(%s) = %+v %v %v, want %+v", key, got, ok, err, want)
		}
	}
	if _, ok, err := e.StoredResult(t.Context(), "PRODUCE", "", "never"); ok || err != nil {
		t.Errorf("absent record: ok %v, err %v", ok, err)
	}
	if _, _, err := e.StoredResult(t.Context(), "PRODUCE", "", ""); !errors.Is(err, idempotency.ErrInvalidKey) {
		t.Errorf("empty key: %v, want ErrInvalidKey", err)
	}
	clock.Advance(2 * time.Hour)
	if _, ok, err := e.StoredResult(t.Context(), "PRODUCE", "", "done"); ok || err != nil {
		t.Errorf("expired record: ok %v, err %v", ok, err)
	}
}

// TestFailAtRecordsTheUnstoredCheckpointFirst: a command stopped because
// its checkpoint could not be stored fails with that checkpoint, which the
// record gets (before the failure) once the store answers, so the retry
// resumes after what the attempt committed.
func TestFailAtRecordsTheUnstoredCheckpointFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &storetest.Counting{Store: memory.New()}
		e := newEngine(t, store, idempotency.Config{Lease: time.Second, CheckpointWait: 2 * time.Second})
		res, err := e.Begin(t.Context(), req("fail-at"))
		if err != nil {
			t.Fatal(err)
		}
		var down atomic.Bool
		down.Store(true)
		store.BeforeUpdate = func(idempotency.Update) error {
			if down.Load() {
				return errors.New("connection refused")
			}
			return nil
		}
		if err := e.Checkpoint(t.Context(), res.Lease, `{"committed":20}`); !errors.Is(err, idempotency.ErrStoreUnavailable) {
			t.Fatalf("Checkpoint with the store down = %v", err)
		}
		time.AfterFunc(5*time.Second, func() { down.Store(false) })
		rec, err := e.FailAt(t.Context(), res.Lease, `{"committed":20}`, "checkpoint not stored", idempotency.Response{})
		if err != nil || rec.Status != idempotency.StatusFailed || rec.Progress != `{"committed":20}` {
			t.Fatalf("FailAt once the store answers: %s progress %q %v, want FAILED holding the checkpoint", rec.Status, rec.Progress, err)
		}
		retry, err := e.Begin(t.Context(), req("fail-at"))
		if err != nil || retry.Outcome != idempotency.Acquired || retry.Lease.Progress() != `{"committed":20}` {
			t.Errorf("retry: %v progress %q %v, want acquired, resuming from the checkpoint", retry.Outcome, retry.Lease.Progress(), err)
		}
	})
}

// TestDecideOnlyWritesNothing: a Begin that may not claim answers what the
// record decides, by the table a claim goes by, and Claimable otherwise,
// leaving no record behind.
func TestDecideOnlyWritesNothing(t *testing.T) {
	store := memory.New()
	e := newEngine(t, store, idempotency.Config{})
	ctx := t.Context()
	if res, err := e.Begin(ctx, req("k").DecideOnly()); err != nil || res.Outcome != idempotency.Claimable {
		t.Fatalf("no record: %v %v, want claimable", res.Outcome, err)
	}
	if _, ok, err := e.Get(ctx, "PRODUCE", "", "k"); ok || err != nil {
		t.Fatalf("a DecideOnly Begin left a record (%v)", err)
	}
	held, err := e.Begin(ctx, req("k"))
	if err != nil || held.Outcome != idempotency.Acquired {
		t.Fatalf("claim: %v %v", held.Outcome, err)
	}
	other := req("k")
	other.RequestHash = "h2"
	for _, c := range []struct {
		name string
		req  idempotency.Request
		want idempotency.Outcome
	}{{"held", req("k"), idempotency.InProgress}, {"other request", other, idempotency.Conflict}} {
		if res, err := e.Begin(ctx, c.req.DecideOnly()); err != nil || res.Outcome != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, res.Outcome, err, c.want)
		}
	}
	if _, err := e.Complete(ctx, held.Lease, idempotency.Response{Payload: `{}`}); err != nil {
		t.Fatal(err)
	}
	if res, err := e.Begin(ctx, req("k").DecideOnly()); err != nil || res.Outcome != idempotency.Replay {
		t.Errorf("completed: %v %v, want replay", res.Outcome, err)
	}
	disabled := newEngine(t, nil, idempotency.Config{Enabled: new(false)})
	if res, err := disabled.Begin(ctx, req("k").DecideOnly()); err != nil || res.Outcome != idempotency.Claimable {
		t.Errorf("disabled: %v %v, want claimable", res.Outcome, err)
	}
}
