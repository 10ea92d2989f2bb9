package embedded

import (
	"context"
	"fmt"
	"sync"

	"github.com/mqprobe/mqprobe/internal/mq"
)

type connState int

const (
	stateOpen connState = iota
	stateBroken
	stateClosed
)

// conn is one connection and its unit of work. mu serializes its calls and
// is held for the whole call except while a get waits; lock order is
// conn.mu before queue.mu.
type conn struct {
	qm      *queueManager
	mu      sync.Mutex
	state   connState
	uow     []uowEntry
	handles map[*handle]struct{}
	// internal is the queue manager's own connection (an MQI server's
	// command server): injected put, get and commit faults and refusals
	// are for the applications under test, not for it.
	internal bool
}

// uowEntry is one message put or got under syncpoint.
type uowEntry struct {
	q   *queue
	m   *message
	got bool
}

var _ mq.Conn = (*conn)(nil)

// check reports why the connection cannot take a call, if it cannot.
func (c *conn) check(verb mq.Verb, object string) error {
	switch c.state {
	case stateBroken:
		return mq.NewError(verb, object, mq.ReasonConnectionBroken)
	case stateClosed:
		return mq.NewError(verb, object, mq.ReasonHconnError)
	}
	return nil
}

func (c *conn) OpenQueue(_ context.Context, name string, opts mq.OpenOption) (mq.Queue, error) {
	h, err := c.open(name, opts)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// reasonOptionNotValidForType is MQRC_OPTION_NOT_VALID_FOR_TYPE: input or
// browse on a remote queue definition.
const reasonOptionNotValidForType mq.Reason = 2045

// open opens name, resolving an alias to its target and a remote
// definition to its transmission queue.
func (c *conn) open(name string, opts mq.OpenOption) (*handle, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(mq.VerbOpen, name); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		if e, ok := mq.AsError(err); ok {
			e.Object = name
		}
		return nil, err
	}
	h := &handle{c: c, name: name, typ: mq.QueueLocal, opts: opts}
	target := name
	if base, ok := c.qm.aliases[name]; ok {
		h.typ, h.alias, target = mq.QueueAlias, base, base
	}
	if r := c.qm.remotes[target]; r != nil {
		if h.typ == mq.QueueLocal {
			h.typ = mq.QueueRemote
		}
		h.remote = r
		if opts.Input() || opts.Has(mq.OpenBrowse) {
			return nil, mq.NewError(mq.VerbOpen, name, reasonOptionNotValidForType)
		}
		target = r.xmitq()
	}
	q := c.qm.queue(target)
	if q == nil {
		// As for 2058, name what exists: the mistake is the command's.
		e := mq.NewError(mq.VerbOpen, name, mq.ReasonUnknownObjectName)
		e.Err = fmt.Errorf("queue manager %s has no queue %q; it has %s", c.qm.name, name, c.qm.queueNames())
		return nil, e
	}
	h.q = q
	q.mu.Lock()
	defer q.mu.Unlock()
	if opts.Input() {
		if q.exclusive || (opts.Has(mq.OpenInputExclusive) && q.inputCount > 0) {
			return nil, mq.NewError(mq.VerbOpen, name, mq.ReasonObjectInUse)
		}
		q.inputCount++
		q.exclusive = opts.Has(mq.OpenInputExclusive)
	}
	if opts.Has(mq.OpenOutput) {
		q.outputCount++
	}
	c.handles[h] = struct{}{}
	return h, nil
}

func (c *conn) InquireQueueManager(context.Context) (mq.QueueManagerInfo, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(mq.VerbInquire, c.qm.name); err != nil {
		return mq.QueueManagerInfo{}, err
	}
	info := mq.QueueManagerInfo{Name: c.qm.name, CommandLevel: c.qm.commandLevel, Platform: mq.PlatformUnix, CCSID: utf8CCSID}
	if c.qm.queues[deadLetterQueue] != nil {
		info.DeadLetterQueue = deadLetterQueue
	}
	return info, nil
}

// utf8CCSID is the queue manager's CCSID: UTF-8, as IBM's developer image
// has it.
const utf8CCSID = 1208

// InquireChannelStatus returns no channel: an in-process connection has
// none.
func (c *conn) InquireChannelStatus(context.Context) (mq.ChannelStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return mq.ChannelStatus{}, c.check(mq.VerbInquire, c.qm.name)
}

func (c *conn) Commit(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(mq.VerbCommit, ""); err != nil {
		return err
	}
	if rc := c.commitFault(); rc != 0 {
		c.backoutLocked()
		return mq.NewError(mq.VerbCommit, "", rc)
	}
	c.commitLocked()
	return c.qm.syncJournal(mq.VerbCommit, "")
}

func (c *conn) Backout(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(mq.VerbBackout, ""); err != nil {
		return err
	}
	c.backoutLocked()
	return nil
}

// Close disconnects, backing out the unit of work. Closing a broken or
// closed connection does nothing.
func (c *conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == stateOpen {
		c.endLocked(stateClosed)
		c.qm.backend.forget(c)
	}
	return nil
}

// endLocked backs out, closes every handle and moves to state.
func (c *conn) endLocked(state connState) {
	if c.state != stateOpen {
		return
	}
	c.backoutLocked()
	for h := range c.handles {
		h.closeLocked()
	}
	c.state = state
}

// commitLocked makes puts visible and gets final, locking each queue once
// per run of entries on it.
func (c *conn) commitLocked() {
	var locked *queue
	wake := false
	for _, e := range c.uow {
		if e.q != locked {
			if locked != nil {
				locked.finishCommit(wake)
			}
			locked, wake = e.q, false
			locked.mu.Lock()
		}
		locked.stats.settled()
		switch {
		case e.got:
			c.qm.discard(e.m)
		case locked.deleted.Load():
			// DeleteQueue gave its messages' bodies back.
		case e.m.fault == putDrop:
			// Not on the queue any more only if a reset cleared it, which
			// gave its body back.
			if locked.levels[e.m.priority].remove(e.m) {
				locked.depth--
				c.qm.discard(e.m)
			}
		default:
			e.m.uncommitted = false
			locked.hardenLocked(e.m)
			if e.m.fault == putDup {
				e.m.fault = putNormal
				locked.appendCopyLocked(e.m)
			}
			wake = true
		}
	}
	if locked != nil {
		locked.finishCommit(wake)
	}
	clear(c.uow)
	c.uow = c.uow[:0]
}

func (q *queue) finishCommit(wake bool) {
	if wake {
		q.wakeLocked()
	}
	q.mu.Unlock()
}

// backoutLocked removes uncommitted puts and restores got messages to their
// original positions with BackoutCount+1.
func (c *conn) backoutLocked() {
	for _, e := range c.uow {
		q := e.q
		q.mu.Lock()
		l := &q.levels[e.m.priority]
		q.stats.settled()
		if e.got && q.deleted.Load() {
			c.qm.discard(e.m)
		} else if e.got {
			e.m.backoutCount++
			l.insert(e.m)
			q.depth++
			q.wakeLocked()
		} else if l.remove(e.m) { // not there only if a reset cleared it
			q.depth--
			c.qm.discard(e.m)
		}
		q.mu.Unlock()
	}
	clear(c.uow)
	c.uow = c.uow[:0]
}

// getFault and commitFault count a get or commit against the injected
// faults and return the reason to fail it with, if any; never for the
// queue manager's own connection.
func (c *conn) getFault() mq.Reason {
	if c.internal {
		return 0
	}
	return c.qm.backend.faults.get.hit()
}

func (c *conn) commitFault() mq.Reason {
	if c.internal {
		return 0
	}
	return c.qm.backend.faults.commit.hit()
}
