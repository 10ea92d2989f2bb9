package responder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/probe"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/telemetry"
)

// getWait is how long one get waits for a request: a real MQGET cannot be
// interrupted, so this bounds how long Close waits for a worker.
const getWait = 500 * time.Millisecond

// maxOpenQueues bounds the reply queues a worker keeps open; past it the
// worker closes them all and opens again as requests name them.
const maxOpenQueues = 16

// reconnect paces a worker whose connection or queue failed.
var reconnect = mq.Backoff{Initial: 200 * time.Millisecond, Max: 10 * time.Second, MaxAttempts: -1}

// Outcomes of a request not answered, the outcome label of
// mqprobe_responder_requests_total (answered ones are "replied").
const (
	OutcomeDeadLettered = "dead_lettered"
	OutcomeFailed       = "failed"
)

// putApplName is PutApplName of the MQDLH on what a responder
// dead-letters.
const putApplName = "mqprobe responder"

// mqatUnix is MQAT_UNIX, the PutApplType of an application on Linux.
const mqatUnix = 6

// Connector lends connections; *mq.Pool is one.
type Connector interface {
	Acquire(ctx context.Context, t mq.Target) (*mq.PooledConn, error)
}

// Resolver says where a target goes and what it admits; *targets.Resolver
// is one.
type Resolver interface {
	Resolve(ctx context.Context, cmd command.Command) (targets.Resolved, error)
}

// Deps are what responders use.
type Deps struct {
	Conns   Connector
	Targets Resolver
	Metrics *telemetry.Metrics
	Log     *slog.Logger
}

// Set is the daemon's responders: built by New, serving from Start until
// Close.
type Set struct {
	log        *slog.Logger
	responders []*responder
	stop       context.CancelCauseFunc
	workers    sync.WaitGroup
}

type responder struct {
	cfg     Config
	target  targets.Resolved
	conns   Connector
	metrics *telemetry.Metrics
	log     *slog.Logger
}

// New resolves each responder's target, as a command naming it would be,
// so a responder the allowlist refuses stops the start; it connects to
// nothing.
func New(ctx context.Context, cfgs []Config, deps Deps) (*Set, error) {
	log := deps.Log
	if log == nil {
		log = slog.Default()
	}
	s := &Set{log: log}
	for i, c := range cfgs {
		cmd := command.Command{OperationType: command.Test, TargetRef: c.TargetRef, Queue: c.Queue}
		if c.TargetRef == "" {
			cmd.Queue = ""
			cmd.Target = &command.Target{QueueManager: c.QueueManager, Queue: c.Queue}
		}
		res, err := deps.Targets.Resolve(ctx, cmd)
		if err != nil {
			return nil, fmt.Errorf("responders[%d] (%s): %w", i, c.Name, err)
		}
		s.responders = append(s.responders, &responder{cfg: c, target: res, conns: deps.Conns,
			metrics: deps.Metrics, log: log.With("responder", c.Name, "queue", res.Queue)})
	}
	return s, nil
}

// Start starts every responder's workers; they serve until Close.
func (s *Set) Start() {
	ctx, stop := context.WithCancelCause(context.Background())
	s.stop = stop
	for _, r := range s.responders {
		for i := range r.cfg.workers() {
			s.workers.Go(func() { r.work(ctx, i) })
		}
		r.log.Info("responder serving", "queue_manager", r.target.Target.QueueManager, "workers", r.cfg.workers())
	}
}

// Close stops the workers, saying why in the log, and returns once they
// have ended: a request being answered is answered first, and a worker
// waiting for one stops within a get's wait.
func (s *Set) Close(reason error) {
	if s == nil || s.stop == nil {
		return
	}
	s.stop(reason)
	s.workers.Wait()
	if len(s.responders) > 0 {
		s.log.Info("responders stopped", "reason", reason.Error())
	}
}

// work serves until ctx ends, connecting again after a failure.
func (r *responder) work(ctx context.Context, worker int) {
	for attempt := 1; ; attempt++ {
		served, err := r.serve(ctx)
		if ctx.Err() != nil {
			return
		}
		if served {
			attempt = 1
		}
		delay := reconnect.Delay(attempt)
		r.log.Warn("responder worker failed; connecting again", "worker", worker, "retry_in", delay.String(), "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
	}
}

// serve connects, opens the request queue and answers requests until ctx
// ends or an MQ call fails; served says whether it got as far as serving.
func (r *responder) serve(ctx context.Context) (served bool, err error) {
	pc, err := r.conns.Acquire(ctx, r.target.Target)
	if err != nil {
		return false, err
	}
	defer pc.Close()
	qm, err := pc.InquireQueueManager(ctx)
	if err != nil {
		return false, err
	}
	requests, err := pc.OpenQueue(ctx, r.target.Queue, mq.OpenInputShared)
	if err != nil {
		return false, err
	}
	r.metrics.ResponderWorkers(ctx, r.cfg.Name, 1)
	defer r.metrics.ResponderWorkers(context.WithoutCancel(ctx), r.cfg.Name, -1)
	w := &worker{r: r, conn: pc, qm: qm, open: map[string]mq.Queue{}}
	var msg mq.Message
	for ctx.Err() == nil {
		err := requests.Get(ctx, &msg, mq.GetOptions{Wait: getWait})
		switch {
		case err == nil:
			// The request is answered even if Close comes meanwhile.
			if err := w.answer(context.WithoutCancel(ctx), &msg, time.Now()); err != nil {
				return true, err
			}
		case mq.IsReason(err, mq.ReasonNoMsgAvailable), ctx.Err() != nil:
		default:
			return true, fmt.Errorf("get from %s: %w", r.target.Queue, err)
		}
	}
	return true, nil
}

// worker is one connection's state while it serves.
type worker struct {
	r    *responder
	conn *mq.PooledConn
	qm   mq.QueueManagerInfo
	open map[string]mq.Queue // output handles by queue name
}

// answer replies to the request in msg, got at gotAt, or dead-letters it.
// Requests are got outside syncpoint: a responder that dies before its
// reply loses the request, which the probe counts lost, as it should.
// The error is a failure of the connection, after which the worker
// connects again; a request that could not be answered or dead-lettered
// is counted failed and logged.
func (w *worker) answer(ctx context.Context, msg *mq.Message, gotAt time.Time) error {
	r := w.r
	replyQ, replyQMgr := msg.ReplyToQ, msg.ReplyToQMgr
	if reason, why := w.refusal(replyQ, replyQMgr); reason != 0 {
		return w.deadLetter(ctx, msg, replyQ, replyQMgr, reason, why)
	}
	if msg.Properties == nil {
		msg.Properties = mq.Properties{}
	}
	msg.CorrelID, msg.MsgID = msg.MsgID, mq.ID{}
	msg.ReplyToQ, msg.ReplyToQMgr = "", ""
	msg.Properties[probe.PropRequestGotAt] = probe.FormatStamp(gotAt)
	q, err := w.output(ctx, replyQ)
	if err != nil {
		return w.undeliverable(ctx, msg, replyQ, replyQMgr, err)
	}
	putAt := time.Now()
	msg.Properties[probe.PropReplyPutAt] = probe.FormatStamp(putAt)
	if _, err := q.Put(ctx, msg, mq.PutOptions{}); err != nil {
		return w.undeliverable(ctx, msg, replyQ, replyQMgr, fmt.Errorf("put reply: %w", err))
	}
	r.metrics.ResponderReplied(ctx, r.cfg.Name, putAt.Sub(gotAt))
	return nil
}

// refusal says why a reply may not go to queue on qmgr: a reason code for
// the MQDLH and the words for the log; 0 when it may.
func (w *worker) refusal(queue, qmgr string) (mq.Reason, string) {
	switch {
	case queue == "":
		return reasonMissingReplyToQ, "the request names no ReplyToQ"
	case qmgr != "" && qmgr != w.qm.Name:
		return mq.ReasonUnknownObjectQMgr, fmt.Sprintf("ReplyToQMgr %s is not %s, the queue manager this responder serves on", qmgr, w.qm.Name)
	case mq.IsSystemQueue(queue):
		return mq.ReasonNotAuthorized, fmt.Sprintf("a responder never replies to SYSTEM.* queues (ReplyToQ %s)", queue)
	}
	if err := w.r.target.AllowQueue(queue); err != nil {
		return mq.ReasonNotAuthorized, "ReplyToQ refused: " + err.Error()
	}
	return 0, ""
}

// reasonMissingReplyToQ is MQRC_MISSING_REPLY_TO_Q.
const reasonMissingReplyToQ mq.Reason = 2027

// undeliverable dead-letters a reply that could not be put, with the
// reason of the failed call, as a queue manager does; a broken connection
// is the caller's to handle.
func (w *worker) undeliverable(ctx context.Context, reply *mq.Message, queue, qmgr string, err error) error {
	e, ok := mq.AsError(err)
	if !ok || w.conn.Broken() {
		w.r.metrics.ResponderRequest(ctx, w.r.cfg.Name, OutcomeFailed)
		return err
	}
	return w.deadLetter(ctx, reply, queue, qmgr, e.Reason, err.Error())
}

// deadLetter puts msg on the queue manager's dead-letter queue behind an
// MQDLH saying why and where it was going.
// deadLetterHeaderCCSID is the CCSID of the MQDLH the responder writes:
// its names are ASCII, which UTF-8 reads as they are.
const deadLetterHeaderCCSID = 1208

func (w *worker) deadLetter(ctx context.Context, msg *mq.Message, queue, qmgr string, reason mq.Reason, why string) error {
	r := w.r
	log := r.log.With("reason", reason.String(), "why", why, "reply_to_q", queue, "reply_to_qmgr", qmgr)
	fail := func(err error) error {
		log.Error("responder could not dead-letter a request; it is dropped", "error", err)
		r.metrics.ResponderRequest(ctx, r.cfg.Name, OutcomeFailed)
		if w.conn.Broken() {
			return err
		}
		return nil
	}
	dlq := w.qm.DeadLetterQueue
	if dlq == "" {
		return fail(fmt.Errorf("queue manager %s has no dead-letter queue (DEADQ)", w.qm.Name))
	}
	if qmgr == "" {
		qmgr = w.qm.Name
	}
	head, err := mq.DeadLetterHeader{Reason: reason, DestQueue: queue, DestQMgr: qmgr,
		Encoding: msg.Encoding, CCSID: msg.CCSID, Format: msg.Format,
		PutApplType: mqatUnix, PutApplName: putApplName, PutTime: time.Now()}.Encode()
	if err != nil {
		return fail(err)
	}
	q, err := w.output(ctx, dlq)
	if err != nil {
		return fail(err)
	}
	msg.Payload = append(head, msg.Payload...)
	msg.Format = mq.FormatDeadLetterHeader
	msg.CCSID, msg.Encoding = deadLetterHeaderCCSID, mq.EncodingNativeLittle // the header's, as Encode writes it
	if _, err := q.Put(ctx, msg, mq.PutOptions{}); err != nil {
		return fail(fmt.Errorf("put on %s: %w", dlq, err))
	}
	log.Warn("responder dead-lettered a request", "dead_letter_queue", dlq)
	r.metrics.ResponderRequest(ctx, r.cfg.Name, OutcomeDeadLettered)
	return nil
}

// output returns an output handle to queue, opening it on first use.
func (w *worker) output(ctx context.Context, queue string) (mq.Queue, error) {
	if q, ok := w.open[queue]; ok {
		return q, nil
	}
	if len(w.open) >= maxOpenQueues {
		var errs []error
		for name, q := range w.open {
			errs = append(errs, q.Close())
			delete(w.open, name)
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	q, err := w.conn.OpenQueue(ctx, queue, mq.OpenOutput)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", queue, err)
	}
	w.open[queue] = q
	return q, nil
}
