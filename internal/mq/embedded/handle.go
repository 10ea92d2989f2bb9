package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// handle is an open queue (hObj). Its connection's mutex guards it.
type handle struct {
	c      *conn
	q      *queue
	opts   mq.OpenOption
	closed bool
	cursor *position // browse cursor; nil before the first browse
	cur    position  // storage for cursor, so browsing does not allocate
}

var _ mq.Queue = (*handle)(nil)

func (h *handle) Name() string { return h.q.name }

func (h *handle) check(verb mq.Verb) error {
	if err := h.c.check(verb, h.q.name); err != nil {
		return err
	}
	if h.closed {
		return mq.NewError(verb, h.q.name, mq.ReasonHobjError)
	}
	return nil
}

func (h *handle) fail(verb mq.Verb, reason mq.Reason) error {
	return mq.NewError(verb, h.q.name, reason)
}

func (h *handle) Put(_ context.Context, msg *mq.Message, opts mq.PutOptions) (mq.PutResult, error) {
	c := h.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := h.check(mq.VerbPut); err != nil {
		return mq.PutResult{}, err
	}
	if !h.opts.Has(mq.OpenOutput) {
		return mq.PutResult{}, h.fail(mq.VerbPut, mq.ReasonNotOpenForOutput)
	}
	faults := &c.qm.backend.faults
	failRC, fault := faults.put.hit(), faults.takePut()
	if failRC != 0 {
		return mq.PutResult{}, h.fail(mq.VerbPut, failRC)
	}
	if err := h.validatePut(msg); err != nil {
		return mq.PutResult{}, err
	}
	if opts.Syncpoint && len(c.uow) >= c.qm.maxUncommitted {
		return mq.PutResult{}, h.fail(mq.VerbPut, mq.ReasonSyncpointLimitReached)
	}
	msgID := msg.MsgID
	if msgID.IsZero() {
		msgID = c.qm.newMsgID()
	}
	now := time.Now().Round(0) // wall clock only, like MQMD PutDate/PutTime
	// The body is reserved before it is copied, so a put over MaxBytes
	// allocates nothing.
	if !c.qm.reserveBody(len(msg.Payload)) {
		c.qm.purgeExpired(now.UnixNano())
		if !c.qm.reserveBody(len(msg.Payload)) {
			return mq.PutResult{}, h.fail(mq.VerbPut, mq.ReasonQSpaceNotAvailable)
		}
	}
	m := newMessage(msg, msgID, now)
	m.uncommitted = opts.Syncpoint

	q := h.q
	q.mu.Lock()
	if q.depth >= q.effectiveMaxDepth() {
		q.purgeExpired(now.UnixNano())
		if q.depth >= q.effectiveMaxDepth() {
			q.mu.Unlock()
			c.qm.discard(m)
			return mq.PutResult{}, h.fail(mq.VerbPut, mq.ReasonQFull)
		}
	}
	if opts.Syncpoint {
		m.fault = fault // applied at commit
		q.appendLocked(m)
	} else {
		q.deliverLocked(m, fault)
	}
	q.mu.Unlock()

	if opts.Syncpoint {
		c.uow = append(c.uow, uowEntry{q: q, m: m})
	}
	return mq.PutResult{MsgID: msgID, PutTime: now}, nil
}

// validatePut rejects what MQPUT would reject before touching the queue.
func (h *handle) validatePut(msg *mq.Message) error {
	switch {
	case msg.Priority < mq.MinPriority || msg.Priority > mq.MaxPriority:
		return h.fail(mq.VerbPut, mq.ReasonPriorityError)
	case msg.Expiry < 0:
		return h.fail(mq.VerbPut, mq.ReasonExpiryError)
	case len(msg.Format) > 8:
		return h.fail(mq.VerbPut, mq.ReasonFormatError)
	case len(msg.Payload) > h.q.maxMsgLength:
		return h.fail(mq.VerbPut, mq.ReasonMsgTooBigForQ)
	case len(msg.Payload) > h.c.qm.maxMsgLength:
		return h.fail(mq.VerbPut, mq.ReasonMsgTooBigForQMgr)
	}
	if len(msg.Properties) > 0 {
		if err := msg.Properties.Validate(); err != nil {
			if e, ok := mq.AsError(err); ok {
				e.Verb, e.Object = mq.VerbPut, h.q.name
			}
			return err
		}
	}
	return nil
}

func (h *handle) Get(ctx context.Context, msg *mq.Message, opts mq.GetOptions) error {
	c := h.c
	c.mu.Lock()
	locked := true
	defer func() {
		if locked {
			c.mu.Unlock()
		}
	}()
	if err := h.check(mq.VerbGet); err != nil {
		return err
	}
	browse := opts.Browse != mq.NoBrowse
	switch {
	case browse && opts.Syncpoint, opts.Browse < mq.NoBrowse || opts.Browse > mq.BrowseNext:
		return h.fail(mq.VerbGet, mq.ReasonOptionsError)
	case browse && !h.opts.Has(mq.OpenBrowse):
		return h.fail(mq.VerbGet, mq.ReasonNotOpenForBrowse)
	case !browse && !h.opts.Input():
		return h.fail(mq.VerbGet, mq.ReasonNotOpenForInput)
	case opts.Wait < 0:
		return h.fail(mq.VerbGet, mq.ReasonWaitIntervalError)
	}
	if rc := c.qm.backend.faults.get.hit(); rc != 0 {
		return h.fail(mq.VerbGet, rc)
	}
	if opts.Syncpoint && len(c.uow) >= c.qm.maxUncommitted {
		return h.fail(mq.VerbGet, mq.ReasonSyncpointLimitReached)
	}

	sel := match{msgID: opts.MsgID, correlID: opts.CorrelID}
	var deadline time.Time
	var timer *time.Timer
	q := h.q
	for {
		now := time.Now()
		var after *position
		if opts.Browse == mq.BrowseNext {
			after = h.cursor // nil (not yet positioned) behaves as browse-first
		}
		q.mu.Lock()
		lvl, idx, m := q.find(sel, after, now.UnixNano())
		if m != nil {
			if browse {
				m.copyTo(msg, now.UnixNano())
				h.cur = position{priority: int32(lvl), seq: m.seq}
				h.cursor = &h.cur
				q.mu.Unlock()
				return nil
			}
			q.levels[lvl].removeAt(idx)
			q.depth--
			q.mu.Unlock()
			m.copyTo(msg, now.UnixNano())
			if opts.Syncpoint {
				c.uow = append(c.uow, uowEntry{q: q, m: m, got: true})
			} else {
				c.qm.discard(m)
			}
			return nil
		}
		if deadline.IsZero() {
			deadline = now.Add(opts.Wait)
		}
		if !now.Before(deadline) {
			q.mu.Unlock()
			return h.fail(mq.VerbGet, mq.ReasonNoMsgAvailable)
		}
		if timer == nil {
			timer = time.NewTimer(deadline.Sub(now))
			defer timer.Stop()
		}
		wake := q.wake
		q.waiters++
		q.mu.Unlock()
		c.mu.Unlock()
		locked = false

		select {
		case <-wake:
		case <-timer.C:
		case <-ctx.Done():
		}

		c.mu.Lock()
		locked = true
		q.mu.Lock()
		if q.wake == wake {
			q.waiters-- // not woken by a put: withdraw
		}
		q.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mq: %s %s: wait: %w", mq.VerbGet, q.name, err)
		}
		if err := h.check(mq.VerbGet); err != nil {
			return err
		}
	}
}

func (h *handle) Inquire(context.Context) (mq.QueueInfo, error) {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if err := h.check(mq.VerbInquire); err != nil {
		return mq.QueueInfo{}, err
	}
	if !h.opts.Has(mq.OpenInquire) {
		return mq.QueueInfo{}, h.fail(mq.VerbInquire, mq.ReasonNotOpenForInquire)
	}
	q := h.q
	q.mu.Lock()
	defer q.mu.Unlock()
	return mq.QueueInfo{
		Name:            q.name,
		Type:            mq.QueueLocal,
		CurrentDepth:    q.depth,
		MaxDepth:        q.effectiveMaxDepth(),
		OpenInputCount:  q.inputCount,
		OpenOutputCount: q.outputCount,
		MaxMsgLength:    q.maxMsgLength,
	}, nil
}

func (h *handle) Close() error {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if err := h.check(mq.VerbClose); err != nil {
		return err
	}
	h.closeLocked()
	return nil
}

// closeLocked releases the handle's open counts. Callers hold c.mu.
func (h *handle) closeLocked() {
	if h.closed {
		return
	}
	h.closed = true
	delete(h.c.handles, h)
	q := h.q
	q.mu.Lock()
	if h.opts.Input() {
		q.inputCount--
		if h.opts.Has(mq.OpenInputExclusive) {
			q.exclusive = false
		}
	}
	if h.opts.Has(mq.OpenOutput) {
		q.outputCount--
	}
	q.mu.Unlock()
}
