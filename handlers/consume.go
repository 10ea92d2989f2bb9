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
// Browsed counts browses.
type ConsumeResult struct {
	Received  int               `json:"received"`
	Browsed   int               `json:"browsed"`
	Messages  []CapturedMessage `json:"messages"`
	Truncated bool              `json:"truncated"`
}

// consumeProgress is CONSUME's checkpoint: what every attempt captured.
// Messages[:Committed] are final. The rest were checkpointed just before a
// commit that may not have happened; a resuming attempt finds out by
// looking for them on the queue.
type consumeProgress struct {
	Committed int               `json:"committed"`
	Truncated bool              `json:"truncated"`
	Messages  []CapturedMessage `json:"messages"`
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
	r := ConsumeResult{Messages: c.cap.messages, Truncated: c.cap.truncated}
	if c.browse {
		r.Browsed = len(r.Messages)
	} else {
		r.Received = len(r.Messages)
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
	settled, err := c.settledInDoubt(ctx, prog.Messages[prog.Committed:])
	if err != nil {
		return err
	}
	c.cap.restore(append(prog.Messages[:prog.Committed], settled...), prog.Truncated)
	c.committed = len(c.cap.messages)
	return nil
}

// settledInDoubt returns the in-doubt messages whose commit happened: those
// no longer on the queue. One still there was backed out with its
// attempt's unit of work and will be got again. (A message another
// consumer took in between is counted as ours: MQ cannot tell.)
func (c *consumer) settledInDoubt(ctx context.Context, doubt []CapturedMessage) ([]CapturedMessage, error) {
	if len(doubt) == 0 {
		return nil, nil
	}
	bq, err := c.conn.OpenQueue(ctx, c.run.Queue, mq.OpenBrowse)
	if err != nil {
		return nil, fmt.Errorf("open %s to browse: %w", c.run.Queue, err)
	}
	defer bq.Close()
	var settled []CapturedMessage
	var probe mq.Message
	for _, m := range doubt {
		id, err := decodeID(m.MsgIDBase64)
		if err != nil {
			return nil, fmt.Errorf("checkpointed msgId %q: %w", m.MsgIDBase64, err)
		}
		err = bq.Get(ctx, &probe, mq.GetOptions{Browse: mq.BrowseFirst, MsgID: id})
		switch {
		case err == nil:
		case mq.IsReason(err, mq.ReasonNoMsgAvailable):
			settled = append(settled, m)
		default:
			return nil, fmt.Errorf("look for msgId %s: %w", m.MsgIDBase64, err)
		}
	}
	return settled, nil
}

// getAll gets until max messages, an empty queue or an error. Only the
// first get of the command waits.
func (c *consumer) getAll(ctx context.Context) error {
	var msg mq.Message
	for n := len(c.cap.messages); n < c.max; n = len(c.cap.messages) {
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
		c.run.Live.SetDone(int64(len(c.cap.messages)))
		c.uow.n++
		if c.chunk > 0 && len(c.cap.messages)-c.committed == c.chunk {
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
	pending := len(c.cap.messages) - c.committed
	switch {
	case c.browse || pending == 0:
		return nil
	case c.rollback:
		if err := c.conn.Backout(ctx); err != nil {
			return fmt.Errorf("consume: back out %d messages: %w", pending, err)
		}
	case c.syncpoint:
		if err := c.checkpoint(ctx, c.committed); err != nil {
			return backout(ctx, c.conn, err)
		}
		if err := c.conn.Commit(ctx); err != nil {
			return fmt.Errorf("consume: commit %d messages: %w", pending, withCause(ctx, err))
		}
	default:
		if err := c.checkpoint(ctx, len(c.cap.messages)); err != nil {
			return err
		}
	}
	c.committed = len(c.cap.messages)
	if !c.rollback { // backed out: nothing is committed
		c.run.Live.SetCommitted(int64(c.committed))
	}
	return nil
}

func (c *consumer) checkpoint(ctx context.Context, committed int) error {
	prog := consumeProgress{Committed: committed, Truncated: c.cap.truncated, Messages: c.cap.messages}
	if err := saveProgress(ctx, c.run, prog); err != nil {
		return fmt.Errorf("consume: after %d messages: %w", len(c.cap.messages), err)
	}
	return nil
}

// stop ends a cancelled attempt.
func (c *consumer) stop(ctx context.Context) error {
	return c.abort(ctx, fmt.Errorf("consume: stopped after %d messages: %w", len(c.cap.messages), withCause(ctx, ctx.Err())))
}

// abort backs out the gets of an open unit of work and returns err.
func (c *consumer) abort(ctx context.Context, err error) error {
	if c.uow != nil {
		c.uow.end(err)
		c.uow = nil
	}
	if c.syncpoint && len(c.cap.messages) > c.committed {
		return backout(ctx, c.conn, err)
	}
	return err
}
