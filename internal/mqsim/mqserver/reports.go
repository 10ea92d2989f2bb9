package mqserver

import (
	"bytes"
	"log/slog"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// Report messages: confirm on arrival (COA) when a put places a message on
// its local destination queue, confirm on delivery (COD) when an
// application gets it destructively, each put to the message's ReplyToQ as
// MQMD.Report asks, in the unit of work of the put or get that caused it
// (so a backout takes the report back and a commit makes it visible); and
// expiration reports when the queue manager discards an expired message.

// Report options (MQRO_*) and feedback codes (MQFB_*).
const (
	roCOA                  int32 = 0x00000100
	roCOAWithData          int32 = 0x00000300
	roCOAWithFullData      int32 = 0x00000700
	roCOD                  int32 = 0x00000800
	roCODWithData          int32 = 0x00001800
	roCODWithFullData      int32 = 0x00003800
	roExpiration           int32 = 0x00200000
	roExpirationWithData   int32 = 0x00600000
	roExpirationFullData   int32 = 0x00E00000
	roPassCorrelID         int32 = 0x00000040
	roPassMsgID            int32 = 0x00000080
	roPassDiscardAndExpiry int32 = 0x00004000
	roDiscardMsg           int32 = 0x08000000
	mtReport               int32 = 4
	fbExpiration           int32 = 258
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
	reportExp = reportKind{roExpiration, roExpirationWithData, roExpirationFullData, fbExpiration}
)

// maxExpiryReportsInFlight bounds the expiration reports being put at once;
// beyond it one is dropped and logged.
const maxExpiryReportsInFlight = 64

// requested reports whether report options ask for this kind.
func (k reportKind) requested(report int32) bool { return report&k.plain != 0 }

// reportData is the part of the message's data a report of this kind
// carries — none, the first 100 bytes, or all of it — and whether the
// options ask for data at all.
func (k reportKind) reportData(report int32, data []byte) ([]byte, bool) {
	switch {
	case report&k.withFullData == k.withFullData:
		return data, true
	case report&k.withData == k.withData:
		return data[:min(len(data), reportDataLength)], true
	}
	return nil, false
}

// report puts a report of kind about the message orig (its stored MQMD,
// its data) to orig's ReplyToQ, in the unit of work when syncpoint.
func (s *session) report(kind reportKind, orig *md, data []byte, syncpoint bool) {
	putReport(s.conn, s.qmgr.Name, s.srv.log, kind, orig, data, syncpoint)
}

// reportExpiry is the backend's expiry observer (embedded.OnExpiry): it
// copies what an expiration report needs and puts it on a connection of
// its own, outside the queue's lock.
func (srv *Server) reportExpiry(e *embedded.ExpiredMessage) {
	if !reportExp.requested(e.Descriptor.Report) || e.Message.ReplyToQ == "" {
		return
	}
	if srv.expiryReports.Add(1) > maxExpiryReportsInFlight {
		srv.expiryReports.Add(-1)
		srv.log.Warn("mqserver: expiration report dropped: too many in flight", "queue", e.Queue)
		return
	}
	srv.mu.Lock()
	if srv.closed {
		srv.mu.Unlock()
		srv.expiryReports.Add(-1)
		return
	}
	srv.wg.Add(1) // Close waits for the report
	srv.mu.Unlock()
	qmgr := e.QueueManager
	orig := gotMD(&e.Message, &e.Descriptor)
	carried, _ := reportExp.reportData(e.Descriptor.Report, e.Message.Payload)
	data := bytes.Clone(carried) // the payload is the queue manager's only during the call
	go func() {
		defer srv.wg.Done()
		defer srv.expiryReports.Add(-1)
		conn, err := srv.backend.ConnectMQI(qmgr)
		if err != nil {
			srv.log.Warn("mqserver: expiration report not delivered", "queueManager", qmgr, "err", err)
			return
		}
		defer conn.Disconnect()
		putReport(conn, qmgr, srv.log, reportExp, &orig, data, false)
	}()
}

// putReport puts a report of kind about orig through conn, a connection to
// qmgrName. A ReplyToQMgr other than qmgrName is reached, as IBM MQ
// resolves it by default, through the local transmission queue named like
// it, behind an MQXQH. A report that cannot be delivered (no such queue,
// full) is dropped and logged: there is no dead-letter handling.
func putReport(conn *embedded.MQIConn, qmgrName string, log *slog.Logger, kind reportKind, orig *md, data []byte,
	syncpoint bool) {
	replyQ, replyQMgr := trimmed(orig.ReplyToQ[:]), trimmed(orig.ReplyToQMgr[:])
	if replyQ == "" {
		return // IBM MQ requires a ReplyToQ with report options; none: nowhere to go
	}
	undelivered := func(why string, err error) {
		log.Info("mqserver: report not delivered", "feedback", kind.feedback, "replyToQ", replyQ,
			"replyToQMgr", replyQMgr, "why", why, "err", err)
	}
	rep := defaultMD()
	rep.MsgType, rep.Feedback = mtReport, kind.feedback
	rep.Encoding, rep.CodedCharSetID = orig.Encoding, orig.CodedCharSetID
	rep.Priority, rep.Persistence = orig.Priority, orig.Persistence
	body, withData := kind.reportData(orig.Report, data)
	if withData {
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
	fixed(rep.ReplyToQMgr[:], qmgrName)
	// The queue manager's context, on behalf of the original's user.
	rep.UserIdentifier, rep.AccountingToken, rep.ApplIdentityData = orig.UserIdentifier, orig.AccountingToken, orig.ApplIdentityData
	rep.PutApplType = atQMgr
	fixed(rep.PutApplName[:], applNameField(qmgrName))
	now := time.Now()
	putDateTime(now, &rep.PutDate, &rep.PutTime)

	newMsgID := orig.Report&roPassMsgID == 0 // MQRO_NEW_MSG_ID, the default
	target, stored := replyQ, &rep
	if replyQMgr != "" && replyQMgr != qmgrName {
		if newMsgID {
			rep.MsgID, newMsgID = conn.NewMsgID(), false // the MQXQH carries it
		}
		xmit, xmitData := xmitMessage(&rep, replyQ, replyQMgr, body)
		target, stored, body = replyQMgr, &xmit, xmitData
	}
	q, err := conn.Open(target, mq.OpenOutput)
	if err != nil {
		undelivered("opening the reply-to queue or its transmission queue", err)
		return
	}
	defer q.Close()
	msg := mq.Message{
		MsgID:       stored.MsgID,
		CorrelID:    stored.CorrelID,
		Format:      trimmed(stored.Format[:]),
		Persistent:  stored.Persistence == perPersistent,
		Priority:    min(stored.Priority, maxPriority),
		ReplyToQMgr: qmgrName,
		Payload:     body,
	}
	if stored.Expiry > 0 {
		msg.Expiry = time.Duration(stored.Expiry) * 100 * time.Millisecond
	}
	if _, err := q.Put(&msg, embedded.PutOptions{
		Syncpoint:  syncpoint,
		NewMsgID:   newMsgID,
		PutTime:    now,
		Descriptor: stored.descriptor(),
	}); err != nil {
		undelivered("putting the report", err)
	}
}
