//go:build ibmmq

package ibmmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// conn is one connection (hConn). Like the hConn it wraps, it is used from
// one goroutine at a time.
type conn struct {
	qm     mqi.MQQueueManager // its address is shared by the queues opened on it
	qmName string             // as the target named it; "" is the default queue manager
	// channel is the SVRCONN channel the target named; "" when the client
	// found it elsewhere (MQSERVER, a CCDT).
	channel string
	// connName is the target's CONNAME list and tls whether it asked for
	// TLS: where InquireChannelStatus reads the queue manager's certificate.
	connName string
	tls      bool
	log      *slog.Logger
	closed   bool
	// asyncPuts counts the asynchronous puts (MQPMO_ASYNC_RESPONSE) since
	// the last MQSTAT.
	asyncPuts int
	// admin are the PCF commands' queues once a command opened them.
	admin *adminQueues
}

// warned logs err when it is a warning, which the caller treats as success.
func (c *conn) warned(verb mq.Verb, object string, err error) {
	if err != nil && isWarning(err) {
		c.log.Warn("mq: call completed with a warning", "verb", string(verb), "object", object,
			"reason", mqError(verb, object, err).Reason.String())
	}
}

var _ mq.Conn = (*conn)(nil)

// OpenQueue opens a queue with MQOPEN; a model queue opens the temporary
// dynamic queue it creates (named AMQ.*), which Name then reports.
func (c *conn) OpenQueue(_ context.Context, name string, opts mq.OpenOption) (mq.Queue, error) {
	if err := opts.Validate(); err != nil {
		if e, ok := mq.AsError(err); ok {
			e.Object = name
		}
		return nil, err
	}
	od := mqi.NewMQOD()
	od.ObjectType = mqi.MQOT_Q
	od.ObjectName = name
	obj, err := c.qm.Open(od, openOptions(opts))
	if err != nil && !isWarning(err) {
		return nil, mqError(mq.VerbOpen, name, err)
	}
	// A warned MQOPEN returns an open handle: keep it, or it leaks for the
	// pooled connection's life.
	c.warned(mq.VerbOpen, name, err)
	// MQOPEN of a model queue creates a temporary dynamic queue and writes
	// its name into the MQOD: the queue's name from now on.
	if dynamic := strings.TrimSpace(obj.Name); dynamic != "" && dynamic != name {
		name = dynamic
	}
	return newQueue(c, obj, name), nil
}

// openOptions maps the port's uses onto MQOO_* options.
func openOptions(o mq.OpenOption) int32 {
	opts := mqi.MQOO_FAIL_IF_QUIESCING
	if o.Has(mq.OpenOutput) {
		opts |= mqi.MQOO_OUTPUT
	}
	if o.Has(mq.OpenInputShared) {
		opts |= mqi.MQOO_INPUT_SHARED
	}
	if o.Has(mq.OpenInputExclusive) {
		opts |= mqi.MQOO_INPUT_EXCLUSIVE
	}
	if o.Has(mq.OpenBrowse) {
		opts |= mqi.MQOO_BROWSE
	}
	if o.Has(mq.OpenInquire) {
		opts |= mqi.MQOO_INQUIRE
	}
	return opts
}

// InquireQueueManager opens the queue manager object for inquiry and reads
// its name, command level and platform with MQINQ.
func (c *conn) InquireQueueManager(context.Context) (mq.QueueManagerInfo, error) {
	od := mqi.NewMQOD()
	od.ObjectType = mqi.MQOT_Q_MGR
	obj, err := c.qm.Open(od, mqi.MQOO_INQUIRE|mqi.MQOO_FAIL_IF_QUIESCING)
	if err != nil && !isWarning(err) {
		return mq.QueueManagerInfo{}, mqError(mq.VerbOpen, c.qmName, err)
	}
	c.warned(mq.VerbOpen, c.qmName, err)
	attrs, err := obj.Inq([]int32{mqi.MQCA_Q_MGR_NAME, mqi.MQIA_COMMAND_LEVEL, mqi.MQIA_PLATFORM,
		mqi.MQIA_CODED_CHAR_SET_ID, mqi.MQCA_DEAD_LETTER_Q_NAME})
	if err != nil {
		return mq.QueueManagerInfo{}, errors.Join(mqError(mq.VerbInquire, c.qmName, err), closeObject(&obj, c.qmName))
	}
	info := mq.QueueManagerInfo{
		Name:            stringAttr(attrs, mqi.MQCA_Q_MGR_NAME),
		CommandLevel:    intAttr(attrs, mqi.MQIA_COMMAND_LEVEL),
		Platform:        mq.Platform(intAttr(attrs, mqi.MQIA_PLATFORM)),
		CCSID:           intAttr(attrs, mqi.MQIA_CODED_CHAR_SET_ID),
		DeadLetterQueue: stringAttr(attrs, mqi.MQCA_DEAD_LETTER_Q_NAME),
	}
	return info, closeObject(&obj, c.qmName)
}

// closeObject closes an object handle with MQCLOSE.
func closeObject(obj *mqi.MQObject, name string) error {
	if err := obj.Close(mqi.MQCO_NONE); err != nil {
		return mqError(mq.VerbClose, name, err)
	}
	return nil
}

// intAttr reads an integer attribute from an MQINQ answer; the binding
// returns MQIA_* values as int32.
func intAttr(attrs map[int32]any, selector int32) int {
	v, _ := attrs[selector].(int32)
	return int(v)
}

// stringAttr reads a character attribute, already trimmed of MQ's padding.
func stringAttr(attrs map[int32]any, selector int32) string {
	v, _ := attrs[selector].(string)
	return v
}

// Commit commits the unit of work with MQCMIT. After asynchronous puts it
// first asks MQSTAT how they went: when any failed it backs the unit of
// work out (MQCMIT would commit the others: a failed non-persistent put
// does not spoil the unit of work) and fails with the first failure's
// reason, so no commit ever hides a lost put.
func (c *conn) Commit(ctx context.Context) error {
	if err := c.CheckAsyncPuts(ctx); err != nil {
		if berr := c.Backout(ctx); berr != nil {
			return errors.Join(err, berr)
		}
		return fmt.Errorf("%w; the unit of work was backed out", err)
	}
	if err := c.qm.Cmit(); err != nil {
		return mqError(mq.VerbCommit, c.qmName, err)
	}
	return nil
}

// CheckAsyncPuts asks MQSTAT (MQSTAT_TYPE_ASYNC_ERROR) how the asynchronous
// puts since the last check went, which also resets the queue manager's
// counts. It fails with the first failure's reason when any failed; a
// warning (the message is on the queue) is logged.
func (c *conn) CheckAsyncPuts(context.Context) error {
	if c.asyncPuts == 0 {
		return nil
	}
	sent := c.asyncPuts
	c.asyncPuts = 0
	sts := mqi.NewMQSTS()
	if err := c.qm.Stat(mqi.MQSTAT_TYPE_ASYNC_ERROR, sts); err != nil {
		return mqError(mq.VerbStatus, c.qmName, err)
	}
	if sts.PutFailureCount > 0 {
		e := mq.NewError(mq.VerbPut, strings.TrimSpace(sts.ObjectName), mq.Reason(sts.Reason))
		e.Err = fmt.Errorf("%d of %d asynchronous puts failed", sts.PutFailureCount, sent)
		return e
	}
	if sts.PutWarningCount > 0 {
		c.log.Warn("mq: asynchronous puts completed with a warning", "object", strings.TrimSpace(sts.ObjectName),
			"count", sts.PutWarningCount, "reason", mq.Reason(sts.Reason).String())
	}
	return nil
}

// Backout backs the unit of work out with MQBACK. Outcomes of asynchronous
// puts not yet asked for are discarded with it (MQSTAT resets them), so a
// later check does not report puts that were backed out.
func (c *conn) Backout(ctx context.Context) error {
	_ = c.CheckAsyncPuts(ctx) // the puts are gone either way
	if err := c.qm.Back(); err != nil {
		return mqError(mq.VerbBackout, c.qmName, err)
	}
	return nil
}

// Close backs out with MQBACK, then disconnects with MQDISC, which closes
// the connection's object and message handles. The backout comes first
// because a normal MQDISC commits. On a broken connection both calls may
// fail with the reason it broke; the queue manager has already backed out,
// so that is not reported. Closing twice does nothing.
func (c *conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	errs := []error{c.closeAdmin()}
	if err := c.qm.Back(); err != nil {
		errs = append(errs, mqError(mq.VerbBackout, c.qmName, err))
	}
	if err := c.qm.Disc(); err != nil {
		errs = append(errs, mqError(mq.VerbDisconnect, c.qmName, err))
	}
	for i, err := range errs {
		if mq.IsConnectionBroken(err) {
			errs[i] = nil
		}
	}
	return errors.Join(errs...)
}
