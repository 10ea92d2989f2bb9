package mqserver

import (
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// Report messages: confirm on arrival (COA) when a put places a message on
// its local destination queue, confirm on delivery (COD) when an
// application gets it destructively, each put to the message's ReplyToQ as
// MQMD.Report asks, in the unit of work of the put or get that caused it
// (so a backout takes the report back and a commit makes it visible).

// Report options (MQRO_*) and feedback codes (MQFB_*).
const (
	roCOA                  int32 = 0x00000100
	roCOAWithData          int32 = 0x00000300
	roCOAWithFullData      int32 = 0x00000700
	roCOD                  int32 = 0x00000800
	roCODWithData          int32 = 0x00001800
	roCODWithFullData      int32 = 0x00003800
	roPassCorrelID         int32 = 0x00000040
	roPassMsgID            int32 = 0x00000080
	roPassDiscardAndExpiry int32 = 0x00004000
	roDiscardMsg           int32 = 0x08000000
	mtReport               int32 = 4
	fbCOA                  int32 = 259
	fbCOD                  int32 = 260
	atQMgr                 int32 = 7
	// reportDataLength is what a WITH_DATA report carries of the message.
	reportDataLength = 100
)

// reportKind is one kind of report: its option bits and feedback.
type reportKind struct {
	plain, withData, withFullData, feedback int32
}

var (
	reportCOA = reportKind{roCOA, roCOAWithData, roCOAWithFullData, fbCOA}
	reportCOD = reportKind{roCOD, roCODWithData, roCODWithFullData, fbCOD}
)

// requested reports whether report options ask for this kind.
func (k reportKind) requested(report int32) bool { return report&k.plain != 0 }

// reportData is the part of the message's data a report of this kind
// carries: none, the first 100 bytes, or all of it.
func (k reportKind) reportData(report int32, data []byte) []byte {
	switch {
	case report&k.withFullData == k.withFullData:
		return data
	case report&k.withData == k.withData:
		return data[:min(len(data), reportDataLength)]
	}
	return nil
}

// report puts a report of kind about the message orig (its stored MQMD,
// its data) to orig's ReplyToQ, in the unit of work when syncpoint. A
// report that cannot be delivered (no such queue here, another queue
// manager's, full) is dropped and logged: there is no dead-letter
// handling.
func (s *session) report(kind reportKind, orig *md, data []byte, syncpoint bool) {
	replyQ, replyQMgr := trimmed(orig.ReplyToQ[:]), trimmed(orig.ReplyToQMgr[:])
	if replyQ == "" {
		return // IBM MQ requires a ReplyToQ with report options; none: nowhere to go
	}
	undelivered := func(why string, err error) {
		s.srv.log.Debug("mqserver: report not delivered", "feedback", kind.feedback, "replyToQ", replyQ,
			"replyToQMgr", replyQMgr, "why", why, "err", err)
	}
	if replyQMgr != "" && replyQMgr != s.qmgr.Name {
		undelivered("no channels to other queue managers", nil)
		return
	}
	rep := defaultMD()
	rep.MsgType, rep.Feedback = mtReport, kind.feedback
	rep.Report = 0
	rep.Encoding, rep.CodedCharSetID = orig.Encoding, orig.CodedCharSetID
	rep.Priority, rep.Persistence = orig.Priority, orig.Persistence
	body := kind.reportData(orig.Report, data)
	if body != nil {
		rep.Format = orig.Format
	}
	if orig.Report&roPassDiscardAndExpiry != 0 {
		rep.Report = orig.Report & roDiscardMsg
		rep.Expiry = orig.Expiry
	}
	rep.MsgID = orig.MsgID
	rep.CorrelID = orig.MsgID // MQRO_COPY_MSG_ID_TO_CORREL_ID, the default
	if orig.Report&roPassCorrelID != 0 {
		rep.CorrelID = orig.CorrelID
	}
	fixed(rep.ReplyToQMgr[:], s.qmgr.Name)
	// The queue manager's context, on behalf of the original's user.
	rep.UserIdentifier, rep.AccountingToken, rep.ApplIdentityData = orig.UserIdentifier, orig.AccountingToken, orig.ApplIdentityData
	rep.PutApplType = atQMgr
	fixed(rep.PutApplName[:], applNameField(s.qmgr.Name))
	now := time.Now()
	putDateTime(now, &rep.PutDate, &rep.PutTime)

	q, err := s.conn.Open(replyQ, mq.OpenOutput)
	if err != nil {
		undelivered("opening the reply-to queue", err)
		return
	}
	defer q.Close()
	msg := mq.Message{
		MsgID:       rep.MsgID,
		CorrelID:    rep.CorrelID,
		Format:      trimmed(rep.Format[:]),
		Persistent:  rep.Persistence == perPersistent,
		Priority:    min(rep.Priority, maxPriority),
		ReplyToQMgr: s.qmgr.Name,
		Payload:     body,
	}
	if rep.Expiry > 0 {
		msg.Expiry = time.Duration(rep.Expiry) * 100 * time.Millisecond
	}
	if _, err := q.Put(&msg, embedded.PutOptions{
		Syncpoint:  syncpoint,
		NewMsgID:   orig.Report&roPassMsgID == 0, // MQRO_NEW_MSG_ID, the default
		PutTime:    now,
		Descriptor: rep.descriptor(),
	}); err != nil {
		undelivered("putting the report", err)
	}
}
