package executor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/admission"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/problems"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/telemetry"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// job is one command on its way through Execute.
type job struct {
	in     command.Input
	tenant tenant.Tenant
	dec    command.Decoded
	// givenKey is the key a command rejected at decode gave, if any.
	givenKey string
	target   targets.Resolved
	started  time.Time
	caller   caller
}

// rawKey is the command's idempotency key: the decoded one, else the one it
// gave, else the transport's; it may be invalid.
func (j *job) rawKey() string { return cmp.Or(j.dec.IdempotencyKey, j.givenKey, j.in.IdempotencyKey) }

// key is rawKey as results and logs show it (command.EchoKey).
func (j *job) key() string { return command.EchoKey(j.rawKey()) }

// Execute runs one command to exactly one outcome, for the tenant ctx
// carries (tenant.NewContext; none is the implicit tenant).
func (x *Executor) Execute(ctx context.Context, in command.Input, opts ...Option) Outcome {
	x.active.Add(1)
	defer x.active.Done()
	j := &job{in: in, tenant: tenant.FromContext(ctx), started: time.Now().UTC()}
	for _, o := range opts {
		o(&j.caller)
	}
	// The span continues the caller's trace: the HTTP request's, or the
	// publisher's context the bus message carried.
	ctx, span := x.Tracer.Start(ctx, "process", trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(telemetry.AttrMessagingSystem.String(telemetry.SystemIBMMQ),
			telemetry.AttrMessagingOperationType.String("process"), attribute.String("mqprobe.transport", string(in.Transport)),
			telemetry.AttrTenant.String(j.tenant.Label())))
	defer span.End()
	out := x.execute(ctx, j)
	if command.ValidKey(j.rawKey()) {
		out.Key = j.rawKey()
	}
	x.annotate(span, j, out)
	if !j.caller.provisional || out.Kind != outcome.InProgress {
		x.audit(ctx, j, out)
	}
	return out
}

func (x *Executor) execute(ctx context.Context, j *job) Outcome {
	dec, err := x.Decoder.Decode(j.in)
	if err != nil {
		var ve *command.ValidationError
		if errors.As(err, &ve) {
			j.givenKey = ve.Key
		}
		return x.reject(ctx, j, validationError(err))
	}
	j.dec = dec
	trace.SpanFromContext(ctx).SetAttributes(telemetry.AttrOperation.String(string(dec.Command.OperationType)),
		telemetry.AttrIdempotencyKey.String(dec.IdempotencyKey))
	handler, ok := x.Handlers[dec.Command.OperationType]
	if !ok {
		return x.reject(ctx, j, &result.Error{Code: result.CodeUnsupported,
			Message: fmt.Sprintf("operation %s is not supported by this daemon", dec.Command.OperationType)})
	}
	if err := j.tenant.Authorize(dec.Command); err != nil {
		return x.reject(ctx, j, &result.Error{Code: result.CodeTargetNotAllowed, Message: err.Error()})
	}
	if handlers.Describe(dec.Command.OperationType).NeedsTarget {
		if j.target, err = x.Targets.Resolve(ctx, dec.Command); err != nil {
			var te *targets.Error
			if errors.As(err, &te) {
				return x.reject(ctx, j, &result.Error{Code: te.Code, Message: te.Message})
			}
			return x.reject(ctx, j, &result.Error{Code: result.CodeTargetNotAllowed, Message: err.Error()})
		}
	}
	if x.Admit != nil {
		if err := x.Admit(dec.Command); err != nil {
			return x.refuse(ctx, j, outcome.Limited, &result.Error{Code: result.CodeLimitExceeded, Message: err.Error()})
		}
	}

	req := idempotency.Request{OperationType: string(dec.Command.OperationType), Tenant: j.tenant.Name,
		IdempotencyKey: dec.IdempotencyKey, RequestHash: dec.RequestHash, ReadOnly: dec.Command.ReadOnly()}
	// The record names the trace the command ran in: the caller's, or the
	// one the process span started.
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		req.TraceID = sc.TraceID().String()
	}
	if j.target.Queue != "" {
		req.Target = j.target.String()
	}
	if dec.TTL > 0 {
		req = req.WithTTL(dec.TTL)
	}
	ticket, refused, noRoom := x.admit(ctx, j)
	if refused != nil {
		return *refused
	}
	defer ticket.Release()
	// A command that may not run now (no room, over its target's rate)
	// claims nothing, so it leaves no record behind: Begin only says
	// whether its record decides it all the same (a replay, a conflict, a
	// run elsewhere), which executes nothing. The rate-limit token is taken
	// before the claim, and given back by a command that does not run.
	var token targets.Reservation
	var rateWait time.Duration
	mayRun := noRoom == nil
	if mayRun {
		token, rateWait, mayRun = x.Targets.Reserve(j.target)
	}
	if !mayRun {
		req = req.DecideOnly()
	}
	claim, err := x.begin(ctx, j, req)
	if err != nil || claim.Outcome != idempotency.Acquired {
		token.Cancel()
	}
	switch {
	case errors.Is(err, idempotency.ErrInvalidArgument):
		return x.reject(ctx, j, &result.Error{Code: result.CodeInvalidKey, Message: err.Error()})
	case err != nil:
		return x.undecided(j, fmt.Errorf("claim %s: %w", req.PK(), err))
	}
	var out Outcome
	switch claim.Outcome {
	case idempotency.Conflict:
		out = x.reject(ctx, j, &result.Error{Code: result.CodeKeyReused, Message: keyReusedMessage(req)})
	case idempotency.InProgress:
		wait := max(time.Until(claim.Record.LeaseExpiresAt), time.Second)
		out = Outcome{Kind: outcome.InProgress, RetryAfter: min(wait, x.cfg.RetryDelay), Err: fmt.Errorf("%s is being executed (attempt %d)", req.PK(), claim.Record.Attempt)}
	case idempotency.Replay:
		out = x.replay(ctx, j, claim.Record)
	case idempotency.Claimable:
		if noRoom != nil {
			return x.busy(j, noRoom)
		}
		return x.rateLimited(j, rateWait)
	default:
		return x.run(ctx, j, handler, claim)
	}
	// The record that decided the command: its expiry is when the key frees.
	out.ExpiresAt = claim.Record.ExpiresAt
	return out
}

// admit makes room for the command within the daemon's bounds before it
// is claimed. A command that can never fit is refused; noRoom says why one
// that does not fit now may not run.
func (x *Executor) admit(ctx context.Context, j *job) (ticket *admission.Ticket, refused *Outcome, noRoom error) {
	if x.Admission == nil {
		return nil, nil, nil
	}
	var bytes int64
	if x.Footprint != nil {
		bytes = x.Footprint(j.dec.Command)
	}
	ticket, err := x.Admission.Admit(ctx, bytes)
	var tooLarge *admission.TooLargeError
	if errors.As(err, &tooLarge) {
		out := x.reject(ctx, j, &result.Error{Code: result.CodeLimitExceeded, Message: err.Error()})
		return nil, &out, nil
	}
	return ticket, nil, err
}

// rateLimited leaves the command for later: nothing ran, and it may run
// after the wait.
func (x *Executor) rateLimited(j *job, wait time.Duration) Outcome {
	x.Log.Debug("command over its target's rate limit", "key", j.dec.IdempotencyKey, "target", j.target.String(), "retry_after", wait)
	return Outcome{Kind: outcome.RateLimited, RetryAfter: max(wait, time.Second),
		Err: fmt.Errorf("target %s is over its rate limit: retry in %s", j.target, wait.Round(time.Millisecond))}
}

// busy leaves a command refused for load for later: nothing ran.
func (x *Executor) busy(j *job, err error) Outcome {
	x.Log.Debug("command refused for load", "key", j.dec.IdempotencyKey, "target", j.target.String(), "reason", err)
	return Outcome{Kind: outcome.Busy, RetryAfter: x.cfg.RetryDelay, Err: err}
}

// releaseClaim gives an unfinished claim up for another attempt, even when
// ctx is already cancelled.
func (x *Executor) releaseClaim(ctx context.Context, lease *idempotency.Lease) {
	releaseCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := x.Engine.Release(releaseCtx, lease); err != nil {
		x.Log.Warn("could not release claim", "pk", lease.PK(), "error", err)
	}
}

// begin claims the command, traced and counted.
func (x *Executor) begin(ctx context.Context, j *job, req idempotency.Request) (claim idempotency.Result, err error) {
	ctx, span := x.Tracer.Start(ctx, "idempotency", trace.WithAttributes(telemetry.AttrIdempotencyKey.String(req.IdempotencyKey)))
	defer func() {
		decision := "error"
		if err == nil {
			decision = claim.Outcome.String()
			span.SetAttributes(attribute.String("mqprobe.idempotency.source", sourceName(claim.Source)),
				telemetry.AttrAttempt.Int(claim.Record.Attempt))
		}
		span.SetAttributes(telemetry.AttrIdempotencyOutcome.String(decision))
		telemetry.Fail(span, err)
		span.End()
		// Claimable decides nothing: the command is refused for load.
		if err != nil || claim.Outcome != idempotency.Claimable {
			x.Metrics.Idempotency(ctx, decision)
		}
	}()
	return x.Engine.Begin(ctx, req)
}

// run executes an acquired command under its lease.
func (x *Executor) run(ctx context.Context, j *job, handler handlers.Handler, claim idempotency.Result) Outcome {
	lease := claim.Lease
	cmd := j.dec.Command
	live := &inflight.Command{OperationType: string(cmd.OperationType), Tenant: j.tenant.Name, Key: j.dec.IdempotencyKey,
		Attempt: claim.Record.Attempt, StartedAt: time.Now().UTC()}
	defer x.running.Add(live)()
	stored := &checkpoints{last: lease.Progress()}
	run := handlers.Run{
		Command: cmd, Target: j.target.Target, Queue: j.target.Queue, AsyncPut: j.target.AsyncPut, AllowQueue: j.target.AllowQueue, Conns: x.Conns,
		Progress: lease.Progress(), Metrics: x.Metrics, Key: j.dec.IdempotencyKey, Tenant: j.tenant.Name,
		Checkpoint: func(ctx context.Context, progress string) error {
			stored.ask(progress)
			err := x.Engine.Checkpoint(ctx, lease, progress)
			if err == nil {
				stored.set(progress)
			}
			return err
		},
		Report: func(ctx context.Context, res any) { x.progress(ctx, j, claim.Record.Attempt, res) },
		Live:   &live.Counters,
	}
	if started := j.caller.started; started != nil {
		run.Started = func() { started(StartNotice{Key: j.dec.IdempotencyKey, ExpiresAt: claim.Record.ExpiresAt}) }
	}
	var res any
	err := x.Engine.Hold(ctx, lease, func(ctx context.Context) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("handler panic: %v\n%s", p, debug.Stack())
			}
		}()
		res, err = handler(ctx, run)
		return err
	})
	data := x.data(j, result.StatusCompleted, claim.Record.Attempt)
	switch {
	case errors.Is(err, idempotency.ErrLeaseLost):
		// Another worker owns the command now; it reports the outcome.
		return x.undecided(j, fmt.Errorf("%s: %w", lease.PK(), err))
	case err != nil && ctx.Err() != nil:
		// Shutdown or caller gone: hand the claim over for someone to resume.
		x.releaseClaim(ctx, lease)
		return x.undecided(j, fmt.Errorf("%s interrupted: %w", lease.PK(), err))
	case errors.Is(err, mq.ErrPoolBusy):
		// Every connection to the target stayed busy: give the claim back
		// rather than queue behind commands that may run for hours.
		x.releaseClaim(ctx, lease)
		return x.busy(j, fmt.Errorf("%s: %w", lease.PK(), err))
	case err != nil:
		data.Progress = x.failedProgress(cmd.OperationType, &live.Counters, stored.asked())
		return x.fail(ctx, j, lease, stored.unstored(), data, err)
	}
	if data.Result, err = json.Marshal(res); err != nil {
		data.Progress = x.failedProgress(cmd.OperationType, &live.Counters, stored.asked())
		return x.fail(ctx, j, lease, stored.unstored(), data, fmt.Errorf("encode result: %w", err))
	}
	status := problems.For(outcome.Completed, "", handlers.Describe(cmd.OperationType).Creates).Status
	payload, err := json.Marshal(data)
	if err != nil {
		return x.fail(ctx, j, lease, stored.unstored(), data, fmt.Errorf("encode result data: %w", err))
	}
	// The MQ work is done: its outcome is recorded however long the store
	// takes, or a redelivery would run it again. A result the store will
	// never take (over its record limit) is recorded as the failure it is,
	// without the result: still one outcome.
	var refused []byte // the failure's body, when the store refused the result
	complete := func(ctx context.Context) (idempotency.Record, error) {
		rec, err := x.Engine.Complete(ctx, lease, idempotency.Response{Payload: string(payload), HTTPStatus: status})
		if !idempotency.IsPermanent(err) {
			return rec, err
		}
		data.Result = nil
		data.Progress = x.failedProgress(cmd.OperationType, &live.Counters, stored.asked())
		data.Status = result.StatusFailed
		data.Error = mqError(fmt.Errorf("record completion of %s: %w", lease.PK(), err))
		refused, _ = json.Marshal(data)
		return x.Engine.Fail(ctx, lease, data.Error.Message, idempotency.Response{Payload: string(refused), HTTPStatus: failedStatus})
	}
	return x.record(ctx, j, result.StatusCompleted, claim.Record.Attempt, complete, func(ctx context.Context, rec idempotency.Record) Outcome {
		if refused != nil {
			out := x.publish(ctx, data, refused, outcome.Failed)
			out.ExpiresAt = rec.ExpiresAt
			return out
		}
		out := x.publish(ctx, data, payload, outcome.Completed)
		out.ExpiresAt = rec.ExpiresAt
		return out
	})
}

// checkpoints is the last checkpoint a command's record holds (a previous
// attempt's, then each one this attempt stores) and the last one the
// handler asked for. A handler commits nothing after a checkpoint it asked
// for until it is stored, so the last asked for says what is committed
// even when the store failed to take it.
type checkpoints struct {
	mu     sync.Mutex
	last   string
	wanted string
}

func (c *checkpoints) ask(progress string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wanted = progress
}

func (c *checkpoints) set(progress string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = progress
}

// asked is the last checkpoint asked for, else the stored one.
func (c *checkpoints) asked() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wanted != "" {
		return c.wanted
	}
	return c.last
}

// unstored is the last checkpoint asked for when the record does not hold
// it, else "".
func (c *checkpoints) unstored() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wanted == c.last {
		return ""
	}
	return c.wanted
}

// failedProgress says how far a failed command that checkpoints got: the live
// counters for what this attempt did, the record's checkpoint and the live
// committed count (ahead of a syncpoint CONSUME's checkpoint by the chunk
// it committed last) for what is committed. It is resumable when the
// checkpoint gives a retry something to take over from, and the record
// keeps it for one (idempotency is on). Other operations have none.
func (x *Executor) failedProgress(op command.Operation, live *inflight.Counters, checkpoint string) *result.Progress {
	if !handlers.Describe(op).Checkpoints() {
		return nil
	}
	total, done, liveCommitted := live.Values()
	cp, _ := handlers.ReadCheckpointCommitted(op, checkpoint, liveCommitted)
	committed := int64(cp.Committed)
	return &result.Progress{Total: total, Done: max(done, committed), Committed: committed,
		FirstMsgID: cp.FirstMsgID, LastMsgID: cp.LastMsgID, Resumable: cp.Resumable && x.Engine.Deduplicates()}
}

// progress publishes an interim result; a lost progress event is only
// logged, as the next one or the final result supersedes it.
func (x *Executor) progress(ctx context.Context, j *job, attempt int, res any) {
	data := x.data(j, result.StatusInProgress, attempt)
	var err error
	if data.Result, err = json.Marshal(res); err == nil {
		err = x.Publisher.Publish(ctx, x.event(ctx, data, nil))
	}
	if err != nil {
		x.Log.Warn("progress event not published", "key", j.dec.IdempotencyKey, "error", err)
	}
}

// fail records a failed command; permanent failures are published and acked,
// transient ones are left for redelivery to retry. unstored, when not
// empty, is a checkpoint the store failed to take: the record gets it
// first, so a retry resumes from what this attempt committed.
func (x *Executor) fail(ctx context.Context, j *job, lease *idempotency.Lease, unstored string, data result.Data, cause error) Outcome {
	data.Status = result.StatusFailed
	data.Error = mqError(cause)
	if errors.Is(cause, idempotency.ErrStoreUnavailable) || errors.Is(cause, idempotency.ErrLeaseExpired) {
		// Stopped for the store, not for anything wrong with the command: a
		// redelivery resumes it.
		data.Error.Transient = true
	}
	body, _ := json.Marshal(data)
	// The record keeps the body for GET /commands/{op}/{key}; a retry of the
	// same command runs again rather than replaying it.
	resp := idempotency.Response{Payload: string(body), HTTPStatus: failedStatus}
	write := func(ctx context.Context) (idempotency.Record, error) {
		if unstored != "" {
			return x.Engine.FailAt(ctx, lease, unstored, data.Error.Message, resp)
		}
		return x.Engine.Fail(ctx, lease, data.Error.Message, resp)
	}
	return x.record(ctx, j, result.StatusFailed, data.Attempt, write, func(ctx context.Context, rec idempotency.Record) Outcome {
		if data.Error.Transient {
			ev := x.event(ctx, data, body)
			return Outcome{Kind: outcome.FailedTransient, Event: &ev, RetryAfter: x.cfg.RetryDelay,
				Body: body, ExpiresAt: rec.ExpiresAt, Err: cause}
		}
		out := x.publish(ctx, data, body, outcome.Failed)
		out.ExpiresAt = rec.ExpiresAt
		return out
	})
}

func (x *Executor) replay(ctx context.Context, j *job, rec idempotency.Record) Outcome {
	var data result.Data
	if err := json.Unmarshal([]byte(rec.ResponsePayload), &data); err != nil {
		out := x.undecided(j, fmt.Errorf("stored result of %s is unreadable: %w", rec.PK, err))
		out.Kind = outcome.Unreadable
		return out
	}
	data.Replay = true
	body, ok := markReplay([]byte(rec.ResponsePayload))
	if !ok {
		// Not as this daemon records results: the data says it all the same.
		body, _ = json.Marshal(data)
	}
	if x.cfg.Replay == ReplayDrop {
		ev := x.event(ctx, data, body)
		return Outcome{Kind: outcome.Replayed, Event: &ev, Body: body}
	}
	return x.publish(ctx, data, body, outcome.Replayed)
}

// reject refuses a command before it acts; the message is never retried.
func (x *Executor) reject(ctx context.Context, j *job, e *result.Error) Outcome {
	return x.refuse(ctx, j, outcome.Rejected, e)
}

// refuse refuses a command before it acts, as kind (Rejected or Limited).
func (x *Executor) refuse(ctx context.Context, j *job, kind outcome.Kind, e *result.Error) Outcome {
	data := x.data(j, result.StatusRejected, 0)
	data.Error = e
	if e.Code != result.CodeKeyReused {
		data.RawBody = capString(redactBody(j.in.Body), x.cfg.MaxRawBodyBytes)
	}
	return x.publish(ctx, data, nil, kind)
}

// event wraps data in a result event carrying ctx's trace context; encoded,
// when not nil, is data's JSON as recorded.
func (x *Executor) event(ctx context.Context, data result.Data, encoded []byte) result.Event {
	ev := result.NewEncoded(x.cfg.Source, data, encoded, time.Now())
	ev.TraceParent = telemetry.TraceParent(ctx)
	return ev
}

// publish sends the event of a final outcome of kind; encoded, when not
// nil, is data as recorded, which the event and the answer's Body carry.
// A failure whose result cannot be published is retried like a transient
// one; any other outcome stands, and a redelivery replays it to publish it.
func (x *Executor) publish(ctx context.Context, data result.Data, encoded []byte, kind outcome.Kind) Outcome {
	ev := x.event(ctx, data, encoded)
	out := Outcome{Kind: kind, Event: &ev, Body: encoded}
	ctx, span := x.Tracer.Start(ctx, "publish results", trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(telemetry.AttrMessagingOperationType.String("send"), telemetry.AttrMessagingDestination.String("results"),
			telemetry.AttrMessagingMessageID.String(ev.ID), attribute.String("cloudevents.event_type", string(ev.Type))))
	defer span.End()
	if err := x.Publisher.Publish(ctx, ev); err != nil {
		telemetry.Fail(span, err)
		// The record is already final, so a redelivery replays it.
		out.Err = fmt.Errorf("publish result: %w", err)
		out.RetryAfter = x.cfg.RetryDelay
		out.Unpublished = true
		if kind == outcome.Failed {
			out.Kind = outcome.FailedTransient
		}
	}
	return out
}

func (x *Executor) undecided(j *job, err error) Outcome {
	x.Log.Warn("command left for redelivery", "key", j.dec.IdempotencyKey, "operation", j.dec.Command.OperationType, "error", err)
	return Outcome{Kind: outcome.Undecided, RetryAfter: x.cfg.RetryDelay, Err: err}
}

func (x *Executor) data(j *job, status result.Status, attempt int) result.Data {
	now := time.Now().UTC()
	started := j.started
	tags := j.dec.Command.Tags
	if tags == nil {
		tags = map[string]string{}
	}
	op := string(j.dec.Command.OperationType)
	if op == "" {
		op = string(j.in.Operation)
	}
	d := result.Data{OperationType: op, Tenant: j.tenant.Name, IdempotencyKey: j.key(), Status: status, RequestHash: j.dec.RequestHash,
		Attempt: attempt, StartedAt: &started, FinishedAt: &now, DurationMs: now.Sub(started).Milliseconds(),
		Result: json.RawMessage("null"), Tags: tags, KeyGenerated: j.dec.KeyGenerated()}
	if j.target.Queue != "" {
		d.Target = j.target.String()
	}
	return d
}

// mqError describes a handler failure, with the MQ reason when there is one.
func mqError(err error) *result.Error {
	if e, ok := mq.AsError(err); ok {
		return &result.Error{Code: e.Reason.Code(), Reason: int32(e.Reason), Message: err.Error(), Transient: e.Transient()}
	}
	return &result.Error{Code: result.CodeInternal, Message: err.Error()}
}

func validationError(err error) *result.Error {
	var ve *command.ValidationError
	if !errors.As(err, &ve) {
		return &result.Error{Code: result.CodeInvalidCommand, Message: err.Error()}
	}
	e := &result.Error{Code: string(ve.Code), Message: ve.Error()}
	for _, p := range ve.Problems {
		e.Problems = append(e.Problems, result.Problem{Path: p.Path, Rule: p.Rule, Message: p.Message})
	}
	return e
}

// failedStatus is what a failed command's record keeps as its httpStatus.
var failedStatus = problems.For(outcome.Failed, "", false).Status

func capString(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
