//go:build ibmmq

package ibmmq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// queue is an open queue (hObj). It keeps the MQI structures and buffers its
// calls need, so a put or get loop allocates only what the binding does.
type queue struct {
	conn *conn
	obj  mqi.MQObject
	name string

	desc     descriptor
	pmo      *mqi.MQPMO
	gmo      *mqi.MQGMO
	recv     []byte // receives messages larger than the caller's Payload; grows, never shrinks
	putProps *propertyHandle
	getProps *propertyHandle
	// putter makes the puts while the queue is open; nil: the binding's
	// MQPUT does.
	putter *putter
}

var (
	_ mq.Queue       = (*queue)(nil)
	_ mq.BatchPutter = (*queue)(nil)
)

func newQueue(c *conn, obj mqi.MQObject, name string) *queue {
	return &queue{
		conn:     c,
		obj:      obj,
		name:     name,
		pmo:      mqi.NewMQPMO(),
		gmo:      mqi.NewMQGMO(),
		putProps: newPropertyHandle(&c.qm, name),
		getProps: newPropertyHandle(&c.qm, name),
		putter:   newPutter(&c.qm, obj),
	}
}

func (q *queue) Name() string { return q.name }

// Put sends msg with MQPUT; its properties travel in a message handle.
func (q *queue) Put(_ context.Context, msg *mq.Message, opts mq.PutOptions) (mq.PutResult, error) {
	options, h, err := q.prepare(msg, opts, 1)
	if err != nil {
		return mq.PutResult{}, err
	}
	var res mq.PutResult
	if q.putter != nil {
		res, err = q.putter.put(msg, options, h)
	} else {
		pmo := q.pmo
		pmo.Options, pmo.OriginalMsgHandle = options, h
		md := q.desc.reset()
		setPutFields(md, msg)
		if err = q.obj.Put(md, pmo, msg.Payload); err == nil || isWarning(err) {
			res.PutTime = md.PutDateTime
			copy(res.MsgID[:], md.MsgId)
		}
	}
	if err != nil {
		if !isWarning(err) {
			return mq.PutResult{}, mqError(mq.VerbPut, q.name, err)
		}
		// The message is on the queue (e.g. 2049: put at the queue
		// manager's highest priority); reporting a failure would have
		// it put again.
		q.conn.warned(mq.VerbPut, q.name, err)
	}
	return res, nil
}

// PutBatch puts b's messages with one call into C, which loops MQPUT
// over the bodies with one MQMD and MQPMO: the crossing from Go to C, the
// descriptor's fields and the properties' check are paid once per batch
// instead of once per message.
func (q *queue) PutBatch(ctx context.Context, b *mq.Batch, opts mq.PutOptions) (mq.BatchResult, error) {
	if q.putter == nil || b.Len() == 0 {
		return mq.PutEach(ctx, q, b, opts)
	}
	if err := b.Validate(); err != nil {
		return mq.BatchResult{}, err // the C loop would read outside the bodies
	}
	options, h, err := q.prepare(b.Message, opts, 0)
	if err != nil {
		return mq.BatchResult{}, err
	}
	res, tried, warning, err := q.putter.putBatch(b, options, h)
	if opts.Async {
		q.conn.asyncPuts += tried
	}
	if warning != nil {
		q.conn.warned(mq.VerbPut, q.name, warning)
	}
	if err != nil {
		return res, mqError(mq.VerbPut, q.name, err)
	}
	return res, nil
}

// prepare validates msg and returns the MQPMO options and the message
// handle carrying its properties for puts of it with opts; asyncPuts are
// how many puts to count as asynchronous ones now.
func (q *queue) prepare(msg *mq.Message, opts mq.PutOptions, asyncPuts int) (int32, mqi.MQMessageHandle, error) {
	if err := validatePut(msg, q.name); err != nil {
		return 0, mqi.MQMessageHandle{}, err
	}
	options := mqi.MQPMO_NO_SYNCPOINT | mqi.MQPMO_FAIL_IF_QUIESCING
	if opts.Syncpoint {
		options = mqi.MQPMO_SYNCPOINT | mqi.MQPMO_FAIL_IF_QUIESCING
	}
	if msg.MsgID.IsZero() {
		options |= mqi.MQPMO_NEW_MSG_ID
	}
	if opts.Async {
		// The queue manager answers nothing: the connection's next
		// MQSTAT (Commit, Backout, CheckAsyncPuts) says how it went.
		options |= mqi.MQPMO_ASYNC_RESPONSE
		q.conn.asyncPuts += asyncPuts
	}
	if len(msg.Properties) == 0 {
		return options, mqi.MQMessageHandle{}, nil
	}
	h, err := q.putProps.set(msg.Properties)
	if err != nil {
		return 0, mqi.MQMessageHandle{}, err
	}
	return options, h, nil
}

// maxWaitSlice bounds one MQGET's wait when the context can end: MQGET
// cannot be interrupted, so a long wait is a series of shorter ones with a
// look at the context in between.
const maxWaitSlice = time.Second

// Get receives or browses into msg with MQGET. It reads the message into
// msg.Payload when that is at least as large as the queue's own receive
// buffer and otherwise into that buffer, then copies. A message larger than
// the buffer fails with MQRC_TRUNCATED_MSG_FAILED (2080), which leaves it on
// the queue and a browse cursor where it was; Get grows the buffer to the
// reported length and repeats the call.
func (q *queue) Get(ctx context.Context, msg *mq.Message, opts mq.GetOptions) error {
	if err := validateGet(opts, q.name); err != nil {
		return err
	}
	hmsg, err := q.getProps.get()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(opts.Wait)
	buf, direct := msg.Payload[:0], cap(msg.Payload) >= cap(q.recv)
	if !direct {
		buf = q.recv[:0]
	}
	for {
		md := q.desc.reset()
		copy(md.MsgId, opts.MsgID[:])
		copy(md.CorrelId, opts.CorrelID[:])
		q.setGetOptions(opts, waitSlice(ctx, deadline), hmsg)
		data, length, err := q.obj.GetSlice(md, q.gmo, buf)
		if err == nil {
			return q.received(msg, md, data, direct)
		}
		switch reasonOf(err) {
		case mqi.MQRC_TRUNCATED_MSG_FAILED:
			q.recv = make([]byte, 0, length)
			buf, direct = q.recv, false
			continue
		case mqi.MQRC_NO_MSG_AVAILABLE:
			if time.Now().Before(deadline) {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("mq: %s %s: wait: %w", mq.VerbGet, q.name, err)
				}
				continue
			}
		}
		return mqError(mq.VerbGet, q.name, err)
	}
}

// validateGet rejects option combinations MQGET would refuse, and those the
// MQGMO mapping below could not express.
func validateGet(opts mq.GetOptions, queue string) error {
	switch {
	case opts.Browse < mq.NoBrowse || opts.Browse > mq.BrowseNext,
		opts.Browse != mq.NoBrowse && opts.Syncpoint:
		return mq.NewError(mq.VerbGet, queue, mq.ReasonOptionsError)
	case opts.Wait < 0:
		return mq.NewError(mq.VerbGet, queue, mq.ReasonWaitIntervalError)
	}
	return nil
}

// waitSlice is how long the next MQGET may wait: what is left until
// deadline, at most maxWaitSlice when ctx can end, and never past ctx's own
// deadline.
func waitSlice(ctx context.Context, deadline time.Time) time.Duration {
	left := time.Until(deadline)
	if ctx.Done() != nil {
		left = min(left, maxWaitSlice)
	}
	if d, ok := ctx.Deadline(); ok {
		left = min(left, time.Until(d))
	}
	return max(left, 0)
}

// setGetOptions fills the reused MQGMO for one MQGET.
func (q *queue) setGetOptions(opts mq.GetOptions, wait time.Duration, hmsg mqi.MQMessageHandle) {
	gmo := q.gmo
	gmo.Version = mqi.MQGMO_VERSION_4 // MatchOptions need 2, MsgHandle 4
	gmo.Options = mqi.MQGMO_PROPERTIES_IN_HANDLE | mqi.MQGMO_FAIL_IF_QUIESCING | mqi.MQGMO_NO_SYNCPOINT
	gmo.MatchOptions = mqi.MQMO_NONE
	switch {
	case opts.Browse == mq.BrowseFirst:
		gmo.Options |= mqi.MQGMO_BROWSE_FIRST
	case opts.Browse == mq.BrowseNext:
		gmo.Options |= mqi.MQGMO_BROWSE_NEXT
	case opts.Syncpoint:
		gmo.Options = gmo.Options&^mqi.MQGMO_NO_SYNCPOINT | mqi.MQGMO_SYNCPOINT
	}
	if !opts.MsgID.IsZero() {
		gmo.MatchOptions |= mqi.MQMO_MATCH_MSG_ID
	}
	if !opts.CorrelID.IsZero() {
		gmo.MatchOptions |= mqi.MQMO_MATCH_CORREL_ID
	}
	gmo.WaitInterval = 0
	if wait > 0 {
		gmo.Options |= mqi.MQGMO_WAIT
		gmo.WaitInterval = waitMillis(wait)
	}
	gmo.MsgHandle = hmsg
}

// waitMillis is MQGMO WaitInterval for d: milliseconds, rounded up so a
// short wait still waits, and capped at the field's range (about 24 days).
func waitMillis(d time.Duration) int32 {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return int32(min(ms, math.MaxInt32))
}

// received fills msg from a successful MQGET of data described by md. If
// the properties cannot be read, msg still holds the rest of the message.
func (q *queue) received(msg *mq.Message, md *mqi.MQMD, data []byte, direct bool) error {
	setGotFields(msg, md)
	if direct {
		msg.Payload = data
	} else {
		msg.Payload = append(msg.Payload[:0], data...)
	}
	props, err := q.getProps.read(msg.Properties)
	msg.Properties = props
	return err
}

// Inquire reads the queue's type with MQINQ, then the attributes of that
// type: depth, limits and open counts of a local queue, the base queue of
// an alias, the remote queue, queue manager and transmission queue of a
// remote definition. Asking a queue manager for attributes its type lacks
// gives warning 2068 (MQRC_SELECTOR_NOT_FOR_TYPE), on which the binding
// returns no values at all, so each type is asked only for its own.
func (q *queue) Inquire(context.Context) (mq.QueueInfo, error) {
	attrs, err := q.obj.Inq([]int32{mqi.MQIA_Q_TYPE})
	if err != nil {
		return mq.QueueInfo{}, mqError(mq.VerbInquire, q.name, err)
	}
	info := mq.QueueInfo{Name: q.name, Type: mq.QueueType(intAttr(attrs, mqi.MQIA_Q_TYPE))}
	selectors := typeSelectors[info.Type]
	if selectors == nil {
		return info, nil // a cluster queue: nothing more applies
	}
	if attrs, err = q.obj.Inq(selectors); err != nil {
		return mq.QueueInfo{}, mqError(mq.VerbInquire, q.name, err)
	}
	switch info.Type {
	case mq.QueueLocal:
		info.CurrentDepth = intAttr(attrs, mqi.MQIA_CURRENT_Q_DEPTH)
		info.MaxDepth = intAttr(attrs, mqi.MQIA_MAX_Q_DEPTH)
		info.OpenInputCount = intAttr(attrs, mqi.MQIA_OPEN_INPUT_COUNT)
		info.OpenOutputCount = intAttr(attrs, mqi.MQIA_OPEN_OUTPUT_COUNT)
		info.MaxMsgLength = intAttr(attrs, mqi.MQIA_MAX_MSG_LENGTH)
	case mq.QueueAlias:
		info.BaseQueue = stringAttr(attrs, mqi.MQCA_BASE_Q_NAME)
	case mq.QueueRemote:
		info.RemoteQueue = stringAttr(attrs, mqi.MQCA_REMOTE_Q_NAME)
		info.RemoteQueueManager = stringAttr(attrs, mqi.MQCA_REMOTE_Q_MGR_NAME)
		info.TransmissionQueue = stringAttr(attrs, mqi.MQCA_XMIT_Q_NAME)
	}
	return info, nil
}

// typeSelectors are the MQINQ selectors Inquire reads for each queue type
// (MQIA_Q_TYPE). A model queue cannot be opened as itself (MQOPEN makes a
// dynamic local queue of it), and a cluster queue has none of these.
var typeSelectors = map[mq.QueueType][]int32{
	mq.QueueLocal: {
		mqi.MQIA_CURRENT_Q_DEPTH, mqi.MQIA_MAX_Q_DEPTH,
		mqi.MQIA_OPEN_INPUT_COUNT, mqi.MQIA_OPEN_OUTPUT_COUNT,
		mqi.MQIA_MAX_MSG_LENGTH,
	},
	mq.QueueAlias:  {mqi.MQCA_BASE_Q_NAME},
	mq.QueueRemote: {mqi.MQCA_REMOTE_Q_NAME, mqi.MQCA_REMOTE_Q_MGR_NAME, mqi.MQCA_XMIT_Q_NAME},
}

// Close closes the queue with MQCLOSE and deletes its message handles
// (MQDLTMH). If MQCLOSE fails the handles are left to MQDISC: the usual
// cause is a connection that is already gone, and them with it.
func (q *queue) Close() error {
	if err := closeObject(&q.obj, q.name); err != nil {
		return err
	}
	if q.putter != nil {
		q.putter.free()
		q.putter = nil
	}
	return errors.Join(q.putProps.release(), q.getProps.release())
}
