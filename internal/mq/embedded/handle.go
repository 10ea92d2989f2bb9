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
	q      *queue // the local queue puts and gets reach
	name   string // as opened
	typ    mq.QueueType
	alias  string             // an alias's TARGET
	remote *RemoteQueueConfig // a remote definition, opened directly or through an alias
	opts   mq.OpenOption
	closed bool
	cursor *position // browse cursor; nil before the first browse
	cur    position  // storage for cursor, so browsing does not allocate
	// props is the frozen copy of the properties last put: stored messages
	// share it while the puts' properties stay equal to it. propList holds
	// the same pairs, so a put compares by lookups in its own map rather
	// than by iterating one (which costs a PRODUCE put about a tenth).
	props    mq.Properties
	propList []property
}

// property is one name and value of a frozen property set.
type property struct {
	name  string
	value any
}

var _ mq.Queue = (*handle)(nil)

func (h *handle) Name() string { return h.name }

func (h *handle) check(verb mq.Verb) error {
	if err := h.c.check(verb, h.name); err != nil {
		return err
	}
	if h.closed {
		return mq.NewError(verb, h.name, mq.ReasonHobjError)
	}
	if verb != mq.VerbClose && h.q.deleted.Load() {
		return mq.NewError(verb, h.name, reasonQDeleted)
	}
	return nil
}

func (h *handle) fail(verb mq.Verb, reason mq.Reason) error {
	return mq.NewError(verb, h.name, reason)
}

// putRequest is a put's options beyond the message: the port's, and the
// MQI's the server passes (see MQIQueue.Put).
type putRequest struct {
	syncpoint   bool
	newMsgID    bool // MQPMO_NEW_MSG_ID: ignore the message's MsgId
	newCorrelID bool // MQPMO_NEW_CORREL_ID
	putTime     time.Time
	desc        *Descriptor // nil from the port
	propOrder   []string
}

// putDone is what a put assigned.
type putDone struct {
	msgID, correlID mq.ID
	putTime         time.Time
}

func (h *handle) Put(_ context.Context, msg *mq.Message, opts mq.PutOptions) (mq.PutResult, error) {
	done, err := h.put(msg, putRequest{syncpoint: opts.Syncpoint})
	return mq.PutResult{MsgID: done.msgID, PutTime: done.putTime}, err
}

func (h *handle) put(msg *mq.Message, req putRequest) (putDone, error) {
	c := h.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := h.check(mq.VerbPut); err != nil {
		return putDone{}, err
	}
	if !h.opts.Has(mq.OpenOutput) {
		return putDone{}, h.fail(mq.VerbPut, mq.ReasonNotOpenForOutput)
	}
	faults := &c.qm.backend.faults
	var failRC mq.Reason
	fault := putNormal
	if !c.internal {
		failRC, fault = faults.put.hit(), faults.takePut()
	}
	if failRC != 0 {
		return putDone{}, h.fail(mq.VerbPut, failRC)
	}
	if err := h.validatePut(msg); err != nil {
		return putDone{}, err
	}
	if msg.Persistent {
		if err := c.qm.journalFailed(mq.VerbPut, h.name); err != nil {
			return putDone{}, err
		}
	}
	props, err := h.freezeProperties(msg.Properties)
	if err != nil {
		return putDone{}, err
	}
	if req.syncpoint && len(c.uow) >= c.qm.maxUncommitted {
		return putDone{}, h.fail(mq.VerbPut, mq.ReasonSyncpointLimitReached)
	}
	done := putDone{msgID: msg.MsgID, correlID: msg.CorrelID, putTime: req.putTime}
	if done.msgID.IsZero() || req.newMsgID {
		done.msgID = c.qm.newMsgID()
	}
	if req.newCorrelID {
		done.correlID = c.qm.newMsgID()
	}
	if done.putTime.IsZero() {
		done.putTime = time.Now()
	}
	done.putTime = done.putTime.Round(0) // wall clock only, like MQMD PutDate/PutTime
	// The body is reserved before it is copied, so a put over MaxBytes
	// allocates nothing.
	if !c.qm.reserveBody(len(msg.Payload)) {
		c.qm.purgeExpired(done.putTime.UnixNano())
		if !c.qm.reserveBody(len(msg.Payload)) {
			return putDone{}, h.fail(mq.VerbPut, mq.ReasonQSpaceNotAvailable)
		}
	}
	m := newMessage(msg, done.msgID, done.putTime, props)
	m.correlID = done.correlID
	if req.desc != nil {
		d := *req.desc // the message's own copy: the caller's is reused
		d.Valid = true
		m.desc, m.propOrder = &d, req.propOrder
		m.ccsid, m.encoding = putCCSID(d.CodedCharSetID), d.Encoding // an MQI put's, exactly
	}
	m.uncommitted = req.syncpoint
	q := h.q
	q.mu.Lock()
	if q.depth >= q.effectiveMaxDepth() {
		q.purgeExpired(done.putTime.UnixNano())
		if q.depth >= q.effectiveMaxDepth() {
			q.mu.Unlock()
			c.qm.discard(m)
			return putDone{}, h.fail(mq.VerbPut, mq.ReasonQFull)
		}
	}
	if req.syncpoint {
		m.fault = fault // applied at commit
		q.appendLocked(m)
	} else {
		q.deliverLocked(m, fault)
	}
	q.mu.Unlock()
	if req.syncpoint {
		c.uow = append(c.uow, uowEntry{q: q, m: m})
	} else if msg.Persistent {
		return done, c.qm.syncJournal(mq.VerbPut, h.name)
	}
	return done, nil
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
	return nil
}

// freezeProperties returns props as stored messages hold them: never
// written again, so messages may share them. While a handle's puts carry
// the same properties (a PRODUCE's trace context and headers), the copy
// made for the first is shared; a change is validated and copied once.
func (h *handle) freezeProperties(props mq.Properties) (mq.Properties, error) {
	if len(props) == 0 {
		return nil, nil
	}
	if h.sameProperties(props) {
		return h.props, nil
	}
	if err := props.Validate(); err != nil {
		if e, ok := mq.AsError(err); ok {
			e.Verb, e.Object = mq.VerbPut, h.name
		}
		return nil, err
	}
	h.props = copyProperties(nil, props)
	h.propList = h.propList[:0]
	for name, value := range h.props {
		h.propList = append(h.propList, property{name, value})
	}
	return h.props, nil
}

// sameProperties reports whether props holds the frozen set's names and
// values (see mq.SamePropertyValue).
func (h *handle) sameProperties(props mq.Properties) bool {
	if h.props == nil || len(props) != len(h.propList) {
		return false
	}
	for _, p := range h.propList {
		if v, ok := props[p.name]; !ok || !mq.SamePropertyValue(v, p.value) {
			return false
		}
	}
	return true
}

// Reason codes of MQGET the port does not name.
const (
	reasonNoMsgUnderCursor     mq.Reason = 2034
	reasonTruncatedMsgAccepted mq.Reason = 2079
)

// getRequest is a get's options: the port's, and the MQI's the server
// passes (see MQIQueue.Get).
type getRequest struct {
	wait                  time.Duration
	waitUnlimited         bool
	syncpoint             bool
	syncpointIfPersistent bool
	browse                mq.BrowseMode
	browseUnderCursor     bool // MQGMO_BROWSE_MSG_UNDER_CURSOR
	msgUnderCursor        bool // MQGMO_MSG_UNDER_CURSOR: take the browsed message
	sel                   match
	bufferLength          int // −1: the port, which takes any length
	acceptTruncated       bool
}

// getDone is what a get found, beyond the port's message.
type getDone struct {
	dataLength int
	desc       Descriptor
	propOrder  []string
}

func (h *handle) Get(ctx context.Context, msg *mq.Message, opts mq.GetOptions) error {
	switch {
	case opts.Browse != mq.NoBrowse && opts.Syncpoint, opts.Browse < mq.NoBrowse || opts.Browse > mq.BrowseNext:
		return h.fail(mq.VerbGet, mq.ReasonOptionsError)
	case opts.Wait < 0:
		return h.fail(mq.VerbGet, mq.ReasonWaitIntervalError)
	}
	return h.get(ctx, msg, nil, getRequest{
		wait:         opts.Wait,
		syncpoint:    opts.Syncpoint,
		browse:       opts.Browse,
		sel:          match{msgID: opts.MsgID, correlID: opts.CorrelID},
		bufferLength: -1,
	})
}

// get receives or browses into msg; done, when not nil, receives the
// MQI's view of the message.
func (h *handle) get(ctx context.Context, msg *mq.Message, done *getDone, req getRequest) error {
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
	browse := req.browse != mq.NoBrowse || req.browseUnderCursor
	switch {
	case browse && !h.opts.Has(mq.OpenBrowse):
		return h.fail(mq.VerbGet, mq.ReasonNotOpenForBrowse)
	case !browse && !h.opts.Input():
		return h.fail(mq.VerbGet, mq.ReasonNotOpenForInput)
	}
	if rc := c.getFault(); rc != 0 {
		return h.fail(mq.VerbGet, rc)
	}
	if (req.syncpoint || req.syncpointIfPersistent) && len(c.uow) >= c.qm.maxUncommitted {
		return h.fail(mq.VerbGet, mq.ReasonSyncpointLimitReached)
	}
	underCursor := req.browseUnderCursor || req.msgUnderCursor
	if req.browse == mq.BrowseFirst {
		h.cursor = nil // even when the get fails: IBM leaves it before the first message
	}
	var deadline time.Time
	var timer *time.Timer
	q := h.q
	for {
		now := time.Now()
		q.mu.Lock()
		var lvl, idx int
		var m *message
		if underCursor {
			lvl, idx, m = q.at(h.cursor, now.UnixNano())
		} else {
			var after *position
			if req.browse == mq.BrowseNext {
				after = h.cursor // nil (not yet positioned) behaves as browse-first
			}
			lvl, idx, m = q.find(req.sel, after, now.UnixNano())
		}
		if m != nil {
			return h.take(msg, done, req, browse, q, lvl, idx, m, now)
		}
		if underCursor {
			q.mu.Unlock()
			return h.fail(mq.VerbGet, reasonNoMsgUnderCursor)
		}
		if deadline.IsZero() && !req.waitUnlimited {
			deadline = now.Add(req.wait)
		}
		if !req.waitUnlimited && !now.Before(deadline) {
			q.mu.Unlock()
			return h.fail(mq.VerbGet, mq.ReasonNoMsgAvailable)
		}
		var expired <-chan time.Time
		if !req.waitUnlimited {
			if timer == nil {
				timer = time.NewTimer(deadline.Sub(now))
				defer timer.Stop()
			}
			expired = timer.C
		}
		wake := q.wake
		q.waiters++
		q.mu.Unlock()
		c.mu.Unlock()
		locked = false
		select {
		case <-wake:
		case <-expired:
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
			return fmt.Errorf("mq: %s %s: wait: %w", mq.VerbGet, h.name, err)
		}
		if err := h.check(mq.VerbGet); err != nil {
			return err
		}
	}
}

// take hands the found message m (the idx-th live message of priority lvl)
// to the caller: browsed, got, or left where it is when it does not fit the
// caller's buffer. Callers hold c.mu and q.mu; take releases q.mu.
func (h *handle) take(msg *mq.Message, done *getDone, req getRequest, browse bool, q *queue, lvl, idx int, m *message, now time.Time) error {
	c := h.c
	truncated := req.bufferLength >= 0 && len(m.payload) > req.bufferLength
	if done != nil {
		done.dataLength = len(m.payload)
		if m.desc != nil {
			done.desc = *m.desc
		}
		done.propOrder = m.propOrder
	}
	if truncated && !req.acceptTruncated {
		// The message stays, and so does a browse cursor.
		m.copyTo(msg, now.UnixNano(), req.bufferLength)
		q.mu.Unlock()
		return &mq.Error{Verb: mq.VerbGet, Object: h.name, CompCode: mq.CompWarning, Reason: mq.ReasonTruncatedMsgFailed}
	}
	if browse {
		m.copyTo(msg, now.UnixNano(), req.bufferLength)
		h.cur = position{priority: int32(lvl), seq: m.seq}
		h.cursor = &h.cur
		q.mu.Unlock()
	} else {
		q.levels[lvl].removeAt(idx)
		q.depth--
		inUOW := req.syncpoint || req.syncpointIfPersistent && m.persistent
		q.stats.got(m, now, inUOW)
		q.mu.Unlock()
		m.copyTo(msg, now.UnixNano(), req.bufferLength)
		if inUOW {
			c.uow = append(c.uow, uowEntry{q: q, m: m, got: true})
		} else {
			journaled := m.logID != 0
			c.qm.discard(m) // done keeps m.propOrder: the pool never writes to it
			if journaled {
				if err := c.qm.syncJournal(mq.VerbGet, h.name); err != nil {
					return err
				}
			}
		}
	}
	if truncated {
		return &mq.Error{Verb: mq.VerbGet, Object: h.name, CompCode: mq.CompWarning, Reason: reasonTruncatedMsgAccepted}
	}
	return nil
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
	switch h.typ {
	case mq.QueueAlias:
		return mq.QueueInfo{Name: h.name, Type: mq.QueueAlias, BaseQueue: h.alias}, nil
	case mq.QueueRemote:
		return mq.QueueInfo{Name: h.name, Type: mq.QueueRemote, RemoteQueue: h.remote.RemoteQueue,
			RemoteQueueManager: h.remote.RemoteQueueManager, TransmissionQueue: h.remote.TransmissionQueue}, nil
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
