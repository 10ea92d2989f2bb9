package mqserver

import (
	"bufio"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// session is one TCP connection: after CONNECT, one MQI connection (hConn)
// and its object handles. Only its own goroutine touches it, except that
// Close and BreakConnections close nc.
type session struct {
	// props is what this session's puts sent as properties: a put loop
	// sends the same every time.
	props propsCache
	srv   *Server
	nc    net.Conn
	r     *bufio.Reader
	w     *bufio.Writer
	done  chan struct{} // closed when run has returned

	in  []byte  // request body buffer
	out encoder // reply body

	tls          *tls.ConnectionState // nil: plain TCP
	conn         *embedded.MQIConn    // nil before CONNECT
	qmgr         embedded.QueueManagerAttributes
	user         string
	applName     string
	connID       [24]byte
	maxMsgLength int // negotiated with the channel
	objects      map[int32]*object
	nextHobj     int32
	msg          mq.Message // reused by every GET
	// Asynchronous puts (async.go): their outcomes since the last MQSTAT,
	// the target of the put under way, and whether a failed one spoiled
	// the unit of work.
	async      asyncStatus
	lastPut    putTarget
	uowSpoiled bool
	status     channelCounters
	identity   *identity // nil before CONNECT; written and read under srv.mu
	jobName    string    // MCAJOB of its channel instance
}

// object is an open object handle.
type object struct {
	queue    *embedded.MQIQueue // nil for the queue manager object and namelists
	namelist string             // a namelist's name; "" for the other objects
	options  int32
	// The names MQOPEN was given, for MQSTAT.
	name, qmgrName string
	dynamic        string // the temporary dynamic queue this handle created, deleted at its close
}

// maxKeptBuffer bounds the request and reply buffers a session keeps
// between calls, so one large message does not pin its memory.
const maxKeptBuffer = 1 << 20

// errBroken ends a session whose connection is gone.
var errBroken = errors.New("mqserver: connection lost")

func (s *session) run() {
	defer close(s.done)
	defer s.srv.wg.Done()
	defer s.end()
	if err := s.startTLS(); err != nil {
		if !isClosedConn(err) {
			s.srv.log.Warn("mqserver: dropping connection", "remote", s.nc.RemoteAddr().String(), "err", err)
		}
		return
	}
	for {
		op, flags, body, buf, err := readFrameFlags(s.r, s.in)
		if err != nil {
			if !isClosedConn(err) {
				s.srv.log.Warn("mqserver: dropping connection", "remote", s.nc.RemoteAddr().String(), "err", err)
			}
			return
		}
		s.in = buf
		s.status.received(len(body))
		keepOpen, err := s.dispatch(op, flags, body)
		if cap(s.in) > maxKeptBuffer {
			s.in = nil
		}
		if err != nil {
			if !errors.Is(err, errBroken) && !isClosedConn(err) {
				s.srv.log.Warn("mqserver: dropping connection", "remote", s.nc.RemoteAddr().String(), "err", err)
			}
			return
		}
		if !keepOpen {
			return
		}
	}
}

// end releases what the session holds: a connection that did not
// disconnect is broken (its unit of work backed out), as when a client
// vanishes.
func (s *session) end() {
	if s.conn != nil {
		s.conn.Break()
		s.endConnection()
	}
	s.nc.Close()
	s.srv.forget(s)
}

// dispatch runs one call and writes its reply (none for an asynchronous
// put). keepOpen is false after a DISC or a failed CONNECT.
func (s *session) dispatch(op, flags uint16, body []byte) (keepOpen bool, err error) {
	d := &decoder{b: body}
	s.out.buf = s.out.buf[:0]
	s.out.i32(0) // compCode and reason, set below
	s.out.i32(0)
	var cc, rc int32
	keepOpen = true
	switch {
	case s.conn == nil && op != opConnect, s.conn != nil && op == opConnect:
		return false, fmt.Errorf("%w: op %d %s CONNECT", errProtocol, op, map[bool]string{true: "after", false: "before"}[s.conn != nil])
	case flags&flagNoReply != 0 && op != opPut && op != opPut1:
		return false, fmt.Errorf("%w: op %d without a reply", errProtocol, op)
	case op == opConnect:
		cc, rc, err = s.connect(d)
		keepOpen = cc != ccFailed
	case op == opDisc:
		if err = d.end(); err == nil {
			if s.uowSpoiled {
				// What MQDISC would commit cannot be: backed out, 2003.
				if cc, rc = reasonOf(s.conn.Backout()); cc == ccOK {
					cc, rc = ccWarning, rcBackedOut
				}
			}
			s.conn.Disconnect()
			s.endConnection()
			keepOpen = false
		}
	case op == opOpen:
		cc, rc, err = s.open(d)
	case op == opClose:
		cc, rc, err = s.close(d)
	case op == opPut:
		cc, rc, err = s.put(d)
	case op == opPut1:
		cc, rc, err = s.put1(d)
	case op == opGet:
		cc, rc, err = s.get(d)
	case op == opInq:
		cc, rc, err = s.inq(d)
	case op == opReopen:
		cc, rc, err = s.reopen(d)
	case op == opCmit, op == opBack:
		if err = d.end(); err == nil {
			if op == opCmit {
				cc, rc = s.commit()
			} else {
				s.uowSpoiled = false
				cc, rc = reasonOf(s.conn.Backout())
			}
		}
	case op == opStat:
		cc, rc, err = s.stat(d)
	case op == opSet:
		cc, rc, err = s.set(d)
	default:
		cc, rc = ccFailed, rcFunctionNotSupported
	}
	if err != nil {
		return false, err
	}
	if flags&flagNoReply != 0 {
		s.asyncPutDone(cc, rc)
		if rc == rcConnectionBroken {
			return false, errBroken
		}
		return keepOpen, nil
	}
	binary.LittleEndian.PutUint32(s.out.buf[0:], uint32(cc))
	binary.LittleEndian.PutUint32(s.out.buf[4:], uint32(rc))
	s.status.sent(len(s.out.buf)) // before the client can see the reply, so its status already counts it
	if err := writeFrame(s.w, op|opReply, s.out.buf); err != nil {
		return false, err
	}
	if cap(s.out.buf) > maxKeptBuffer {
		s.out.buf = nil
	}
	if rc == rcConnectionBroken {
		// The queue manager broke the connection (fault injection): the
		// client has its 2009, and the TCP connection goes too.
		return false, errBroken
	}
	return keepOpen, nil
}

// reasonOf is the completion and reason code of a queue manager's error.
func reasonOf(err error) (cc, rc int32) {
	if err == nil {
		return ccOK, rcNone
	}
	if e, ok := mq.AsError(err); ok {
		if e.CompCode == mq.CompWarning {
			return ccWarning, int32(e.Reason)
		}
		return ccFailed, int32(e.Reason)
	}
	return ccFailed, rcConnectionBroken
}

// connect authenticates and connects (CONNECT).
func (s *session) connect(d *decoder) (cc, rc int32, err error) {
	version := d.i32()
	qmgrName, channel, user, password := d.str(), d.str(), d.str(), d.str()
	applName := d.str()
	_ = d.i32() // MQCNO options: nothing here depends on them
	clientMax := d.i32()
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	remote := s.nc.RemoteAddr().String()
	fail := func(reason int32, why string) (int32, int32, error) {
		s.srv.log.Info("mqserver: connection refused", "remote", remote, "channel", channel, "user", user,
			"queueManager", qmgrName, "reason", reason, "why", why)
		s.out.str("")
		s.out.bytes(nil)
		s.out.str("")
		s.out.i32(0)
		return ccFailed, reason, nil
	}
	if version != protocolVersion {
		return fail(rcFunctionNotSupported, fmt.Sprintf("protocol version %d, this server speaks %d", version, protocolVersion))
	}
	ch, ok := s.srv.channels[channel]
	if !ok {
		return fail(rcUnknownChannelName, "no such channel")
	}
	if rc, why := checkChannelTLS(ch, s.tls); rc != 0 {
		return fail(rc, why)
	}
	name := strings.TrimPrefix(qmgrName, "*") // "*QM1": any member of a group; ours are single
	if !s.srv.backend.HasQueueManager(name) {
		return fail(rcQMgrNotAvailable, "no such queue manager")
	}
	runAs, why := s.srv.authenticate(ch, user, password)
	if why != "" {
		return fail(rcNotAuthorized, why)
	}
	conn, err := s.srv.backend.ConnectMQI(name)
	if err != nil {
		_, rc := reasonOf(err)
		return fail(rc, "refused by the queue manager")
	}
	s.conn = conn
	s.status.start()
	s.qmgr = conn.QueueManager()
	s.user, s.applName = runAs, applName
	s.maxMsgLength = ch.MaxMsgLength
	if clientMax > 0 && int(clientMax) < s.maxMsgLength {
		s.maxMsgLength = int(clientMax)
	}
	copy(s.connID[:], "MQCT")
	copy(s.connID[4:16], s.qmgr.Name+"            ")
	binary.BigEndian.PutUint64(s.connID[16:], s.srv.connSeq.Add(1)^uint64(s.srv.started.UnixNano()))
	s.setIdentity(identity{channel: channel, qmgr: s.qmgr.Name, user: runAs, applName: applName,
		maxMsgLength: s.maxMsgLength})
	s.srv.log.Debug("mqserver: connected", "remote", remote, "channel", channel, "user", runAs, "queueManager", s.qmgr.Name)
	s.out.str(s.qmgr.Name)
	s.out.bytes(s.connID[:])
	s.out.str(s.qmgr.Identifier)
	s.out.i32(int32(s.maxMsgLength))
	return ccOK, rcNone, nil
}

// authenticate decides whether user may connect through ch with password,
// and as whom; why says why not (never quoting the password).
func (srv *Server) authenticate(ch Channel, user, password string) (runAs, why string) {
	if user == "" {
		if ch.PasswordRequired {
			return "", "the channel requires a user and password"
		}
		user = ch.Users[0]
		if srv.users[user].Password != "" {
			return "", fmt.Sprintf("user %s has a password and none was given", user)
		}
		return user, ""
	}
	allowed := false
	for _, u := range ch.Users {
		allowed = allowed || u == user
	}
	if !allowed {
		return "", fmt.Sprintf("user %s may not use the channel", user)
	}
	want := srv.users[user].Password
	if want == "" {
		if ch.PasswordRequired {
			return "", fmt.Sprintf("user %s has no password configured and the channel requires one", user)
		}
		return user, ""
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 {
		return "", fmt.Sprintf("wrong password for user %s", user)
	}
	return user, ""
}

// openQueue opens a queue object (MQOPEN, MQPUT1) after the checks common
// to both.
func (s *session) openQueue(objectType int32, name, qmgrName string, options int32) (*embedded.MQIQueue, int32) {
	switch {
	case objectType == otTopic:
		return nil, rcFunctionNotSupported
	case objectType != otQ:
		return nil, rcObjectTypeError
	case qmgrName != "" && qmgrName != s.qmgr.Name:
		return nil, rcUnknownRemoteQMgr // no channels to other queue managers
	case name == "":
		return nil, rcUnknownObjectName
	case len(s.objects) >= maxHandlesPerConn:
		return nil, rcHandleNotAvailable
	}
	var opts mq.OpenOption
	if options&(ooInputAsQDef|ooInputShared) != 0 {
		opts |= mq.OpenInputShared // DEFSOPT(SHARED)
	}
	if options&ooInputExclusive != 0 {
		opts |= mq.OpenInputExclusive
	}
	if options&ooBrowse != 0 {
		opts |= mq.OpenBrowse
	}
	if options&ooOutput != 0 {
		opts |= mq.OpenOutput
	}
	if options&(ooInquire|ooSet) != 0 {
		opts |= mq.OpenInquire // MQSET changes the server's settings (set.go), not the queue
	}
	q, err := s.conn.Open(name, opts)
	if err != nil {
		_, rc := reasonOf(err)
		return nil, rc
	}
	return q, rcNone
}

// checkOpenOptions applies MQOPEN's option rules.
func checkOpenOptions(options int32) int32 {
	input := options & ooInput
	if options&^ooKnown != 0 || options&ooAccess == 0 || input&(input-1) != 0 {
		return rcOptionsError
	}
	return rcNone
}

func (s *session) addObject(o *object) int32 {
	h := s.nextHobj
	s.nextHobj++
	s.objects[h] = o
	s.srv.handles.Add(1)
	return h
}

// open is MQOPEN.
func (s *session) open(d *decoder) (cc, rc int32, err error) {
	objectType, name, qmgrName, dynamicQName, options := d.i32(), d.str(), d.str(), d.str(), d.i32()
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	fail := func(rc int32) (int32, int32, error) {
		s.out.i32(-1) // MQHO_UNUSABLE_HOBJ
		s.out.str("")
		s.out.str("")
		return ccFailed, rc, nil
	}
	if rc := checkOpenOptions(options); rc != rcNone {
		return fail(rc)
	}
	if objectType == otQMgr {
		switch {
		case options&^ooQMgrAllowed != 0:
			return fail(rcOptionNotValidForType)
		case name != "" && name != s.qmgr.Name, qmgrName != "" && qmgrName != s.qmgr.Name:
			return fail(rcUnknownObjectName)
		case len(s.objects) >= maxHandlesPerConn:
			return fail(rcHandleNotAvailable)
		}
		s.out.i32(s.addObject(&object{options: options}))
		s.out.str("")
		s.out.str(s.qmgr.Name)
		return ccOK, rcNone, nil
	}
	if objectType == otNamelist {
		switch {
		case options&^ooQMgrAllowed != 0:
			return fail(rcOptionNotValidForType)
		case name != defaultNamelist, qmgrName != "" && qmgrName != s.qmgr.Name:
			return fail(rcUnknownObjectName)
		case len(s.objects) >= maxHandlesPerConn:
			return fail(rcHandleNotAvailable)
		}
		s.out.i32(s.addObject(&object{namelist: name, options: options}))
		s.out.str("")
		s.out.str(s.qmgr.Name)
		return ccOK, rcNone, nil
	}
	if objectType == otQ && s.srv.isModelQueue(name) && (qmgrName == "" || qmgrName == s.qmgr.Name) {
		o, rc := s.openModel(name, dynamicQName, options)
		if rc != rcNone {
			return fail(rc)
		}
		s.out.i32(s.addObject(o))
		s.out.str(o.dynamic)
		s.out.str(s.qmgr.Name)
		s.out.str(o.dynamic) // the MQOD's ObjectName from now on
		return ccOK, rcNone, nil
	}
	q, rc := s.openQueue(objectType, name, qmgrName, options)
	if rc != rcNone {
		return fail(rc)
	}
	s.out.i32(s.addObject(&object{queue: q, options: options, name: name, qmgrName: qmgrName}))
	rq, rqm := q.Resolved()
	s.out.str(rq)
	s.out.str(rqm)
	return ccOK, rcNone, nil
}

// close is MQCLOSE.
func (s *session) close(d *decoder) (cc, rc int32, err error) {
	hobj, options := d.i32(), d.i32()
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	o := s.objects[hobj]
	switch {
	case o == nil:
		return ccFailed, rcHobjError, nil
	case o.dynamic != "" && options&^(coQuiesce|coDelete|coDeletePurge) != 0,
		o.dynamic == "" && options&^coQuiesce != 0:
		// DELETE and PURGE apply to the handle that created a dynamic
		// queue (which goes at its close whatever they say), KEEP_SUB and
		// REMOVE_SUB to subscriptions: none here.
		return ccFailed, rcOptionNotValidForType, nil
	}
	if o.queue != nil {
		if err := o.queue.Close(); err != nil {
			cc, rc := reasonOf(err)
			return cc, rc, nil
		}
	}
	s.dropDynamic(o)
	delete(s.objects, hobj)
	s.srv.handles.Add(-1)
	return ccOK, rcNone, nil
}

// putRequest is the part of PUT and PUT1 after the object.
type putRequest struct {
	options int32
	md      md
	props   mq.Properties
	order   []string
	propsRC int32
	data    []byte
}

func decodePut(d *decoder, props *propsCache) putRequest {
	var p putRequest
	p.options = d.i32()
	p.md = decodeMD(d)
	p.props, p.order, p.propsRC = decodeProps(d, props)
	p.data = d.bytes()
	return p
}

// put is MQPUT.
func (s *session) put(d *decoder) (cc, rc int32, err error) {
	hobj := d.i32()
	p := decodePut(d, &s.props)
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	o := s.objects[hobj]
	s.lastPut = putTarget{objectType: otQ}
	if o != nil {
		s.lastPut.name, s.lastPut.qmgrName = o.name, o.qmgrName
	}
	switch {
	case o == nil:
		return s.putFailed(rcHobjError)
	case o.queue == nil:
		return s.putFailed(rcNotOpenForOutput)
	}
	return s.putMessage(o.queue, &p)
}

// put1 is MQPUT1: open, put, close.
func (s *session) put1(d *decoder) (cc, rc int32, err error) {
	objectType, name, qmgrName := d.i32(), d.str(), d.str()
	p := decodePut(d, &s.props)
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	s.lastPut = putTarget{objectType: objectType, name: name, qmgrName: qmgrName}
	switch {
	case objectType == otQMgr:
		return s.putFailed(rcObjectTypeError)
	case objectType == otQ && s.srv.isModelQueue(name):
		return s.putFailed(rcQTypeError) // MQPUT1 takes no model queue
	}
	q, rc := s.openQueue(objectType, name, qmgrName, ooOutput)
	if rc != rcNone {
		return s.putFailed(rc)
	}
	defer q.Close()
	return s.putMessage(q, &p)
}

func (s *session) putFailed(rc int32) (int32, int32, error) {
	var zero md
	s.out.md(&zero)
	s.out.str("")
	s.out.str("")
	return ccFailed, rc, nil
}

// putMessage validates an MQPUT's options and descriptor as the queue
// manager does, fills in the descriptor, and puts.
func (s *session) putMessage(q *embedded.MQIQueue, p *putRequest) (cc, rc int32, err error) {
	in := &p.md
	o := p.options
	context := o & pmoContext
	warn := rcNone
	s.lastPut.resolvedName, s.lastPut.resolvedQMgr = q.Resolved()
	s.lastPut.persistentInSyncpoint = o&pmoSyncpoint != 0 && in.Persistence == perPersistent
	switch {
	case len(p.data) > s.maxMsgLength:
		return s.putFailed(rcDataLengthError) // the channel's limit, before the queue manager sees it
	case string(in.StrucID[:]) != "MD  " || in.Version < mdVersion1 || in.Version > mdVersion2:
		return s.putFailed(rcMDError)
	case o&^pmoKnown != 0, o&pmoSyncpoint != 0 && o&pmoNoSyncpoint != 0, context&(context-1) != 0,
		o&pmoAsyncResponse != 0 && o&pmoSyncResponse != 0:
		return s.putFailed(rcOptionsError)
	case len(p.data) > s.qmgr.MaxMsgLength:
		return s.putFailed(rcMsgTooBigForQMgr)
	case in.MsgType < mtSystemFirst || in.MsgType > mtApplLast:
		return s.putFailed(rcMsgTypeError)
	case in.MsgType == mtRequest && blankField(in.ReplyToQ[:]):
		return s.putFailed(rcMissingReplyToQ)
	case in.Priority < priAsQDef:
		return s.putFailed(rcPriorityError)
	case in.Persistence != perNotPersistent && in.Persistence != perPersistent && in.Persistence != perAsQDef:
		return s.putFailed(rcPersistenceError)
	case in.Expiry != eiUnlimited && in.Expiry <= 0:
		return s.putFailed(rcExpiryError)
	case p.propsRC != rcNone:
		return s.putFailed(p.propsRC)
	case s.inhibited(q, true):
		return s.putFailed(rcPutInhibited)
	}
	st := *in // the stored descriptor
	st.Version = mdVersion2
	if st.Priority == priAsQDef {
		st.Priority = defaultQueuePriority
	}
	deliverAt := st.Priority
	if deliverAt > maxPriority {
		deliverAt, warn = maxPriority, rcPriorityExceedsMax // delivered as 9, the put value kept
	}
	if st.Persistence == perAsQDef {
		st.Persistence = perNotPersistent // DEFPSIST(NO)
	}
	if st.CodedCharSetID == ccsiQMgr || st.CodedCharSetID == ccsiInherit || st.CodedCharSetID == ccsiAppl {
		st.CodedCharSetID = qmgrCCSID
	}
	if !blankField(st.ReplyToQ[:]) && blankField(st.ReplyToQMgr[:]) {
		fixed(st.ReplyToQMgr[:], s.qmgr.Name)
	}
	now := time.Now()
	s.setContext(&st, context, now)
	rq, rqm := q.Resolved()
	stored, data := &st, p.data
	newMsgID, newCorrelID := o&pmoNewMsgID != 0, o&pmoNewCorrelID != 0
	if rqm != s.qmgr.Name {
		// For another queue manager: on the transmission queue behind an
		// MQXQH, which carries the identifiers, so they are made first.
		if newMsgID || st.MsgID.IsZero() {
			st.MsgID = s.conn.NewMsgID()
		}
		if newCorrelID {
			st.CorrelID = s.conn.NewMsgID()
		}
		newMsgID, newCorrelID = false, false
		xmit, xmitData := xmitMessage(&st, rq, rqm, p.data)
		stored, data = &xmit, xmitData
	}
	msg := mq.Message{
		MsgID:       stored.MsgID,
		CorrelID:    stored.CorrelID,
		Format:      trimmed(stored.Format[:]),
		Persistent:  stored.Persistence == perPersistent,
		Priority:    deliverAt,
		ReplyToQ:    trimmed(stored.ReplyToQ[:]),
		ReplyToQMgr: trimmed(stored.ReplyToQMgr[:]),
		Properties:  p.props,
		Payload:     data,
	}
	if stored.Expiry > 0 {
		msg.Expiry = time.Duration(stored.Expiry) * 100 * time.Millisecond
	}
	res, err := q.Put(&msg, embedded.PutOptions{
		Syncpoint:     o&pmoSyncpoint != 0,
		NewMsgID:      newMsgID,
		NewCorrelID:   newCorrelID,
		PutTime:       now,
		Descriptor:    stored.descriptor(),
		PropertyOrder: p.order,
	})
	if err != nil {
		cc, rc := reasonOf(err)
		if cc == ccFailed {
			return s.putFailed(rc)
		}
	}
	st.MsgID, st.CorrelID = res.MsgID, res.CorrelID
	if reportCOA.requested(st.Report) && rqm == s.qmgr.Name {
		// Arrived on its destination (not a transmission queue's).
		s.report(reportCOA, &st, p.data, o&pmoSyncpoint != 0)
	}
	st.Version = in.Version
	s.out.md(&st)
	s.out.str(rq)
	s.out.str(rqm)
	if warn != rcNone {
		return ccWarning, warn, nil
	}
	return ccOK, rcNone, nil
}

// setContext fills the context fields of st as MQPMO's context option
// says: none, the caller's identity or all of it, or the connection's
// (the default, and the PASS options, which have no input handle to pass
// from here).
func (s *session) setContext(st *md, context int32, now time.Time) {
	if context == pmoNoContext {
		blank(st.UserIdentifier[:])
		clear(st.AccountingToken[:])
		blank(st.ApplIdentityData[:])
		st.PutApplType = atNoContext
		blank(st.PutApplName[:])
		blank(st.PutDate[:])
		blank(st.PutTime[:])
		blank(st.ApplOriginData[:])
		return
	}
	if context != pmoSetIdentity && context != pmoSetAll {
		fixed(st.UserIdentifier[:], s.user)
		clear(st.AccountingToken[:])
		copy(st.AccountingToken[:], s.connID[:])
		blank(st.ApplIdentityData[:])
	}
	if context != pmoSetAll {
		st.PutApplType = atUnix
		fixed(st.PutApplName[:], applNameField(s.applName))
		putDateTime(now, &st.PutDate, &st.PutTime)
		blank(st.ApplOriginData[:])
	}
}

// applNameField is PutApplName for a program: its last 28 characters, as
// IBM MQ keeps them.
func applNameField(name string) string {
	if name == "" {
		name = "mqserver client"
	}
	if len(name) > 28 {
		name = name[len(name)-28:]
	}
	return name
}

// get is MQGET.
func (s *session) get(d *decoder) (cc, rc int32, err error) {
	hobj, g, wait, match := d.i32(), d.i32(), d.i32(), d.i32()
	in := decodeMD(d)
	bufferLength, wantProps := d.i32(), d.i32()
	if err := d.end(); err != nil {
		return 0, 0, err
	}
	o := s.objects[hobj]
	syncs, cursor, props := g&gmoSyncpoints, g&gmoCursor, g&gmoProperties
	rc = rcNone
	switch {
	case o == nil:
		rc = rcHobjError
	case o.queue == nil:
		rc = rcNotOpenForInput
	case string(in.StrucID[:]) != "MD  " || in.Version < mdVersion1 || in.Version > mdVersion2:
		rc = rcMDError
	case g&gmoUnsupported != 0:
		rc = rcFunctionNotSupported
	case g&^gmoKnown != 0, syncs&(syncs-1) != 0, cursor&(cursor-1) != 0, props&(props-1) != 0,
		g&gmoBrowse != 0 && g&(gmoSyncpoint|gmoSyncpointIfPersistent) != 0:
		rc = rcOptionsError
	case g&gmoWait != 0 && wait < wiUnlimited:
		rc = rcWaitIntervalError
	case match&^moSupported != 0:
		rc = rcMatchOptionsError
	case bufferLength < 0:
		rc = rcBufferLengthError
	case s.inhibited(o.queue, false):
		rc = rcGetInhibited
	}
	if rc != rcNone {
		s.gotReply(nil, nil, 0, nil, "")
		return ccFailed, rc, nil
	}
	opts := embedded.GetOptions{
		Syncpoint:             g&gmoSyncpoint != 0,
		SyncpointIfPersistent: g&gmoSyncpointIfPersistent != 0,
		BrowseUnderCursor:     g&gmoBrowseMsgUnderCursor != 0,
		MsgUnderCursor:        g&gmoMsgUnderCursor != 0,
		BufferLength:          int(bufferLength),
		AcceptTruncated:       g&gmoAcceptTruncated != 0,
	}
	// No more than the channel's negotiated MAXMSGL flows: a longer message
	// stays where it is and the get fails 2010, as with IBM's client.
	if opts.BufferLength > s.maxMsgLength {
		opts.BufferLength, opts.AcceptTruncated = s.maxMsgLength, false
	}
	switch {
	case g&gmoBrowseFirst != 0:
		opts.Browse = mq.BrowseFirst
	case g&gmoBrowseNext != 0:
		opts.Browse = mq.BrowseNext
	}
	if match&moMatchMsgID != 0 {
		opts.MsgID = in.MsgID
	}
	if match&moMatchCorrelID != 0 {
		opts.CorrelID = in.CorrelID
	}
	if match&moMatchGroupID != 0 {
		opts.GroupID = in.GroupID
	}
	if match&moMatchMsgSeqNumber != 0 {
		opts.MatchMsgSeqNumber, opts.MsgSeqNumber = true, in.MsgSeqNumber
	}
	waits := g&gmoWait != 0 && wait != 0
	if waits {
		opts.WaitUnlimited = wait == wiUnlimited
		opts.Wait = time.Duration(wait) * time.Millisecond
	}
	res, err := s.getWatching(o.queue, opts, waits)
	if err != nil && errors.Is(err, errBroken) {
		return 0, 0, err
	}
	cc, rc = reasonOf(err)
	if rc == rcTruncatedMsgFailed && res.DataLength > s.maxMsgLength {
		cc, rc = ccFailed, rcDataLengthError
	}
	if cc == ccFailed {
		s.gotReply(nil, nil, 0, nil, "")
		return cc, rc, nil
	}
	var gotProps mq.Properties
	if wantProps != 0 && g&gmoNoProperties == 0 {
		gotProps = s.msg.Properties
	}
	rq, _ := o.queue.Resolved()
	m := gotMD(&s.msg, &res.Descriptor)
	if g&gmoBrowse == 0 && reportCOD.requested(m.Report) {
		s.report(reportCOD, &m, s.msg.Payload, opts.Syncpoint || opts.SyncpointIfPersistent && s.msg.Persistent)
	}
	m.Version = in.Version
	s.gotReply(&m, gotProps, res.DataLength, res.PropertyOrder, rq)
	return cc, rc, nil
}

// getWatching gets, and for a get that waits, watches the connection: a
// client that goes away (or Close, or BreakConnections) ends the wait.
func (s *session) getWatching(q *embedded.MQIQueue, opts embedded.GetOptions, waits bool) (embedded.GetResult, error) {
	if !waits {
		return q.Get(context.Background(), &s.msg, opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lost := make(chan bool, 1)
	go func() {
		// The client sends nothing until the reply: any byte, or any end,
		// means the connection is gone or misbehaving.
		var b [1]byte
		_, err := s.r.Read(b[:])
		var ne net.Error
		timedOut := errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded)
		if !timedOut {
			cancel()
		}
		lost <- !timedOut
	}()
	res, err := q.Get(ctx, &s.msg, opts)
	_ = s.nc.SetReadDeadline(time.Now()) // stop the watcher
	gone := <-lost
	_ = s.nc.SetReadDeadline(time.Time{})
	if gone {
		return res, errBroken
	}
	return res, err
}

// gotReply writes GET's reply fields; m nil writes zero values.
func (s *session) gotReply(m *md, props mq.Properties, dataLength int, order []string, resolvedQ string) {
	if m == nil {
		var zero md
		s.out.md(&zero)
		s.out.i32(0)
		s.out.bytes(nil)
		s.out.props(nil, nil)
		s.out.str("")
		return
	}
	s.out.md(m)
	s.out.i32(int32(dataLength))
	s.out.bytes(s.msg.Payload)
	s.out.props(props, order)
	s.out.str(resolvedQ)
}
