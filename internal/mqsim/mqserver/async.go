package mqserver

// Asynchronous put (MQPMO_ASYNC_RESPONSE) and MQSTAT: a PUT or PUT1 frame
// with flagNoReply gets no reply; its outcome is counted per connection
// and MQSTAT(MQSTAT_TYPE_ASYNC_ERROR) returns and resets the counts, as
// IBM's queue manager does for a client.

// flagNoReply in a request frame's flags: the client waits for no reply
// (PROTOCOL.md, "Asynchronous put").
const flagNoReply uint16 = 1

// MQSTAT's types (MQSTAT_TYPE_*) and its reason codes.
const (
	statTypeAsyncError        int32 = 0
	statTypeReconnection      int32 = 1
	statTypeReconnectionError int32 = 2
	rcBackedOut               int32 = 2003
	rcStatTypeError           int32 = 2430
	otNone                    int32 = 0 // MQSTS ObjectType when there was no error
	maxAsyncCount             int32 = 1<<31 - 1
)

// putTarget is the object a put went to, as MQSTAT names it.
type putTarget struct {
	objectType                 int32
	name, qmgrName             string
	resolvedName, resolvedQMgr string
	persistentInSyncpoint      bool // a failure spoils the unit of work
}

// asyncStatus is what MQSTAT(MQSTAT_TYPE_ASYNC_ERROR) reports: the counts
// since the last MQSTAT and the first warning or failure (a failure
// replaces a first warning, as IBM documents).
type asyncStatus struct {
	successes, warnings, failures int32
	cc, rc                        int32
	first                         putTarget
}

// record counts one asynchronous put's outcome.
func (a *asyncStatus) record(cc, rc int32, target putTarget) {
	switch cc {
	case ccOK:
		a.successes = min(a.successes+1, maxAsyncCount)
		return
	case ccWarning:
		a.warnings = min(a.warnings+1, maxAsyncCount)
	default:
		a.failures = min(a.failures+1, maxAsyncCount)
	}
	if a.cc == ccOK || a.cc == ccWarning && cc == ccFailed {
		a.cc, a.rc, a.first = cc, rc, target
	}
}

// stat is MQSTAT: the asynchronous put status, then reset.
func (s *session) stat(d *decoder) (cc, rc int32, err error) {
	typ := d.i32()
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	var st asyncStatus
	switch typ {
	case statTypeAsyncError:
		st, s.async = s.async, asyncStatus{}
	case statTypeReconnection, statTypeReconnectionError:
		// Nothing reconnects here: no failure to describe.
	default:
		cc, rc = ccFailed, rcStatTypeError
	}
	s.out.i32(st.cc)
	s.out.i32(st.rc)
	s.out.i32(st.successes)
	s.out.i32(st.warnings)
	s.out.i32(st.failures)
	objectType := st.first.objectType
	if st.cc == ccOK {
		objectType = otNone
	}
	s.out.i32(objectType)
	s.out.str(st.first.name)
	s.out.str(st.first.qmgrName)
	s.out.str(st.first.resolvedName)
	s.out.str(st.first.resolvedQMgr)
	return cc, rc, nil
}

// asyncPutDone records an asynchronous put's outcome instead of replying.
// A failed persistent put in a unit of work means the unit cannot commit:
// MQCMIT backs it out with MQRC_BACKED_OUT.
func (s *session) asyncPutDone(cc, rc int32) {
	s.async.record(cc, rc, s.lastPut)
	if cc == ccFailed && s.lastPut.persistentInSyncpoint {
		s.uowSpoiled = true
	}
}

// commit is MQCMIT: a unit of work spoiled by a failed asynchronous put is
// backed out instead (MQCC_WARNING, MQRC_BACKED_OUT).
func (s *session) commit() (cc, rc int32) {
	if s.uowSpoiled {
		s.uowSpoiled = false
		if cc, rc := reasonOf(s.conn.Backout()); cc != ccOK {
			return cc, rc
		}
		return ccWarning, rcBackedOut
	}
	return reasonOf(s.conn.Commit())
}
