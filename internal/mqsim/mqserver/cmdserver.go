package mqserver

import (
	"context"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// The command server: one per queue manager served, it takes PCF command
// messages (MQFMT_ADMIN) from SYSTEM.ADMIN.COMMAND.QUEUE and puts the
// responses, MQCFT_RESPONSE messages, one per object and the last with
// MQCFC_LAST, to the command's ReplyToQ, as IBM MQ's amqpcsea does. It
// runs on the queue manager's own connection (embedded.ConnectInternal),
// which injected faults leave alone.

// MQMD values of command messages.
const (
	fmtAdmin              = "MQADMIN"
	mtReply         int32 = 2
	commandServerID       = "amqpcsea" // PutApplName of the replies, IBM's command server program
	// maxCommandLength bounds a command message the command server reads;
	// the rest of a longer one is discarded.
	maxCommandLength = 1 << 20
	// commandServerRetry is how long the command server waits before
	// connecting again after its connection broke.
	commandServerRetry = 100 * time.Millisecond
)

// startCommandServers defines SYSTEM.ADMIN.COMMAND.QUEUE on every queue
// manager that lacks it and starts its command server, until Close.
func (srv *Server) startCommandServers() error {
	ctx, cancel := context.WithCancel(context.Background())
	srv.stopCommands = cancel
	for _, qmgr := range srv.backend.QueueManagerNames() {
		err := srv.backend.DefineQueue(qmgr, embedded.QueueConfig{Name: commandQueue}, embedded.Predefined)
		if e, ok := mq.AsError(err); err != nil && !(ok && e.Reason == reasonObjectAlreadyExists) {
			cancel()
			return err
		}
		srv.wg.Add(1)
		go srv.serveCommands(ctx, qmgr)
	}
	return nil
}

// reasonObjectAlreadyExists is MQRC_OBJECT_ALREADY_EXISTS: a backend kept
// across a restart already has the command queue.
const reasonObjectAlreadyExists mq.Reason = 2100

// serveCommands runs the command server of qmgr until ctx ends,
// connecting again when its connection breaks.
func (srv *Server) serveCommands(ctx context.Context, qmgr string) {
	defer srv.wg.Done()
	for ctx.Err() == nil {
		err := srv.commandLoop(ctx, qmgr)
		if ctx.Err() != nil {
			return
		}
		srv.log.Debug("mqserver: command server reconnecting", "queueManager", qmgr, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(commandServerRetry):
		}
	}
}

// commandLoop serves commands on one connection until it fails.
func (srv *Server) commandLoop(ctx context.Context, qmgr string) error {
	conn, err := srv.backend.ConnectInternal(qmgr)
	if err != nil {
		return err
	}
	defer conn.Break()
	q, err := conn.Open(commandQueue, mq.OpenInputShared)
	if err != nil {
		return err
	}
	cs := &commandServer{srv: srv, conn: conn, qmgr: conn.QueueManager()}
	var msg mq.Message
	for {
		res, err := q.Get(ctx, &msg, embedded.GetOptions{WaitUnlimited: true, BufferLength: maxCommandLength,
			AcceptTruncated: true})
		if e, ok := mq.AsError(err); err != nil && !(ok && e.CompCode == mq.CompWarning) {
			return err
		}
		cs.handle(&msg, &res.Descriptor)
	}
}

// commandServer answers the commands of one queue manager.
type commandServer struct {
	srv  *Server
	conn *embedded.MQIConn
	qmgr embedded.QueueManagerAttributes
}

// pcfReply is one response message's parameters, or an error.
type pcfReply struct {
	resp   pcfResponse
	cc, rc int32
}

// handle answers one command message.
func (cs *commandServer) handle(msg *mq.Message, d *embedded.Descriptor) {
	if msg.ReplyToQ == "" || d.MsgType != mtRequest {
		return // a datagram: IBM's command server runs it and answers nobody
	}
	order := byteOrder(d.Encoding)
	var replies []pcfReply
	cmd, rc := parsePCF(msg.Payload, order)
	switch {
	case msg.Format != fmtAdmin:
		replies = []pcfReply{{cc: ccFailed, rc: rccfMDFormatError}}
	case rc != rcNone:
		replies = []pcfReply{{cc: ccFailed, rc: rc}}
	default:
		replies = cs.run(&cmd)
	}
	cs.send(msg, d, cmd.command, replies, order)
}

// run executes a command.
func (cs *commandServer) run(cmd *pcfCommand) []pcfReply {
	var replies []pcfReply
	var rc int32
	switch cmd.command {
	case cmdInquireQMgr:
		replies = cs.inquireQMgr(cmd)
	case cmdInquireQMgrStatus:
		replies = cs.inquireQMgrStatus()
	case cmdInquireQ:
		replies, rc = cs.inquireQ(cmd)
	case cmdInquireQNames:
		replies, rc = cs.inquireQNames(cmd)
	case cmdInquireQStatus:
		replies, rc = cs.inquireQStatus(cmd)
	case cmdResetQStats:
		replies, rc = cs.resetQStats(cmd)
	case cmdInquireChannel:
		replies, rc = cs.inquireChannel(cmd)
	case cmdInquireChannelNames:
		replies, rc = cs.inquireChannelNames(cmd)
	case cmdInquireChannelStatus:
		replies, rc = cs.inquireChannelStatus(cmd)
	default:
		rc = rccfCFHCommandError
	}
	if rc != rcNone {
		replies = []pcfReply{{cc: ccFailed, rc: rc}}
	}
	return replies
}

// send puts the responses to the command's ReplyToQ, as the command's
// Report options ask: CorrelId the command's MsgId (or its CorrelId with
// MQRO_PASS_CORREL_ID), a new MsgId (or the command's with
// MQRO_PASS_MSG_ID), the remaining expiry with MQRO_PASS_DISCARD_AND_EXPIRY.
// A reply queue that cannot be opened loses the responses, as IBM's
// command server would put them to the dead-letter queue instead.
func (cs *commandServer) send(msg *mq.Message, d *embedded.Descriptor, command int32, replies []pcfReply, order pcfOrder) {
	q, err := cs.conn.Open(msg.ReplyToQ, mq.OpenOutput)
	if err != nil {
		cs.srv.log.Warn("mqserver: command server cannot answer", "replyToQ", msg.ReplyToQ, "err", err)
		return
	}
	defer q.Close()
	now := time.Now()
	// The command's identity context, the command server's origin context.
	out := md{MsgType: mtReply, Encoding: d.Encoding, CodedCharSetID: qmgrCCSID, Priority: d.Priority,
		UserIdentifier: d.UserIdentifier, AccountingToken: d.AccountingToken, PutApplType: atQMgr,
		MsgSeqNumber: 1, OriginalLength: olUndefined}
	fixed(out.Format[:], fmtAdmin)
	blank(out.ApplIdentityData[:])
	blank(out.ApplOriginData[:])
	fixed(out.PutApplName[:], commandServerID)
	putDateTime(now, &out.PutDate, &out.PutTime)
	reply := mq.Message{Format: fmtAdmin, Persistent: msg.Persistent, Priority: min(d.Priority, maxPriority)}
	reply.CorrelID = msg.MsgID
	if d.Report&roPassCorrelID != 0 {
		reply.CorrelID = msg.CorrelID
	}
	if d.Report&roPassMsgID != 0 {
		reply.MsgID = msg.MsgID
	}
	if d.Report&roPassDiscardAndExpiry != 0 && msg.Expiry > 0 {
		reply.Expiry = msg.Expiry
	}
	for i := range replies {
		control := cfcNotLast
		if i == len(replies)-1 {
			control = cfcLast
		}
		r := &replies[i]
		reply.Payload = r.resp.message(order, command, control, r.cc, r.rc)
		if _, err := q.Put(&reply, embedded.PutOptions{NewMsgID: d.Report&roPassMsgID == 0, PutTime: now,
			Descriptor: out.descriptor()}); err != nil {
			cs.srv.log.Warn("mqserver: command server cannot answer", "replyToQ", msg.ReplyToQ, "err", err)
			return
		}
	}
}
