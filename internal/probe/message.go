package probe

import (
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// A probe message's payload starts with a fixed binary header, big-endian:
//
//	offset size field
//	0      4    magic "MQPB"
//	4      2    layout version, 1
//	6      2    putter index, 0-based
//	8      8    sequence number, unique in the run, from 0
//	16     8    sentAt: nanoseconds from the run's start to the put, on
//	            the monotonic clock of the process that runs the probe
//
// and is padded with zeros to Config.MessageSize. The CorrelId is the
// run's id. The sequence number and the put time also travel as the
// properties mqprobe.seq (int64) and mqprobe.sentAt (RFC 3339 string, UTC),
// for people browsing the queue; the getters read only the header.
const (
	HeaderSize    = 24
	headerVersion = 1

	PropSeq    = "mqprobe.seq"
	PropSentAt = "mqprobe.sentAt"
)

var headerMagic = [4]byte{'M', 'Q', 'P', 'B'}

// header is the decoded payload header.
type header struct {
	putter int
	seq    int64
	sentAt time.Duration // since the run's start
}

// encode writes h at the start of buf, which holds at least HeaderSize bytes.
func (h header) encode(buf []byte) {
	copy(buf[0:4], headerMagic[:])
	binary.BigEndian.PutUint16(buf[4:6], headerVersion)
	binary.BigEndian.PutUint16(buf[6:8], uint16(h.putter))
	binary.BigEndian.PutUint64(buf[8:16], uint64(h.seq))
	binary.BigEndian.PutUint64(buf[16:24], uint64(h.sentAt))
}

// decodeHeader reads a payload's header; ok is false for payloads that
// are not probe messages of this layout.
func decodeHeader(payload []byte) (h header, ok bool) {
	if len(payload) < HeaderSize || [4]byte(payload[0:4]) != headerMagic ||
		binary.BigEndian.Uint16(payload[4:6]) != headerVersion {
		return header{}, false
	}
	h = header{
		putter: int(binary.BigEndian.Uint16(payload[6:8])),
		seq:    int64(binary.BigEndian.Uint64(payload[8:16])),
		sentAt: time.Duration(binary.BigEndian.Uint64(payload[16:24])),
	}
	return h, h.seq >= 0 && h.sentAt >= 0
}

// Request/reply (ModeRequestReply): a request's MsgId is the first 16
// bytes of the run's id followed by its sequence number (8 bytes,
// big-endian), fresh per probe; a responder answers with CorrelId = that
// MsgId, so the first 16 bytes of a reply's CorrelId name its run. A
// responder that stamps its replies sets PropRequestGotAt (when it got the
// request) and PropReplyPutAt (just before it put the reply), both RFC
// 3339 strings in UTC with nanoseconds, from its own clock.
const (
	PropRequestGotAt = "mqprobe.reqGetAt"
	PropReplyPutAt   = "mqprobe.rspPutAt"
	runPrefixLength  = 16
)

// requestMsgID is the MsgId of request seq of run.
func requestMsgID(run mq.ID, seq int64) mq.ID {
	var id mq.ID
	copy(id[:runPrefixLength], run[:runPrefixLength])
	binary.BigEndian.PutUint64(id[runPrefixLength:], uint64(seq))
	return id
}

// isReplyOf reports whether correlID answers a request of run.
func isReplyOf(run, correlID mq.ID) bool {
	return [runPrefixLength]byte(correlID[:runPrefixLength]) == [runPrefixLength]byte(run[:runPrefixLength])
}

// FormatStamp writes t as the responder's stamps are written.
func FormatStamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// replyStamps reads a reply's responder stamps; ok is false when either
// is missing or unreadable (a responder that does not stamp).
func replyStamps(p mq.Properties) (gotAt, putAt time.Time, ok bool) {
	parse := func(name string) (time.Time, bool) {
		s, isString := p[name].(string)
		if !isString {
			return time.Time{}, false
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		return t, err == nil
	}
	gotAt, okGot := parse(PropRequestGotAt)
	putAt, okPut := parse(PropReplyPutAt)
	return gotAt, putAt, okGot && okPut
}

// newRunID makes a CorrelId no other run shares: "MQPROBE:" then 16
// random bytes.
func newRunID() mq.ID {
	var id mq.ID
	copy(id[:8], "MQPROBE:")
	rand.Read(id[8:]) // never fails (crypto/rand panics rather)
	return id
}
