package embedded

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// message is a stored message. Its queue's mutex guards it while it is on
// the queue; once removed it belongs to the remover.
type message struct {
	seq          uint64 // position within the queue: FIFO order per priority
	msgID        mq.ID
	correlID     mq.ID
	format       string
	ccsid        int32 // MQMD CodedCharSetId, MQCCSI_Q_MGR already replaced
	encoding     int32
	persistent   bool
	priority     int32
	expiresAt    int64 // unix nanoseconds; 0 = never
	putTime      time.Time
	replyToQ     string
	replyToQMgr  string
	backoutCount int32
	props        mq.Properties
	payload      []byte
	desc         *Descriptor // MQMD fields the port does not model; nil when put through the port
	propOrder    []string    // property names in the order an MQI client put them; never written after the put
	uncommitted  bool        // put under syncpoint, not yet committed: invisible to gets
	fault        putFault    // injected, applied at commit (see Faults.DropNth)
	logID        uint64      // its put record in the journal; 0 = not journaled
}

// maxPooledPayload bounds the buffers kept for reuse, so one huge message
// does not pin memory.
const maxPooledPayload = 64 * 1024

// payloadSlack is how much larger than its body a reused buffer may be
// beyond a quarter: enough for the allocator's size classes, small enough
// that MaxBytes, which counts bodies, bounds the memory their buffers hold.
const payloadSlack = 512

// bodyBuffer returns buf emptied for an n-byte body, or nil (append then
// allocates to size) when buf is too small or would hold far more than n.
func bodyBuffer(buf []byte, n int) []byte {
	if c := cap(buf); c < n || c-n > n/4+payloadSlack {
		return nil
	}
	return buf[:0]
}

// messagePool recycles messages and their payload buffers, so a steady
// put/get loop allocates nothing per message.
var messagePool = sync.Pool{New: func() any { return new(message) }}

// newMessage copies the caller's message, but for its properties, which
// are props, frozen (see handle.freezeProperties); the caller may reuse msg
// at once.
func newMessage(msg *mq.Message, msgID mq.ID, now time.Time, props mq.Properties) *message {
	m := messagePool.Get().(*message)
	m.msgID = msgID
	m.correlID = msg.CorrelID
	m.format = msg.Format
	m.ccsid, m.encoding = putCCSID(msg.CCSID), msg.Encoding
	if m.encoding == 0 {
		m.encoding = mq.EncodingNative // the port's default
	}
	m.persistent = msg.Persistent
	m.priority = msg.Priority
	m.putTime = now
	if msg.Expiry > 0 {
		m.expiresAt = now.UnixNano() + int64(msg.Expiry)
	}
	m.replyToQ = msg.ReplyToQ
	m.replyToQMgr = msg.ReplyToQMgr
	m.props = props
	m.payload = append(bodyBuffer(m.payload, len(msg.Payload)), msg.Payload...)
	return m
}

// putCCSID is the CodedCharSetId a message put with ccsid carries: the
// queue manager's for MQCCSI_Q_MGR.
func putCCSID(ccsid int32) int32 {
	if ccsid == mq.CCSIDQueueManager {
		return utf8CCSID
	}
	return ccsid
}

// clone copies m for a second enqueue: same MsgId, properties (shared:
// they are frozen) and payload; the queue assigns its position.
func (m *message) clone() *message {
	c := messagePool.Get().(*message)
	payload := append(bodyBuffer(c.payload, len(m.payload)), m.payload...)
	*c = *m
	c.payload = payload
	c.fault = putNormal
	c.logID = 0
	return c
}

func (m *message) release() {
	payload := m.payload[:0]
	if cap(payload) > maxPooledPayload {
		payload = nil
	}
	*m = message{payload: payload}
	messagePool.Put(m)
}

func (m *message) expired(now int64) bool { return m.expiresAt != 0 && now >= m.expiresAt }

// copyTo fills dst the way MQGET fills an MQMD and buffer, reusing dst's
// payload and property storage; at most bufferLength bytes of the body
// (all of it when bufferLength is negative).
func (m *message) copyTo(dst *mq.Message, now int64, bufferLength int) {
	payload, props := dst.Payload, dst.Properties
	body := m.payload
	if bufferLength >= 0 && len(body) > bufferLength {
		body = body[:bufferLength]
	}
	*dst = mq.Message{
		MsgID:        m.msgID,
		CorrelID:     m.correlID,
		Format:       m.format,
		CCSID:        m.ccsid,
		Encoding:     m.encoding,
		Persistent:   m.persistent,
		Priority:     m.priority,
		ReplyToQ:     m.replyToQ,
		ReplyToQMgr:  m.replyToQMgr,
		PutTime:      m.putTime,
		BackoutCount: m.backoutCount,
		Payload:      append(payload[:0], body...),
		Properties:   copyProperties(props, m.props),
	}
	if m.expiresAt != 0 {
		// MQ reports the time left, in whole tenths of a second, rounded up.
		const tenth = int64(100 * time.Millisecond)
		left := (m.expiresAt - now + tenth - 1) / tenth * tenth
		dst.Expiry = time.Duration(max(left, tenth))
	}
}

// copyProperties copies src into dst (cleared first, allocated if needed
// and src is not empty) and returns dst. Byte values are copied too.
func copyProperties(dst, src mq.Properties) mq.Properties {
	clear(dst)
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(mq.Properties, len(src))
	}
	maps.Copy(dst, src)
	for k, v := range src {
		if b, ok := v.([]byte); ok {
			dst[k] = slices.Clone(b)
		}
	}
	return dst
}
