package embedded

import "github.com/mqprobe/mqprobe/internal/mq"

// ExpiredMessage is a message put through the MQI (it has a Descriptor)
// that the queue manager discarded because its expiry passed, for an MQI
// server to generate the expiration report MQMD.Report may ask for. Its
// Message's Payload and Properties are views valid only during the call.
type ExpiredMessage struct {
	QueueManager, Queue string
	Message             mq.Message
	Descriptor          Descriptor
}

// expiryObserver is the function OnExpiry set.
type expiryObserver = func(*ExpiredMessage)

// OnExpiry sets f to be called for each expired MQI message as it is
// discarded (lazily, when a get or a put short of space meets it, as IBM MQ
// discards them). f runs with the message's queue locked: it must not call
// the backend, and must copy what it keeps. nil removes it. The daemon's
// embedded mode sets none.
func (b *Backend) OnExpiry(f func(*ExpiredMessage)) {
	if f == nil {
		b.onExpiry.Store(nil)
		return
	}
	b.onExpiry.Store(&f)
}

// expired tells the observer, if any, that q discards m. Callers hold q.mu.
func (q *queue) expired(m *message) {
	f := q.qm.backend.onExpiry.Load()
	if f == nil || m.desc == nil {
		return
	}
	e := ExpiredMessage{QueueManager: q.qm.name, Queue: q.name, Descriptor: *m.desc, Message: mq.Message{
		MsgID: m.msgID, CorrelID: m.correlID, Format: m.format, CCSID: m.ccsid, Encoding: m.encoding, Persistent: m.persistent, Priority: m.priority,
		ReplyToQ: m.replyToQ, ReplyToQMgr: m.replyToQMgr, Properties: m.props, Payload: m.payload,
		PutTime: m.putTime, BackoutCount: m.backoutCount,
	}}
	(*f)(&e)
}
