package mq

import (
	"context"
	"errors"
	"fmt"
)

// Backend opens connections to queue managers: the IBM MQ client
// (internal/mq/ibmmq) or the in-process queue manager (internal/mq/embedded).
// It is safe for concurrent use.
type Backend interface {
	// Connect opens a connection (MQCONNX). Failures are *Error; refused or
	// unreachable queue managers are transient (2059, 2538, ...).
	Connect(ctx context.Context, t Target) (Conn, error)
}

// ProcessBound is implemented by a Backend whose queue managers run inside
// this process (the embedded one): their messages end when it ends, so
// progress recorded for another process to take over from protects
// nothing. A Backend that does not implement it reaches queue managers
// elsewhere, whose messages outlive this process.
type ProcessBound interface {
	// MessagesOutliveProcess reports whether messages put through the
	// backend stay on their queue manager when this process ends.
	MessagesOutliveProcess() bool
}

// MessagesOutliveProcess reports whether messages put through b outlive
// this process: what b says if it is ProcessBound, true otherwise (a
// backend that cannot say is assumed to keep them).
func MessagesOutliveProcess(b Backend) bool {
	if pb, ok := b.(ProcessBound); ok {
		return pb.MessagesOutliveProcess()
	}
	return true
}

// Conn is one connection (hConn) and its unit of work. Use a Conn from one
// goroutine at a time, like an MQ handle without shared-handle options.
//
// Contexts bound blocking work (connect, get-wait); calls that do not block
// may ignore them.
type Conn interface {
	// OpenQueue opens a queue (MQOPEN) for the given uses. Where the
	// queue manager has model queues (IBM MQ), opening one creates a
	// temporary dynamic queue, named AMQ.* and deleted when the handle
	// closes, whose name the Queue's Name reports.
	OpenQueue(ctx context.Context, name string, opts OpenOption) (Queue, error)
	// InquireQueueManager reads the queue manager's name, command level,
	// platform, CCSID and dead-letter queue.
	InquireQueueManager(ctx context.Context) (QueueManagerInfo, error)
	// InquireQueueStatus reads a local queue's status: on IBM MQ one PCF
	// INQUIRE_Q_STATUS through the command server, answered to a
	// temporary dynamic queue. It fails when the command server refuses
	// (MQRC_NOT_AUTHORIZED, 2035) or does not answer in time
	// (MQRC_NO_MSG_AVAILABLE, 2033); MQRC_UNKNOWN_OBJECT_NAME (2085)
	// when name is no local queue.
	InquireQueueStatus(ctx context.Context, name string) (QueueStatus, error)
	// InquireChannelStatus reads the status of the channel instance the
	// connection runs on (INQUIRE_CHANNEL_STATUS through the command
	// server; the instance that made the latest call when several share
	// the channel), failing as InquireQueueStatus does. A connection
	// without a channel returns a zero ChannelStatus.
	InquireChannelStatus(ctx context.Context) (ChannelStatus, error)
	// Commit makes the unit of work's puts visible and its gets final
	// (MQCMIT). If it fails, the unit of work was backed out.
	Commit(ctx context.Context) error
	// Backout undoes the unit of work (MQBACK): its puts vanish and its gets
	// reappear in their original positions with BackoutCount+1.
	Backout(ctx context.Context) error
	// Close disconnects (MQDISC), backing out any open unit of work and
	// closing its queues. For a pooled connection it returns it to the pool.
	Close() error
}

// AsyncPutChecker is a connection whose puts may be asynchronous
// (PutOptions.Async).
type AsyncPutChecker interface {
	// CheckAsyncPuts asks the queue manager how the asynchronous puts since
	// the last check went (MQSTAT) and fails, with the first failure's
	// reason, when any of them failed.
	CheckAsyncPuts(ctx context.Context) error
}

// CheckAsyncPuts is conn's CheckAsyncPuts; nil for a connection whose puts
// are never asynchronous.
func CheckAsyncPuts(ctx context.Context, conn Conn) error {
	if c, ok := conn.(AsyncPutChecker); ok {
		return c.CheckAsyncPuts(ctx)
	}
	return nil
}

// Queue is an open queue handle (hObj).
type Queue interface {
	// Name is the queue name as opened, or the temporary dynamic queue's
	// when a model queue was opened.
	Name() string
	// Put sends msg (MQPUT) and returns the MsgId and put time the queue
	// manager assigned. A zero msg.MsgID asks for a new unique one.
	Put(ctx context.Context, msg *Message, opts PutOptions) (PutResult, error)
	// Get receives or browses into msg (MQGET), overwriting it and reusing its
	// Payload and Properties storage. MQRC_NO_MSG_AVAILABLE (2033) when
	// nothing matches within opts.Wait.
	Get(ctx context.Context, msg *Message, opts GetOptions) error
	// Inquire reads the queue's depth and limits (MQINQ); needs OpenInquire.
	Inquire(ctx context.Context) (QueueInfo, error)
	// Close closes the handle (MQCLOSE).
	Close() error
}

// OpenOption is a set of MQOO_* uses; combine with |.
type OpenOption int

// Open options.
const (
	OpenOutput         OpenOption = 1 << iota // MQOO_OUTPUT
	OpenInputShared                           // MQOO_INPUT_SHARED
	OpenInputExclusive                        // MQOO_INPUT_EXCLUSIVE
	OpenBrowse                                // MQOO_BROWSE
	OpenInquire                               // MQOO_INQUIRE
)

// Has reports whether o includes every use in want.
func (o OpenOption) Has(want OpenOption) bool { return o&want == want }

// Input reports whether o opens for destructive gets.
func (o OpenOption) Input() bool { return o&(OpenInputShared|OpenInputExclusive) != 0 }

// Validate rejects empty and contradictory option sets (MQRC_OPTIONS_ERROR).
func (o OpenOption) Validate() error {
	const all = OpenOutput | OpenInputShared | OpenInputExclusive | OpenBrowse | OpenInquire
	if o == 0 || o&^all != 0 || o.Has(OpenInputShared|OpenInputExclusive) {
		return &Error{Verb: VerbOpen, CompCode: CompFailed, Reason: ReasonOptionsError,
			Err: fmt.Errorf("invalid open options %#x", int(o))}
	}
	return nil
}

// QueueInfo holds the queue attributes DEPTH reports. Depth, limits and
// open counts apply to local queues only: for the other types (a real
// queue manager answers MQINQ for them with warning 2068,
// MQRC_SELECTOR_NOT_FOR_TYPE) they are zero, and the fields naming what
// the definition points at are set instead.
type QueueInfo struct {
	Name            string
	Type            QueueType
	CurrentDepth    int // CURDEPTH: committed and uncommitted messages
	MaxDepth        int // MAXDEPTH
	OpenInputCount  int // IPPROCS
	OpenOutputCount int // OPPROCS
	MaxMsgLength    int // MAXMSGL, bytes

	BaseQueue          string // alias: TARGET (MQCA_BASE_Q_NAME)
	RemoteQueue        string // remote definition: RNAME
	RemoteQueueManager string // remote definition: RQMNAME
	TransmissionQueue  string // remote definition: XMITQ ("" = the one named like RQMNAME)
}

// QueueType is MQIA_Q_TYPE (MQQT_*).
type QueueType int32

// Queue types.
const (
	QueueLocal   QueueType = 1 // MQQT_LOCAL
	QueueModel   QueueType = 2 // MQQT_MODEL
	QueueAlias   QueueType = 3 // MQQT_ALIAS
	QueueRemote  QueueType = 6 // MQQT_REMOTE
	QueueCluster QueueType = 7 // MQQT_CLUSTER
)

// String is the lower-case name DEPTH reports: local, alias, remote, ...
func (t QueueType) String() string {
	switch t {
	case QueueLocal:
		return "local"
	case QueueModel:
		return "model"
	case QueueAlias:
		return "alias"
	case QueueRemote:
		return "remote"
	case QueueCluster:
		return "cluster"
	}
	return fmt.Sprintf("type%d", int32(t))
}

// QueueManagerInfo holds what CONNECTION_TEST reports.
type QueueManagerInfo struct {
	Name            string
	CommandLevel    int // e.g. 940 for 9.4.0
	Platform        Platform
	CCSID           int    // CCSID: the queue manager's coded character set
	DeadLetterQueue string // DEADQ; "" when none is defined
}

// Platform is MQIA_PLATFORM (MQPL_*).
type Platform int32

// Platforms an operator meets.
const (
	PlatformZOS       Platform = 1
	PlatformUnix      Platform = 3
	PlatformOS400     Platform = 4
	PlatformWindows   Platform = 5
	PlatformWindowsNT Platform = 11
	PlatformNSK       Platform = 13
	PlatformAppliance Platform = 28
)

// String is IBM's name without the MQPL_ prefix.
func (p Platform) String() string {
	switch p {
	case PlatformZOS:
		return "ZOS"
	case PlatformUnix:
		return "UNIX"
	case PlatformOS400:
		return "OS400"
	case PlatformWindows:
		return "WINDOWS"
	case PlatformWindowsNT:
		return "WINDOWS_NT"
	case PlatformNSK:
		return "NSK"
	case PlatformAppliance:
		return "APPLIANCE"
	}
	return fmt.Sprintf("PLATFORM_%d", int32(p))
}

// InquireQueue opens name for inquire, reads its attributes and closes it.
func InquireQueue(ctx context.Context, c Conn, name string) (QueueInfo, error) {
	q, err := c.OpenQueue(ctx, name, OpenInquire)
	if err != nil {
		return QueueInfo{}, err
	}
	info, err := q.Inquire(ctx)
	return info, errors.Join(err, q.Close())
}
