package handlers

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// ConsumeResult is CONSUME's data.result. Received counts
// destructive gets (with ack rollback, gets that were then backed out);
// Browsed counts browses. Messages lists the first of them, as many as
// the capture limits and the idempotency record allow; Truncated says
// that payloads were cut or that the messages past the list were counted
// only (Received or Browsed minus len(Messages)).
type ConsumeResult struct {
	Received  int               `json:"received"`
	Browsed   int               `json:"browsed"`
	Messages  []CapturedMessage `json:"messages"`
	Truncated bool              `json:"truncated"`
	// PayloadsOmitted: the command asked for no payloads (includePayloads
	// false), so every payloadBase64 is empty.
	PayloadsOmitted bool `json:"payloadsOmitted,omitempty"`
}

// consumeProgress is CONSUME's checkpoint: what every attempt captured.
// Messages[:Committed] are final, and Counted messages after them that
// were not listed. Messages[Committed:] and the unlisted messages of
// Doubt (ids) were checkpointed just before a commit that may not have
// happened; a resuming attempt finds out by looking for them on the queue.
type consumeProgress struct {
	Committed   int               `json:"committed"`
	Truncated   bool              `json:"truncated"`
	Messages    []CapturedMessage `json:"messages"`
	Counted     int               `json:"counted,omitempty"`
	LastCounted string            `json:"lastCounted,omitempty"` // msgId of the last counted final one
	Doubt       []string          `json:"doubt,omitempty"`
}

// consumer is one CONSUME attempt. Its modes:
//   - browse: no unit of work, nothing to resume;
//   - ack rollback: every get in one unit of work, backed out at the end,
//     so the messages stay; nothing to resume either;
//   - ack commit with a transaction: gets under syncpoint, and every txSize
//     gets a checkpoint of what was captured and then MQCMIT, so a crash
//     after the commit never loses what was consumed;
//   - otherwise (ack none, or commit without a transaction): gets outside
//     syncpoint, final at once, checkpointed every txSize.
type consumer struct {
	run       Run
	conn      mq.Conn
	q         mq.Queue
	max       int
	wait      time.Duration
	browse    bool
	rollback  bool
	syncpoint bool
	chunk     int           // gets per checkpoint; 0: settle only at the end
	match     mq.GetOptions // selector
	cap       *capture
	committed int         // cap.messages[:committed] are settled
	uow       *unitOfWork // the open unit of work, nil between settles
}

// consumeWithin is CONSUME: it gets or browses a batch, copying payloads
// into the result within limits.
func consumeWithin(limits CaptureLimits) Handler {
	return func(ctx context.Context, run Run) (any, error) { return consume(ctx, run, limits) }
}

func consume(ctx context.Context, run Run, limits CaptureLimits) (any, error) {
	c, err := newConsumer(run, limits)
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	opts := mq.OpenInputShared
	if c.browse {
		opts = mq.OpenBrowse
	}
	conn, q, err := openQueue(ctx, run, "consume", opts)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	c.conn, c.q = conn, q
	if err := c.resume(ctx); err != nil {
		return nil, fmt.Errorf("consume: resume: %w", err)
	}
	run.Live.Start(int64(c.max), int64(c.committed))
	if err := c.getAll(ctx); err != nil {
		return nil, err
	}
	r := ConsumeResult{Messages: c.cap.messages, Truncated: c.cap.truncated, PayloadsOmitted: c.cap.omitPayloads}
	if c.browse {
		r.Browsed = c.cap.count()
	} else {
		r.Received = c.cap.count()
	}
	return r, nil
}

func newConsumer(run Run, limits CaptureLimits) (*consumer, error) {
	cmd := run.Command
	c := &consumer{
		run:    run,
		max:    max(cmd.MaxMessages, 1),
		browse: cmd.BrowseOnly,
		cap:    newCapture(limits),
	}
	c.cap.omitPayloads = cmd.IncludePayloads != nil && !*cmd.IncludePayloads
	// The schema gave waitSeconds and transaction their defaults.
	if cmd.WaitSeconds != nil {
		c.wait = time.Duration(*cmd.WaitSeconds) * time.Second
	}
	tx := cmd.Transaction != nil && cmd.Transaction.Enabled
	if cmd.Transaction != nil {
		c.chunk = cmd.Transaction.TxSize
	}
	switch {
	case c.browse:
		c.chunk = 0
	case cmd.Ack == command.AckRollback:
		c.rollback, c.syncpoint, c.chunk = true, true, 0
	case tx && (cmd.Ack == command.AckCommit || cmd.Ack == ""):
		c.syncpoint = true
	}
	if sel := cmd.Selector; sel != nil {
		var err error
		if c.match.MsgID, err = decodeID(sel.MsgIDBase64); err != nil {
			return nil, fmt.Errorf("selector.msgIdBase64: %w", err)
		}
		if c.match.CorrelID, err = decodeID(sel.CorrelIDBase64); err != nil {
			return nil, fmt.Errorf("selector.correlIdBase64: %w", err)
		}
	}
	return c, nil
}

// decodeID decodes a base64 MsgId or CorrelId; "" is the zero ID (match any).
func decodeID(s string) (mq.ID, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return mq.ID{}, err
	}
	return mq.IDFromBytes(raw)
}

// resume takes over what a previous attempt captured. Only the modes that
// checkpoint resume: a browse or a rollback changed nothing and starts over.
func (c *consumer) resume(ctx context.Context) error {
	if c.chunk == 0 {
		return nil
	}
	var prog consumeProgress
	if ok, err := loadProgress(c.run, &prog); err != nil || !ok {
		return err
	}
	prog.Committed = min(max(prog.Committed, 0), len(prog.Messages))
	settled, settledCounted, err := c.settledInDoubt(ctx, prog.Messages[prog.Committed:], prog.Doubt)
	if err != nil {
		return err
	}
	c.cap.restore(append(prog.Messages[:prog.Committed], settled...), prog.Truncated,
		max(prog.Counted, 0)+len(settledCounted), prog.LastCounted)
	if n := len(settledCounted); n > 0 {
		c.cap.lastCounted, c.cap.lastSettled = settledCounted[n-1], settledCounted[n-1]
	}
	c.committed = c.cap.count()
	return nil
}

// settledInDoubt returns the in-doubt messages (listed ones, and the ids
// of unlisted ones) whose commit happened: those no longer on the queue.
// One still there was backed out with its attempt's unit of work and will
// be got again. (A message another consumer took in between is counted as
// ours: MQ cannot tell.)
func (c *consumer) settledInDoubt(ctx context.Context, doubt []CapturedMessage, doubtIDs []string) ([]CapturedMessage, []string, error) {
	if len(doubt) == 0 && len(doubtIDs) == 0 {
		return nil, nil, nil
	}
	bq, err := c.conn.OpenQueue(ctx, c.run.Queue, mq.OpenBrowse)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s to browse: %w", c.run.Queue, err)
	}
	defer bq.Close()
	var probe mq.Message
	gone := func(msgID string) (bool, error) {
		id, err := decodeID(msgID)
		if err != nil {
			return false, fmt.Errorf("checkpointed msgId %q: %w", msgID, err)
		}
		err = bq.Get(ctx, &probe, mq.GetOptions{Browse: mq.BrowseFirst, MsgID: id})
		switch {
		case err == nil:
			return false, nil
		case mq.IsReason(err, mq.ReasonNoMsgAvailable):
			return true, nil
		}
		return false, fmt.Errorf("look for msgId %s: %w", msgID, err)
	}
	var settled []CapturedMessage
	for _, m := range doubt {
		ok, err := gone(m.MsgIDBase64)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			settled = append(settled, m)
		}
	}
	var settledIDs []string
	for _, id := range doubtIDs {
		ok, err := gone(id)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			settledIDs = append(settledIDs, id)
		}
	}
	return settled, settledIDs, nil
}

// getAll gets until max messages, an empty queue or an error. Only the
// first get of the command waits.
func (c *consumer) getAll(ctx context.Context) error {
	var msg mq.Message
	for n := c.cap.count(); n < c.max; n = c.cap.count() {
		if cancelled(ctx) {
			return c.stop(ctx)
		}
		opts := c.match
		opts.Syncpoint = c.syncpoint
		if n == 0 {
			opts.Wait = c.wait
		}
		if c.browse {
			opts.Browse = mq.BrowseNext
			if n == 0 {
				opts.Browse = mq.BrowseFirst
			}
		}
		if c.uow == nil {
			op := "get"
			if c.browse {
				op = "browse"
			}
			c.uow = beginUnit(ctx, c.run, op)
		}
		if err := c.q.Get(ctx, &msg, opts); err != nil {
			switch {
			case cancelled(ctx): // a get-wait ended by the context
				return c.stop(ctx)
			case mq.IsReason(err, mq.ReasonNoMsgAvailable):
				return c.settle(ctx)
			}
			if c.rollback {
				err = syncpointLimitHint(err, "maxMessages (ack rollback gets them all in one unit of work)", c.max)
			} else {
				err = syncpointLimitHint(err, "transaction.txSize", c.chunk)
			}
			return c.abort(ctx, fmt.Errorf("consume: get message %d: %w", n+1, err))
		}
		c.cap.add(&msg)
		c.run.Live.SetDone(int64(c.cap.count()))
		c.uow.n++
		// A checkpoint holds the ids of a unit's unlisted messages, so a
		// unit settles early rather than outgrow the record.
		if c.chunk > 0 && (c.cap.count()-c.committed == c.chunk || len(c.cap.pending) == maxDoubtIDs) {
			if err := c.settle(ctx); err != nil {
				return err
			}
		}
	}
	return c.settle(ctx)
}

// settle ends the pending gets as the mode says. Under syncpoint the
// checkpoint comes before MQCMIT: if the process dies between the two, the
// record still has the messages (resume sorts out whether they committed).
func (c *consumer) settle(ctx context.Context) (err error) {
	if c.uow != nil {
		defer func() {
			c.uow.end(err)
			c.uow = nil
		}()
	}
	pending := c.cap.count() - c.committed
	switch {
	case c.browse || pending == 0:
		return nil
	case c.rollback:
		if err := c.conn.Backout(ctx); err != nil {
			return fmt.Errorf("consume: back out %d messages: %w", pending, err)
		}
	case c.syncpoint:
		if err := c.checkpoint(ctx, c.committed, c.cap.pending); err != nil {
			return backout(ctx, c.conn, err)
		}
		if err := c.conn.Commit(ctx); err != nil {
			return fmt.Errorf("consume: commit %d messages: %w", pending, withCause(ctx, err))
		}
	default:
		if err := c.checkpoint(ctx, c.cap.count(), nil); err != nil {
			return err
		}
	}
	c.cap.settled()
	c.committed = c.cap.count()
	if !c.rollback { // backed out: nothing is committed
		c.run.Live.SetCommitted(int64(c.committed))
	}
	return nil
}

// checkpoint stores the capture with committed messages final and the
// unlisted ones of doubt (ids) in doubt; the listed ones past committed
// are in doubt too.
func (c *consumer) checkpoint(ctx context.Context, committed int, doubt []string) error {
	listed := min(committed, len(c.cap.messages))
	prog := consumeProgress{Committed: listed, Truncated: c.cap.truncated, Messages: c.cap.messages,
		Counted: committed - listed, Doubt: doubt}
	if prog.Counted > 0 {
		prog.LastCounted = c.cap.lastCounted
		if len(doubt) > 0 {
			prog.LastCounted = c.cap.lastSettled
		}
	}
	if err := saveProgress(ctx, c.run, prog); err != nil {
		return fmt.Errorf("consume: after %d messages: %w", c.cap.count(), err)
	}
	return nil
}

// stop ends a cancelled attempt.
func (c *consumer) stop(ctx context.Context) error {
	return c.abort(ctx, fmt.Errorf("consume: stopped after %d messages: %w", c.cap.count(), withCause(ctx, ctx.Err())))
}

// abort backs out the gets of an open unit of work and returns err.
func (c *consumer) abort(ctx context.Context, err error) error {
	if c.uow != nil {
		c.uow.end(err)
		c.uow = nil
	}
	if c.syncpoint && c.cap.count() > c.committed {
		return backout(ctx, c.conn, err)
	}
	return err
}
