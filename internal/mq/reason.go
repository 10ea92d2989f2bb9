package mq

import (
	"strconv"
	"sync"
)

// Reason is an MQ reason code (MQRC_*), as returned by every MQI call.
type Reason int32

// The reason codes this project names in code. Values are IBM's; the full
// name table the errors print from is in reason_names.go.
const (
	ReasonNone                    Reason = 0
	ReasonBackedOut               Reason = 2003
	ReasonConnectionBroken        Reason = 2009
	ReasonDataLengthError         Reason = 2010
	ReasonGetInhibited            Reason = 2016
	ReasonExpiryError             Reason = 2013
	ReasonHconnError              Reason = 2018
	ReasonHobjError               Reason = 2019
	ReasonSyncpointLimitReached   Reason = 2024
	ReasonMaxConnsLimitReached    Reason = 2025
	ReasonMsgTooBigForQ           Reason = 2030
	ReasonMsgTooBigForQMgr        Reason = 2031
	ReasonNoMsgAvailable          Reason = 2033
	ReasonNotAuthorized           Reason = 2035
	ReasonNotOpenForBrowse        Reason = 2036
	ReasonNotOpenForInput         Reason = 2037
	ReasonNotOpenForInquire       Reason = 2038
	ReasonNotOpenForOutput        Reason = 2039
	ReasonObjectInUse             Reason = 2042
	ReasonOptionsError            Reason = 2046
	ReasonPriorityError           Reason = 2050
	ReasonPutInhibited            Reason = 2051
	ReasonQFull                   Reason = 2053
	ReasonQSpaceNotAvailable      Reason = 2056
	ReasonQMgrNameError           Reason = 2058
	ReasonQMgrNotAvailable        Reason = 2059
	ReasonSecurityError           Reason = 2063
	ReasonStorageNotAvailable     Reason = 2071
	ReasonTruncatedMsgFailed      Reason = 2080
	ReasonUnknownObjectName       Reason = 2085
	ReasonUnknownObjectQMgr       Reason = 2086
	ReasonUnknownRemoteQMgr       Reason = 2087
	ReasonWaitIntervalError       Reason = 2090
	ReasonResourceProblem         Reason = 2102
	ReasonFormatError             Reason = 2110
	ReasonQMgrQuiescing           Reason = 2161
	ReasonQMgrStopping            Reason = 2162
	ReasonStorageMediumFull       Reason = 2192
	ReasonUnexpectedError         Reason = 2195
	ReasonConnectionQuiescing     Reason = 2202
	ReasonConnectionStopping      Reason = 2203
	ReasonConnectionNotAuthorized Reason = 2217
	ReasonMsgTooBigForChannel     Reason = 2218
	ReasonCallInProgress          Reason = 2219
	ReasonConnectionError         Reason = 2273
	ReasonKeyRepositoryError      Reason = 2381
	ReasonSSLInitializationError  Reason = 2393
	ReasonPropertyNameError       Reason = 2442
	ReasonPropertyTypeError       Reason = 2473
	ReasonChannelNotAvailable     Reason = 2537
	ReasonHostNotAvailable        Reason = 2538
	ReasonChannelConfigError      Reason = 2539
	ReasonUnknownChannelName      Reason = 2540
	ReasonStandbyQMgr             Reason = 2543
	ReasonReconnectFailed         Reason = 2548
	ReasonConnectionNotAvailable  Reason = 2568
)

// Name is the IBM name (e.g. "MQRC_Q_FULL"), or "" for a code not in the table.
func (r Reason) Name() string { return reasonNames[r] }

// ReasonNamed returns the reason whose IBM name is name (e.g.
// "MQRC_Q_FULL").
func ReasonNamed(name string) (Reason, bool) {
	r, ok := reasonsByName()[name]
	return r, ok
}

var reasonsByName = sync.OnceValue(func() map[string]Reason {
	m := make(map[string]Reason, len(reasonNames))
	for r, n := range reasonNames {
		m[n] = r
	}
	return m
})

// Code is the name when known and "MQRC_<number>" otherwise; it is what result
// events carry in error.code.
func (r Reason) Code() string {
	if n := reasonNames[r]; n != "" {
		return n
	}
	return "MQRC_" + strconv.Itoa(int(r))
}

// String renders "MQRC_Q_FULL (2053)".
func (r Reason) String() string {
	return r.Code() + " (" + strconv.Itoa(int(r)) + ")"
}

// Transient reports whether retrying the same command later may succeed
// without anyone changing its content (recorded as failed, nacked with
// backoff, redriven to a DLQ after maxReceiveCount). Anything not listed is permanent:
// an unknown code is more likely a defect than an outage, and a permanent
// failure is reported instead of retried forever.
//
// Judgement calls:
//   - 2053 Q_FULL is permanent: the command asked for more than the queue
//     takes, and its caller is told so by a `failed` result (issue 8) rather
//     than left without one while redeliveries wait for the queue to drain.
//   - 2056 Q_SPACE_NOT_AVAILABLE and 2192 STORAGE_MEDIUM_FULL are transient:
//     the queue manager's storage is short, which operators fix; the failed
//     unit of work was backed out, so a redelivery repeats nothing, and the
//     DLQ bounds the retries if it stays short.
//   - 2051 PUT_INHIBITED and 2016 GET_INHIBITED are transient: queues are
//     inhibited for maintenance windows and re-enabled.
//   - 2042 OBJECT_IN_USE (another exclusive reader) clears by itself.
//     2024 SYNCPOINT_LIMIT_REACHED does not: it is this unit of work
//     outgrowing the queue manager's MaxUncommittedMsgs, so the same
//     command (the same txSize) meets it again on every retry: permanent.
//   - 2003 BACKED_OUT: the queue manager rolled the unit of work back, so
//     nothing of it happened; running it again is safe.
//   - 2059 Q_MGR_NOT_AVAILABLE is transient here, as a queue manager
//     restarting behind its listener gives it, but a wrong queue manager
//     name gives it too: the pool retries it within the command and then
//     fails permanently (Error.Permanent), naming both causes.
//   - 2033 NO_MSG_AVAILABLE is not a failure at all (an empty consume); it
//     is not transient so a caller that does treat it as an error does not
//     spin on it.
func (r Reason) Transient() bool {
	switch r {
	case ReasonBackedOut,
		ReasonGetInhibited,
		ReasonMaxConnsLimitReached,
		ReasonObjectInUse,
		ReasonPutInhibited,
		ReasonQSpaceNotAvailable,
		ReasonStorageNotAvailable,
		ReasonResourceProblem,
		ReasonStorageMediumFull,
		ReasonConnectionError:
		return true
	}
	return r.ConnectionBroken()
}

// ConnectionBroken reports whether the reason means the connection is gone or
// could not be made for a reason outside the request: the queue manager, its
// host or its channel is unavailable, stopping or quiescing. The connection
// must be discarded; its unit of work was backed out by the queue manager.
// The pool reconnects with backoff on these.
func (r Reason) ConnectionBroken() bool {
	switch r {
	case ReasonConnectionBroken,
		ReasonQMgrNotAvailable,
		ReasonQMgrQuiescing,
		ReasonQMgrStopping,
		ReasonConnectionQuiescing,
		ReasonConnectionStopping,
		ReasonChannelNotAvailable,
		ReasonHostNotAvailable,
		ReasonStandbyQMgr,
		ReasonReconnectFailed,
		ReasonConnectionNotAvailable:
		return true
	}
	return false
}

// CompCode is an MQ completion code (MQCC_*).
type CompCode int32

// Completion codes.
const (
	CompOK      CompCode = 0
	CompWarning CompCode = 1
	CompFailed  CompCode = 2
)

func (c CompCode) String() string {
	switch c {
	case CompOK:
		return "MQCC_OK"
	case CompWarning:
		return "MQCC_WARNING"
	case CompFailed:
		return "MQCC_FAILED"
	}
	return "MQCC_" + strconv.Itoa(int(c))
}
