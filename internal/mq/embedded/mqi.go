package embedded

import (
	"context"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// This file is the queue manager's side for MQI clients (internal/mqsim/mqserver):
// the same queues and units of work as the mq port, plus what the MQI has
// and the port leaves out: the whole MQMD, property order, match options,
// browse and get under the cursor, truncated gets, MQDISC's commit.

// Descriptor holds the MQMD fields the mq port does not model, and
// Encoding and CodedCharSetID, which a get through the port also reports
// as the message's Encoding and CCSID. The queue
// manager stores it with a message put through an MQIQueue and returns it
// unchanged; it only reads GroupID and MsgSeqNumber, for matching. Character
// fields are as in an MQMD: blank-padded bytes. A message put through the
// port has a zero Descriptor (Valid false), and whoever shows it as an MQMD
// supplies IBM's defaults.
type Descriptor struct {
	Valid            bool
	Report           int32
	MsgType          int32
	Feedback         int32
	Encoding         int32
	CodedCharSetID   int32
	Priority         int32 // as put: above mq.MaxPriority the message is delivered as mq.MaxPriority
	UserIdentifier   [12]byte
	AccountingToken  [32]byte
	ApplIdentityData [32]byte
	PutApplType      int32
	PutApplName      [28]byte
	PutDate          [8]byte
	PutTime          [8]byte
	ApplOriginData   [4]byte
	GroupID          mq.ID
	MsgSeqNumber     int32
	Offset           int32
	MsgFlags         int32
	OriginalLength   int32
}

// msgSeqNumber is MQMD MsgSeqNumber, 1 for a message put through the port.
func (d *Descriptor) msgSeqNumber() int32 {
	if !d.Valid {
		return 1
	}
	return d.MsgSeqNumber
}

// QueueManagerAttributes are the queue manager's attributes an MQINQ on it
// reads.
type QueueManagerAttributes struct {
	Name               string
	Identifier         string // QMID
	CommandLevel       int
	MaxMsgLength       int
	MaxUncommittedMsgs int
	DeadLetterQueue    string // "" when it has no DEV.DEAD.LETTER.QUEUE
	MaxDepth           int    // MAXDEPTH of its queues that set none
}

// deadLetterQueue is the DEADQ every queue manager here has when it
// defines a queue of that name, as IBM's developer image does.
const deadLetterQueue = "DEV.DEAD.LETTER.QUEUE"

// HasQueueManager reports whether name ("" for the default) is served.
func (b *Backend) HasQueueManager(name string) bool {
	return name == "" || b.qmgrs[name] != nil
}

// ConnectMQI connects an MQI client to the queue manager name ("" is the
// first configured one). It fails as Connect does: an injected refusal, or
// MQRC_Q_MGR_NAME_ERROR (2058) for a name it does not serve. Disconnect
// or Break it when done.
func (b *Backend) ConnectMQI(name string) (*MQIConn, error) {
	if rc := mq.Reason(b.faults.refuse.Load()); rc != 0 {
		return nil, mq.NewError(mq.VerbConnect, name, rc)
	}
	return b.connectMQI(name, false)
}

// ConnectInternal connects the queue manager's own work, such as an MQI
// server's command server, to the queue manager name ("" the default):
// injected faults (Faults) do not apply to it, though BreakConnections
// breaks it like any other.
func (b *Backend) ConnectInternal(name string) (*MQIConn, error) { return b.connectMQI(name, true) }

func (b *Backend) connectMQI(name string, internal bool) (*MQIConn, error) {
	qm := b.defaultQM
	if name != "" {
		qm = b.qmgrs[name]
	}
	if qm == nil {
		return nil, mq.NewError(mq.VerbConnect, name, mq.ReasonQMgrNameError)
	}
	c := &conn{qm: qm, handles: make(map[*handle]struct{}), internal: internal}
	b.mu.Lock()
	b.conns[c] = struct{}{}
	b.mu.Unlock()
	return &MQIConn{c: c}, nil
}

// MQIConn is an MQI client's connection: one goroutine at a time, like
// mq.Conn, except that Break may be called from any goroutine.
type MQIConn struct{ c *conn }

// QueueManager returns the connected queue manager's attributes.
func (mc *MQIConn) QueueManager() QueueManagerAttributes {
	qm := mc.c.qm
	a := QueueManagerAttributes{Name: qm.name, Identifier: qm.identifier, CommandLevel: qm.commandLevel,
		MaxMsgLength: qm.maxMsgLength, MaxUncommittedMsgs: qm.maxUncommitted, MaxDepth: qm.maxDepth}
	if qm.queues[deadLetterQueue] != nil {
		a.DeadLetterQueue = deadLetterQueue
	}
	return a
}

// NewMsgID makes a MsgId as the queue manager's puts do, for an MQI server
// that must know it before the put (a transmission header carries it).
func (mc *MQIConn) NewMsgID() mq.ID { return mc.c.qm.newMsgID() }

// Open opens a queue as mq.Conn.OpenQueue does: an alias resolves to its
// target; a remote definition to its transmission queue, and only for
// output and inquire (else MQRC_OPTION_NOT_VALID_FOR_TYPE, 2045).
func (mc *MQIConn) Open(name string, opts mq.OpenOption) (*MQIQueue, error) {
	h, err := mc.c.open(name, opts)
	if err != nil {
		return nil, err
	}
	return &MQIQueue{h: h}, nil
}

// Commit commits the unit of work as mq.Conn.Commit does.
func (mc *MQIConn) Commit() error { return mc.c.Commit(context.Background()) }

// Backout backs the unit of work out as mq.Conn.Backout does.
func (mc *MQIConn) Backout() error { return mc.c.Backout(context.Background()) }

// Disconnect ends the connection as MQDISC does: it commits the unit of
// work (IBM's documented behaviour for queue-manager-coordinated units of
// work) and closes every handle. It is a no-op on a connection already
// ended.
func (mc *MQIConn) Disconnect() {
	c := mc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == stateOpen {
		c.commitLocked()
		// MQDISC succeeds whatever the journal says; a failed journal
		// fails the next persistent put and commit.
		_ = c.qm.syncJournal(mq.VerbDisconnect, "")
		c.endLocked(stateClosed)
		c.qm.backend.forget(c)
	}
}

// Break ends the connection as a lost network does: the unit of work is
// backed out and every handle closed. A get waiting on the connection
// returns MQRC_CONNECTION_BROKEN (2009). Safe to call from any goroutine,
// and a no-op on a connection already ended.
func (mc *MQIConn) Break() {
	c := mc.c
	c.mu.Lock()
	open := c.state == stateOpen
	if open {
		c.endLocked(stateBroken)
	}
	c.mu.Unlock()
	if open {
		c.qm.backend.forget(c)
		c.qm.eachQueue((*queue).wakeAll)
	}
}

// MQIQueue is an open queue of an MQIConn.
type MQIQueue struct{ h *handle }

// Name is the queue name as opened.
func (q *MQIQueue) Name() string { return q.h.name }

// Resolved is the queue and queue manager names MQOPEN resolves the object
// to: the local queue itself, an alias's target, or a remote definition's
// RNAME and RQMNAME.
func (q *MQIQueue) Resolved() (queue, queueManager string) {
	if r := q.h.remote; r != nil {
		return r.RemoteQueue, r.RemoteQueueManager
	}
	return q.h.q.name, q.h.c.qm.name
}

// Backout is the local queue's BOTHRESH and BOQNAME (0 and "" for a
// remote definition).
func (q *MQIQueue) Backout() (threshold int, requeueQueue string) {
	if q.h.q == nil {
		return 0, ""
	}
	return q.h.q.backoutThreshold, q.h.q.backoutRequeueQueue
}

// PutOptions are the MQPMO options and MQMD fields an MQI put passes
// beyond mq.Message.
type PutOptions struct {
	Syncpoint   bool
	NewMsgID    bool // MQPMO_NEW_MSG_ID: a new MsgId whatever msg.MsgID holds
	NewCorrelID bool // MQPMO_NEW_CORREL_ID
	// PutTime is the time the put is stamped with (the caller formats
	// Descriptor.PutDate and PutTime from it); zero is now.
	PutTime    time.Time
	Descriptor Descriptor
	// PropertyOrder lists msg.Properties' names in the order they were put;
	// the queue manager keeps the slice and never writes to it.
	PropertyOrder []string
}

// PutResult is what an MQI put assigned.
type PutResult struct {
	MsgID, CorrelID mq.ID
	PutTime         time.Time
}

// Put puts msg as mq.Queue.Put does, storing opts.Descriptor with it.
// msg.Priority is the delivery priority (0-9).
func (q *MQIQueue) Put(msg *mq.Message, opts PutOptions) (PutResult, error) {
	done, err := q.h.put(msg, putRequest{syncpoint: opts.Syncpoint, newMsgID: opts.NewMsgID,
		newCorrelID: opts.NewCorrelID, putTime: opts.PutTime, desc: &opts.Descriptor, propOrder: opts.PropertyOrder})
	return PutResult{MsgID: done.msgID, CorrelID: done.correlID, PutTime: done.putTime}, err
}

// GetOptions are the MQGMO options and match fields of an MQI get.
type GetOptions struct {
	Wait          time.Duration
	WaitUnlimited bool // MQWI_UNLIMITED
	Syncpoint     bool
	// SyncpointIfPersistent takes a persistent message in the unit of work
	// and a non-persistent one outright.
	SyncpointIfPersistent bool
	Browse                mq.BrowseMode
	BrowseUnderCursor     bool // browse the message under the cursor again
	MsgUnderCursor        bool // take the message under the browse cursor
	// Match fields: a zero identifier matches any message.
	MsgID, CorrelID, GroupID mq.ID
	MatchMsgSeqNumber        bool
	MsgSeqNumber             int32
	// BufferLength is the caller's buffer: a longer message fails with
	// warning MQRC_TRUNCATED_MSG_FAILED (2080) and stays where it is (a
	// browse cursor too), unless AcceptTruncated, which takes it with
	// warning MQRC_TRUNCATED_MSG_ACCEPTED (2079). Either way msg holds the
	// first BufferLength bytes.
	BufferLength    int
	AcceptTruncated bool
}

// GetResult is the MQI's view of the message a get returned.
type GetResult struct {
	DataLength    int // the message's whole length
	Descriptor    Descriptor
	PropertyOrder []string // as put by an MQI client; nil for a port put. Do not modify.
}

// Get gets or browses into msg as mq.Queue.Get does, with the MQI's options.
// On the two truncation warnings msg and the result are filled in as well.
func (q *MQIQueue) Get(ctx context.Context, msg *mq.Message, opts GetOptions) (GetResult, error) {
	var done getDone
	err := q.h.get(ctx, msg, &done, getRequest{
		wait:                  opts.Wait,
		waitUnlimited:         opts.WaitUnlimited,
		syncpoint:             opts.Syncpoint,
		syncpointIfPersistent: opts.SyncpointIfPersistent,
		browse:                opts.Browse,
		browseUnderCursor:     opts.BrowseUnderCursor,
		msgUnderCursor:        opts.MsgUnderCursor,
		sel: match{msgID: opts.MsgID, correlID: opts.CorrelID, groupID: opts.GroupID,
			matchSeq: opts.MatchMsgSeqNumber, seq: opts.MsgSeqNumber},
		bufferLength:    max(opts.BufferLength, 0),
		acceptTruncated: opts.AcceptTruncated,
	})
	return GetResult{DataLength: done.dataLength, Descriptor: done.desc, PropertyOrder: done.propOrder}, err
}

// Inquire reads the queue's attributes as mq.Queue.Inquire does.
func (q *MQIQueue) Inquire() (mq.QueueInfo, error) { return q.h.Inquire(context.Background()) }

// Close closes the handle as mq.Queue.Close does.
func (q *MQIQueue) Close() error { return q.h.Close() }
