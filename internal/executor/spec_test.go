package executor_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/mq"
	kind "github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/problems"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestProcessingAndAcknowledgement is SPEC §6's table, one case per row
// (per variant of a row): what the executor does with a bus message for
// each outcome, what it publishes, what it leaves in the store and on the
// queue, and whether the message is acked.
func TestProcessingAndAcknowledgement(t *testing.T) {
	cmd := produce(3)
	other := produce(2) // same key, different request
	schemaViolation := busMessage(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":0}}`)
	malformed := busMessage(`{"operationType":"PRODUCE","batch":`)
	oversize := busMessage(`{"operationType":"PRODUCE","tags":{"pad":"` + strings.Repeat("x", command.DefaultMaxBytes) + `"}}`)
	pastedPassword := busMessage(`{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","auth":{"user":"app","passwordRef":"hunter2"}},"batch":{"count":1}}`)
	badKey := produce(3)
	badKey.IdempotencyKey = "cmd\n1"
	unknownQueue := produceTo("DEV.QUEUE.9", 3)

	runRows(t, []row{
		{
			name:       "invalid: schema violation",
			deliveries: []delivery{{msg: schemaViolation, want: rejectedWith(http.StatusUnprocessableEntity, "SCHEMA_VIOLATION", string(schemaViolation.Body))}},
		},
		{
			name:       "invalid: malformed JSON",
			deliveries: []delivery{{msg: malformed, want: rejectedWith(http.StatusBadRequest, "MALFORMED_JSON", string(malformed.Body))}},
		},
		{
			name: "invalid: pasted password is redacted from the raw body",
			deliveries: []delivery{{msg: pastedPassword, want: rejectedWith(http.StatusUnprocessableEntity, "SCHEMA_VIOLATION",
				strings.ReplaceAll(string(pastedPassword.Body), "hunter2", "<redacted>"))}},
		},
		{
			name:       "oversize: raw body kept capped",
			deliveries: []delivery{{msg: oversize, want: rejectedWith(http.StatusRequestEntityTooLarge, "TOO_LARGE", string(oversize.Body[:rawBodyCap]))}},
		},
		{
			name:       "bad key",
			deliveries: []delivery{{msg: badKey, want: rejectedWith(http.StatusBadRequest, "INVALID_KEY", string(badKey.Body))}},
		},
		{
			name:  "Conflict: rejected IDEMPOTENCY_KEY_REUSED, ack",
			given: func(f *fixture) { f.completed(cmd) },
			deliveries: []delivery{{msg: other, want: want{
				outcome: ack(result.StatusRejected, http.StatusConflict),
				events:  []event{conflictEvent()},
				record:  record{idempotency.StatusCompleted, 1},
				mq:      untouched, onQueue: 3,
			}}},
		},
		{
			name:  "InProgress: no event, nack with delay",
			given: func(f *fixture) { f.heldElsewhere(cmd) },
			deliveries: []delivery{{msg: cmd, want: want{
				outcome: nack(result.StatusInProgress, http.StatusConflict),
				record:  record{idempotency.StatusInProgress, 1},
				mq:      untouched,
			}}},
		},
		{
			name:  "Replay (republish): cached result, replay true, ack",
			given: func(f *fixture) { f.completed(cmd) },
			deliveries: []delivery{{msg: cmd, want: want{
				outcome: replayed(http.StatusCreated),
				events:  []event{replayEvent(1, 3)},
				record:  record{idempotency.StatusCompleted, 1},
				mq:      untouched, onQueue: 3,
			}}},
		},
		{
			name:   "Replay (drop): nothing published, ack",
			replay: executor.ReplayDrop,
			given:  func(f *fixture) { f.completed(cmd) },
			deliveries: []delivery{{msg: cmd, want: want{
				outcome: replayed(http.StatusCreated),
				record:  record{idempotency.StatusCompleted, 1},
				mq:      untouched, onQueue: 3,
			}}},
		},
		{
			name: "Acquired then success: Complete, completed event, ack",
			deliveries: []delivery{{msg: cmd, want: want{
				outcome: ack(result.StatusCompleted, http.StatusCreated),
				events:  []event{completedEvent(1, 3)},
				record:  record{idempotency.StatusCompleted, 1},
				mq:      ran(3), onQueue: 3,
			}}},
		},
		transientRow("Acquired then transient MQ error 2009: Fail, no event, nack; redelivery retries", cmd, mq.ReasonConnectionBroken),
		transientRow("Acquired then transient MQ error 2161: Fail, no event, nack; redelivery retries", cmd, mq.ReasonQMgrQuiescing),
		{
			name: "Acquired then permanent MQ error 2085: Fail, failed event, ack",
			deliveries: []delivery{{msg: unknownQueue, want: want{
				outcome: ack(result.StatusFailed, http.StatusBadGateway),
				events:  []event{failedEvent(1, "MQRC_UNKNOWN_OBJECT_NAME", 2085)},
				record:  record{idempotency.StatusFailed, 1},
				mq:      mqUse{opens: 1},
			}}},
		},
		{
			name:  "store unavailable: nothing runs, no event, nack",
			given: func(f *fixture) { f.storeDown.Store(true) },
			deliveries: []delivery{
				{msg: cmd, want: want{
					outcome: nack("", http.StatusServiceUnavailable),
					record:  none,
					mq:      untouched,
				}},
				{msg: cmd, before: func(f *fixture) { f.storeDown.Store(false) }, want: want{
					outcome: ack(result.StatusCompleted, http.StatusCreated),
					events:  []event{completedEvent(1, 3)},
					record:  record{idempotency.StatusCompleted, 1},
					mq:      ran(3), onQueue: 3,
				}},
			},
		},
		{
			name:  "result publish fails: record stays COMPLETED, nack; redelivery replays it",
			given: func(f *fixture) { f.failPublishes.Store(1) },
			deliveries: []delivery{
				{msg: cmd, want: want{
					outcome: nack(result.StatusCompleted, http.StatusCreated),
					record:  record{idempotency.StatusCompleted, 1},
					mq:      ran(3), onQueue: 3,
				}},
				{msg: cmd, want: want{
					outcome: replayed(http.StatusCreated),
					events:  []event{replayEvent(1, 3)},
					record:  record{idempotency.StatusCompleted, 1},
					mq:      untouched, onQueue: 3,
				}},
			},
		},
	})
}

// transientRow: the first put fails with reason; the record is FAILED but
// nothing is published and the message comes back, and its redelivery
// runs the command again as attempt 2.
func transientRow(name string, cmd command.Input, reason mq.Reason) row {
	return row{
		name:  name,
		given: func(f *fixture) { f.qm.Faults().FailNth(mq.VerbPut, 1, reason) },
		deliveries: []delivery{
			{msg: cmd, want: want{
				outcome: nack(result.StatusFailed, http.StatusBadGateway),
				record:  record{idempotency.StatusFailed, 1},
				mq:      mqUse{opens: 1, puts: 1},
			}},
			{msg: cmd, want: want{
				outcome: ack(result.StatusCompleted, http.StatusCreated),
				events:  []event{completedEvent(2, 3)},
				record:  record{idempotency.StatusCompleted, 2},
				mq:      ran(3), onQueue: 3,
			}},
		},
	}
}

// TestIdempotencyStatesThroughExecutor is SPEC §5's state table as the
// executor acts on it: the record found when a message arrives (written
// by an earlier message, or by another process's claim), the same or a
// different request under its key, and what the executor then does.
func TestIdempotencyStatesThroughExecutor(t *testing.T) {
	cmd := produce(3)
	other := produce(2) // same key, different request
	const ttl = time.Minute

	conflict := func(rec record, onQueue int) want {
		return want{outcome: ack(result.StatusRejected, http.StatusConflict), events: []event{conflictEvent()},
			record: rec, mq: untouched, onQueue: onQueue}
	}
	runs := func(attempt, enqueued, onQueue int) want {
		return want{outcome: ack(result.StatusCompleted, http.StatusCreated), events: []event{completedEvent(attempt, enqueued)},
			record: record{idempotency.StatusCompleted, attempt}, mq: ran(int64(enqueued)), onQueue: onQueue}
	}
	expired := func(f *fixture) {
		f.completed(withTTL(cmd, ttl))
		f.advance(ttl)
	}
	crashed := func(f *fixture) {
		f.heldElsewhere(cmd)
		f.advance(2 * lease) // its lease and the takeover grace
	}

	runRows(t, []row{
		{
			name:       "none, same hash: Acquired attempt 1",
			deliveries: []delivery{{msg: cmd, want: runs(1, 3, 3)}},
		},
		{
			name:       "expiresAt passed, same hash: Acquired attempt 1",
			given:      expired,
			deliveries: []delivery{{msg: cmd, want: runs(1, 3, 6)}},
		},
		{
			name:       "expiresAt passed, different hash: Acquired",
			given:      expired,
			deliveries: []delivery{{msg: other, want: runs(1, 2, 5)}},
		},
		{
			name: "IN_PROGRESS lease alive, same hash: InProgress, back when the lease ends",
			given: func(f *fixture) {
				f.heldElsewhere(cmd)
				f.advance(2*lease - 2*time.Second) // lease and grace
			},
			deliveries: []delivery{{msg: cmd, want: want{
				outcome:     nack(result.StatusInProgress, http.StatusConflict),
				retryWithin: 2 * time.Second,
				record:      record{idempotency.StatusInProgress, 1},
				mq:          untouched,
			}}},
		},
		{
			name:       "IN_PROGRESS lease alive, different hash: Conflict",
			given:      func(f *fixture) { f.heldElsewhere(cmd) },
			deliveries: []delivery{{msg: other, want: conflict(record{idempotency.StatusInProgress, 1}, 0)}},
		},
		{
			name:  "IN_PROGRESS lease expired, same hash: takeover attempt 2, the crashed holder is fenced",
			given: crashed,
			deliveries: []delivery{{msg: cmd, want: runs(2, 3, 3), then: func(f *fixture) {
				_, err := f.peer.Complete(context.Background(), f.crashed, idempotency.Response{Payload: `{}`})
				if !errors.Is(err, idempotency.ErrLeaseLost) {
					f.t.Errorf("the crashed holder completed over the takeover: err %v, want ErrLeaseLost", err)
				}
				if rec, _ := f.stored(key); rec.Status != idempotency.StatusCompleted || rec.Attempt != 2 || rec.ResponsePayload == `{}` {
					f.t.Errorf("record after the zombie's Complete: %s attempt %d, want the takeover's COMPLETED attempt 2", rec.Status, rec.Attempt)
				}
			}}},
		},
		{
			name:       "IN_PROGRESS lease expired, different hash: Conflict",
			given:      crashed,
			deliveries: []delivery{{msg: other, want: conflict(record{idempotency.StatusInProgress, 1}, 0)}},
		},
		{
			name:  "COMPLETED, same hash: Replay",
			given: func(f *fixture) { f.completed(cmd) },
			deliveries: []delivery{{msg: cmd, want: want{
				outcome: replayed(http.StatusCreated),
				events:  []event{replayEvent(1, 3)},
				record:  record{idempotency.StatusCompleted, 1},
				mq:      untouched, onQueue: 3,
			}}},
		},
		{
			name:       "COMPLETED, different hash: Conflict",
			given:      func(f *fixture) { f.completed(cmd) },
			deliveries: []delivery{{msg: other, want: conflict(record{idempotency.StatusCompleted, 1}, 3)}},
		},
		{
			name:       "FAILED, same hash: retry attempt 2",
			given:      func(f *fixture) { f.failedWith(cmd, mq.ReasonQFull) },
			deliveries: []delivery{{msg: cmd, want: runs(2, 3, 3)}},
		},
		{
			name:       "FAILED, different hash: Conflict",
			given:      func(f *fixture) { f.failedWith(cmd, mq.ReasonQFull) },
			deliveries: []delivery{{msg: other, want: conflict(record{idempotency.StatusFailed, 1}, 0)}},
		},
	})
}

// row is one line of a SPEC table: the state before, then a message
// delivered (and perhaps redelivered), each delivery with what it must
// lead to.
type row struct {
	name       string
	replay     executor.ReplayMode // results.replay; "" is republish
	given      func(f *fixture)
	deliveries []delivery
}

type delivery struct {
	msg    command.Input
	before func(f *fixture) // what changes before this delivery
	want   want
	then   func(f *fixture) // further checks afterwards
}

type want struct {
	outcome
	// retryWithin bounds a nack's RetryAfter, which must be positive;
	// 0 means the configured retry delay.
	retryWithin time.Duration
	events      []event // published by this delivery, in order
	record      record  // stored afterwards
	mq          mqUse   // MQ calls this delivery made
	onQueue     int     // messages on DEV.QUEUE.1 afterwards
}

// outcome is what the executor tells the bus (and an HTTP caller), as the
// router and the API answer its kind.
type outcome struct {
	Ack        bool
	Status     result.Status
	HTTPStatus int
	Replay     bool
}

// project is what the bus and an HTTP caller make of out: the bus acks a
// final outcome whose result is out, HTTP answers problems.For.
func project(out executor.Outcome) outcome {
	got := outcome{Ack: out.Kind.Final() && !out.Unpublished, Replay: out.Kind == kind.Replayed}
	var code string
	switch {
	case out.Event != nil:
		got.Status = out.Event.Data.Status
		if out.Event.Data.Error != nil {
			code = out.Event.Data.Error.Code
		}
	case out.Kind == kind.InProgress:
		got.Status = result.StatusInProgress
	}
	got.HTTPStatus = problems.For(out.Kind, code, out.Event != nil && out.Event.Data.OperationType == "PRODUCE").Status
	return got
}

func ack(s result.Status, httpStatus int) outcome {
	return outcome{Ack: true, Status: s, HTTPStatus: httpStatus}
}

func nack(s result.Status, httpStatus int) outcome { return outcome{Status: s, HTTPStatus: httpStatus} }

// replayed: the recorded answer again, HTTP status included.
func replayed(httpStatus int) outcome {
	return outcome{Ack: true, Status: result.StatusCompleted, HTTPStatus: httpStatus, Replay: true}
}

// event is the part of a published result event a row decides.
type event struct {
	Type     result.Type
	Status   result.Status
	Replay   bool
	Attempt  int
	Enqueued int // PRODUCE's data.result.enqueued
	Code     string
	Reason   int32
	Problems bool   // the error lists what is wrong
	RawBody  string // a rejected command's body, capped and redacted
}

func completedEvent(attempt, enqueued int) event {
	return event{Type: result.TypeCompleted, Status: result.StatusCompleted, Attempt: attempt, Enqueued: enqueued}
}

func replayEvent(attempt, enqueued int) event {
	e := completedEvent(attempt, enqueued)
	e.Replay = true
	return e
}

func failedEvent(attempt int, code string, reason int32) event {
	return event{Type: result.TypeFailed, Status: result.StatusFailed, Attempt: attempt, Code: code, Reason: reason}
}

func conflictEvent() event {
	return event{Type: result.TypeRejected, Status: result.StatusRejected, Code: result.CodeKeyReused}
}

// rejectedWith is the invalid / oversize / bad key row: nothing runs, no
// record, one rejected event with the error list and the raw body, ack.
func rejectedWith(httpStatus int, code, rawBody string) want {
	return want{
		outcome: ack(result.StatusRejected, httpStatus),
		events: []event{{Type: result.TypeRejected, Status: result.StatusRejected, Code: code,
			Problems: true, RawBody: rawBody}},
		record: none,
		mq:     untouched,
	}
}

// record is the stored idempotency record; the zero value means none.
type record struct {
	Status  idempotency.Status
	Attempt int
}

var none = record{}

// mqUse counts MQ calls: every command run opens its queue once.
type mqUse struct{ opens, puts int64 }

var untouched = mqUse{}

func ran(puts int64) mqUse { return mqUse{opens: 1, puts: puts} }

// runRows runs each row in its own synctest bubble, so lease and TTL
// expiry are instant and exact.
func runRows(t *testing.T, rows []row) {
	decoder := newDecoder(t)
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, decoder, r.replay)
				if r.given != nil {
					r.given(f)
				}
				f.forget()
				for i, d := range r.deliveries {
					if d.before != nil {
						d.before(f)
					}
					step := "delivery"
					if i > 0 {
						step = "redelivery"
					}
					f.deliver(step, d)
				}
			})
		})
	}
}

func (f *fixture) deliver(step string, d delivery) {
	t := f.t
	t.Helper()
	calls, seen := f.mq.calls(), len(f.events())
	out := f.exec.Execute(context.Background(), d.msg)

	got := project(out)
	if got != d.want.outcome {
		t.Errorf("%s: outcome %+v, want %+v (error: %v)", step, got, d.want.outcome, out.Err)
	}
	if within := cmp.Or(d.want.retryWithin, retryDelay); !got.Ack && (out.RetryAfter <= 0 || out.RetryAfter > within) {
		t.Errorf("%s: nack with RetryAfter %s, want within (0, %s]", step, out.RetryAfter, within)
	}
	if !got.Ack && out.Err == nil {
		t.Errorf("%s: nack without an error saying why", step)
	}

	published := f.events()[seen:]
	if out.Unpublished && len(published) > 0 {
		t.Errorf("%s: Outcome.Unpublished, but %d events reached the publisher", step, len(published))
	}
	var events []event
	for _, e := range published {
		events = append(events, f.project(e))
		// A rejected command's key may be the very thing that is wrong.
		decided := e.Type != result.TypeRejected || e.Data.Error.Code == result.CodeKeyReused
		if decided && e.Data.IdempotencyKey != d.msg.IdempotencyKey {
			t.Errorf("%s: %s event for key %q, want %q", step, e.Type, e.Data.IdempotencyKey, d.msg.IdempotencyKey)
		}
	}
	if !reflect.DeepEqual(events, d.want.events) {
		t.Errorf("%s: published\n\t%+v\nwant\n\t%+v", step, events, d.want.events)
	}

	var rec record
	stored, ok := f.stored(d.msg.IdempotencyKey)
	if ok {
		rec = record{stored.Status, stored.Attempt}
	}
	if rec != d.want.record {
		t.Errorf("%s: record %+v, want %+v", step, rec, d.want.record)
	}
	if want := strings.Replace(stored.ResponsePayload, `"replay":false`, `"replay":true`, 1); got.Replay && string(out.Body) != want {
		t.Errorf("%s: replay answered %s, want the recorded %s with replay true", step, out.Body, stored.ResponsePayload)
	}

	now := f.mq.calls()
	used := mqUse{opens: now.opens - calls.opens, puts: now.puts - calls.puts}
	if used != d.want.mq || (d.want.mq == untouched && now.connects != calls.connects) {
		t.Errorf("%s: MQ %+v (%d connects), want %+v", step, used, now.connects-calls.connects, d.want.mq)
	}
	if depth := f.depth(); depth != d.want.onQueue {
		t.Errorf("%s: %d messages on %s, want %d", step, depth, queue, d.want.onQueue)
	}
	if d.then != nil {
		d.then(f)
	}
}

func (f *fixture) project(e result.Event) event {
	got := event{Type: e.Type, Status: e.Data.Status, Replay: e.Data.Replay, Attempt: e.Data.Attempt, RawBody: e.Data.RawBody}
	if e.Type == result.TypeCompleted {
		var res struct{ Enqueued int }
		if err := json.Unmarshal(e.Data.Result, &res); err != nil {
			f.t.Errorf("completed event's result %s: %v", e.Data.Result, err)
		}
		got.Enqueued = res.Enqueued
	}
	if err := e.Data.Error; err != nil {
		got.Code, got.Reason, got.Problems = err.Code, err.Reason, len(err.Problems) > 0
	}
	return got
}
