package mqserver

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// newServer serves cfg on a free port. When the test ends, after its
// clients have gone, every connection and handle must be released.
func newServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	return listenOn(t, "127.0.0.1:0", cfg)
}

func listenOn(t *testing.T, addr string, cfg Config) *Server {
	t.Helper()
	s, err := Listen(addr, cfg)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() {
		eventually(t, "connections and handles released", func() bool { return s.Stats() == Stats{} })
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// appClient connects to QM1 through DEV.APP.SVRCONN without credentials.
func appClient(t *testing.T, s *Server) *client {
	t.Helper()
	c := dial(t, s.Addr().String())
	r, _ := c.connect(connectArgs{qmgr: "QM1", channel: AppChannel})
	wantRC(t, "connect", r, ccOK, rcNone)
	return c
}

// noPasswords keeps MQ_APP_PASSWORD and MQ_ADMIN_PASSWORD of the
// environment out of a test's default users.
func noPasswords(t *testing.T) {
	t.Setenv("MQ_APP_PASSWORD", "")
	t.Setenv("MQ_ADMIN_PASSWORD", "")
}

// wantClosed checks that the server has closed the client's connection.
func wantClosed(t *testing.T, c *client) {
	t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.r.ReadByte(); err != io.EOF {
		t.Fatalf("connection still open (read: %v)", err)
	}
}

func TestConnectNegotiates(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	for _, tc := range []struct {
		qmgr      string
		clientMax int32
		wantMax   int32
	}{
		{"QM1", 0, DefaultChannelMaxMsgLength},
		{"", 1000, 1000},
		{"*QM1", 8 << 20, DefaultChannelMaxMsgLength},
	} {
		c := dial(t, s.Addr().String())
		r, got := c.connect(connectArgs{qmgr: tc.qmgr, channel: AppChannel, maxMsgLength: tc.clientMax})
		wantRC(t, "connect "+tc.qmgr, r, ccOK, rcNone)
		if got.qmgr != "QM1" || len(got.connID) != 24 || !strings.HasPrefix(got.qmgrID, "QM1_") || got.maxMsgLength != tc.wantMax {
			t.Errorf("connect %q max %d: got %+v, want QM1, a 24-byte ConnectionId, QM1_..., max %d", tc.qmgr, tc.clientMax, got, tc.wantMax)
		}
		wantRC(t, "disc", c.simple(opDisc), ccOK, rcNone)
		wantClosed(t, c)
	}
}

func TestConnectRefusals(t *testing.T) {
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	const appPW, adminPW = "app-secret-1", "admin-secret-2"
	t.Setenv("MQ_APP_PASSWORD", appPW)
	t.Setenv("MQ_ADMIN_PASSWORD", adminPW)
	s := newServer(t, Config{Logger: logger})
	for _, tc := range []struct {
		name string
		args connectArgs
		rc   int32
	}{
		{"unknown channel", connectArgs{qmgr: "QM1", channel: "NO.SUCH.SVRCONN"}, rcUnknownChannelName},
		{"unknown queue manager", connectArgs{qmgr: "QM9", channel: AppChannel, user: "app", password: appPW}, rcQMgrNotAvailable},
		{"app without a password it has", connectArgs{qmgr: "QM1", channel: AppChannel}, rcNotAuthorized},
		{"app wrong password", connectArgs{qmgr: "QM1", channel: AppChannel, user: "app", password: "nope"}, rcNotAuthorized},
		{"admin on the app channel", connectArgs{qmgr: "QM1", channel: AppChannel, user: "admin", password: adminPW}, rcNotAuthorized},
		{"admin without credentials", connectArgs{qmgr: "QM1", channel: AdminChannel}, rcNotAuthorized},
		{"admin wrong password", connectArgs{qmgr: "QM1", channel: AdminChannel, user: "admin", password: appPW}, rcNotAuthorized},
		{"app right password", connectArgs{qmgr: "QM1", channel: AppChannel, user: "app", password: appPW}, rcNone},
		{"admin right password", connectArgs{qmgr: "QM1", channel: AdminChannel, user: "admin", password: adminPW}, rcNone},
	} {
		c := dial(t, s.Addr().String())
		r, _ := c.connect(tc.args)
		if tc.rc == rcNone {
			wantRC(t, tc.name, r, ccOK, rcNone)
			c.simple(opDisc)
		} else {
			wantRC(t, tc.name, r, ccFailed, tc.rc)
		}
		wantClosed(t, c)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if strings.Contains(logs.String(), appPW) || strings.Contains(logs.String(), adminPW) {
		t.Errorf("a password was logged:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "wrong password for user app") {
		t.Errorf("the log does not say why a connection was refused:\n%s", logs.String())
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestAdminWithoutPasswordConfiguredIsRefused(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := dial(t, s.Addr().String())
	r, _ := c.connect(connectArgs{qmgr: "QM1", channel: AdminChannel, user: "admin", password: ""})
	wantRC(t, "admin without a configured password", r, ccFailed, rcNotAuthorized)
	// The app channel asks for no password when app has none.
	c = dial(t, s.Addr().String())
	r, _ = c.connect(connectArgs{qmgr: "QM1", channel: AppChannel, user: "app", password: "anything"})
	wantRC(t, "app without a configured password", r, ccOK, rcNone)
}

func TestRefuseConnectFault(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	s.Faults().RefuseConnect(mq.ReasonQMgrNotAvailable)
	c := dial(t, s.Addr().String())
	r, _ := c.connect(connectArgs{qmgr: "QM1", channel: AppChannel})
	wantRC(t, "refused connect", r, ccFailed, rcQMgrNotAvailable)
	s.Faults().RefuseConnect(0)
	appClient(t, s)
}

func TestCallsBeforeConnectAndUnknownOps(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := dial(t, s.Addr().String())
	if err := writeFrame(c.w, opCmit, nil); err != nil {
		t.Fatal(err)
	}
	wantClosed(t, c)

	c = appClient(t, s)
	wantRC(t, "op 99", c.simple(99), ccFailed, rcFunctionNotSupported)
	wantRC(t, "still connected", c.simple(opCmit), ccOK, rcNone)
}

func TestFrameSizeBound(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[:], MaxFrameBody+5)
	binary.LittleEndian.PutUint16(hdr[4:], opPut)
	if _, err := c.nc.Write(hdr[:]); err != nil {
		t.Fatal(err)
	}
	wantClosed(t, c)

	// A body that ends inside a field is a protocol error too.
	c = appClient(t, s)
	if err := writeFrame(c.w, opOpen, []byte{1, 0}); err != nil {
		t.Fatal(err)
	}
	wantClosed(t, c)
}

func TestOpenAndClose(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h1 := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputAsQDef|ooBrowse|ooInquire|ooFailIfQuiescing)
	h2 := c.mustOpen("DEV.QUEUE.1", ooOutput)
	if h1 == h2 {
		t.Fatalf("two open handles are both %d", h1)
	}
	if got := s.Stats(); got != (Stats{Connections: 1, Handles: 2}) {
		t.Errorf("Stats = %+v, want 1 connection and 2 handles", got)
	}
	wantRC(t, "close", c.close(h1), ccOK, rcNone)
	wantRC(t, "close again", c.close(h1), ccFailed, rcHobjError)
	if h3 := c.mustOpen("DEV.QUEUE.1", ooOutput); h3 == h1 || h3 == h2 {
		t.Errorf("handle %d reused", h3)
	}
	c.mustOpen("DEV.QUEUE.1", ooInputShared)
	for _, tc := range []struct {
		name       string
		objectType int32
		queue      string
		options    int32
		rc         int32
	}{
		{"unknown queue", otQ, "NO.SUCH.QUEUE", ooOutput, rcUnknownObjectName},
		{"no access option", otQ, "DEV.QUEUE.1", ooFailIfQuiescing, rcOptionsError},
		{"two input options", otQ, "DEV.QUEUE.1", ooInputShared | ooInputExclusive, rcOptionsError},
		{"unknown option", otQ, "DEV.QUEUE.1", ooOutput | 1<<30, rcOptionsError},
		{"topic", otTopic, "dev/", ooOutput, rcFunctionNotSupported},
		{"namelist for output", otNamelist, "SYSTEM.DEFAULT.NAMELIST", ooOutput, rcOptionNotValidForType},
		{"unknown namelist", otNamelist, "NO.SUCH.NAMELIST", ooInquire, rcUnknownObjectName},
		{"process definition", 3, "SYSTEM.DEFAULT.PROCESS", ooInquire, rcObjectTypeError},
		{"queue manager for output", otQMgr, "", ooOutput, rcOptionNotValidForType},
		{"other queue manager object", otQMgr, "QM9", ooInquire, rcUnknownObjectName},
		{"remote definition for input", otQ, "DEV.REMOTE.1", ooInputShared, rcOptionNotValidForType},
		{"exclusive while shared", otQ, "DEV.QUEUE.1", ooInputExclusive, 2042},
	} {
		h, r, _, _ := c.open(tc.objectType, tc.queue, tc.options)
		wantRC(t, tc.name, r, ccFailed, tc.rc)
		if h != -1 {
			t.Errorf("%s: hobj %d, want MQHO_UNUSABLE_HOBJ", tc.name, h)
		}
	}
	var e encoder
	e.i32(h2)
	e.i32(1) // MQCO_DELETE
	r := c.mustCall(opClose, &e)
	wantRC(t, "close with DELETE", r, ccFailed, rcOptionNotValidForType)
}

func TestHandleLimit(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	for range maxHandlesPerConn {
		c.mustOpen("DEV.QUEUE.2", ooOutput)
	}
	_, r, _, _ := c.open(otQ, "DEV.QUEUE.2", ooOutput)
	wantRC(t, "handle 257", r, ccFailed, rcHandleNotAvailable)
	// DISC releases them all.
	c.simple(opDisc)
}

// fullMD is a descriptor with every field set, as SET_ALL_CONTEXT passes it.
func fullMD() md {
	m := defaultMD()
	m.Report = 0x100 // MQRO_COA
	m.MsgType = 1    // request
	m.Expiry = 36000
	m.Feedback = 65537
	m.Encoding = 273
	m.CodedCharSetID = 819
	fixed(m.Format[:], "MQSTR")
	m.Priority = 7
	m.Persistence = perPersistent
	m.MsgID = testID("caller msg id")
	m.CorrelID = testID("caller correl id")
	fixed(m.ReplyToQ[:], "DEV.QUEUE.3")
	fixed(m.ReplyToQMgr[:], "QM7")
	fixed(m.UserIdentifier[:], "someone")
	copy(m.AccountingToken[:], "accounting token bytes")
	fixed(m.ApplIdentityData[:], "identity data")
	m.PutApplType = 28 // MQAT_JAVA
	fixed(m.PutApplName[:], "an application")
	fixed(m.PutDate[:], "20240229")
	fixed(m.PutTime[:], "23595999")
	fixed(m.ApplOriginData[:], "orig")
	m.GroupID = testID("group")
	m.MsgSeqNumber = 3
	m.Offset = 0
	m.MsgFlags = 8 // MQMF_MSG_IN_GROUP
	m.OriginalLength = 5
	return m
}

func TestFullDescriptorRoundTrip(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared)
	in := fullMD()
	r, done := c.put(h, pmoSetAll, in, nil, []byte("hello"))
	wantRC(t, "put", r, ccOK, rcNone)
	if done.md != in {
		t.Errorf("put returned MQMD\n%+v\nwant what was put\n%+v", done.md, in)
	}
	if done.resolvedQ != "DEV.QUEUE.1" || done.rqmgr != "QM1" {
		t.Errorf("resolved %s@%s", done.resolvedQ, done.rqmgr)
	}
	// Another connection gets it, every field as put; Expiry is the time
	// left.
	c2 := appClient(t, s)
	r, g := c2.get(c2.mustOpen("DEV.QUEUE.1", ooInputShared), getArgs{bufferLength: 100})
	wantRC(t, "get", r, ccOK, rcNone)
	if g.md.Expiry > in.Expiry || g.md.Expiry < in.Expiry-50 {
		t.Errorf("Expiry %d after a put with %d", g.md.Expiry, in.Expiry)
	}
	g.md.Expiry = in.Expiry
	if g.md != in {
		t.Errorf("got MQMD\n%+v\nwant\n%+v", g.md, in)
	}
	if string(g.data) != "hello" || g.dataLength != 5 || g.resolvedQ != "DEV.QUEUE.1" {
		t.Errorf("got %q (length %d) from %q", g.data, g.dataLength, g.resolvedQ)
	}
}

func TestDefaultContext(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared)
	before := time.Now().UTC()
	in := fullMD()
	in.MsgType = mtDatagram
	r, done := c.put(h, 0, in, nil, []byte("x"))
	wantRC(t, "put", r, ccOK, rcNone)
	m := done.md
	if trimmed(m.UserIdentifier[:]) != AppUser || trimmed(m.PutApplName[:]) != "mqserver.test" || m.PutApplType != atUnix ||
		trimmed(m.ApplIdentityData[:]) != "" || trimmed(m.ApplOriginData[:]) != "" {
		t.Errorf("context: user %q appl %q type %d identity %q origin %q", m.UserIdentifier, m.PutApplName, m.PutApplType, m.ApplIdentityData, m.ApplOriginData)
	}
	if date := string(m.PutDate[:]); date != before.Format("20060102") && date != time.Now().UTC().Format("20060102") {
		t.Errorf("PutDate %q, want today (GMT)", date)
	}
	if m.MsgID != in.MsgID {
		t.Errorf("the caller's MsgId was replaced without MQPMO_NEW_MSG_ID")
	}
	// NEW_MSG_ID and NEW_CORREL_ID make IBM-style identifiers; NO_CONTEXT
	// blanks the context.
	r, done = c.put(h, pmoNewMsgID|pmoNewCorrelID|pmoNoContext, in, nil, []byte("y"))
	wantRC(t, "put", r, ccOK, rcNone)
	m = done.md
	if !bytes.HasPrefix(m.MsgID[:], []byte("AMQ QM1")) || !bytes.HasPrefix(m.CorrelID[:], []byte("AMQ QM1")) || m.MsgID == m.CorrelID {
		t.Errorf("new ids %q %q", m.MsgID, m.CorrelID)
	}
	if trimmed(m.UserIdentifier[:]) != "" || m.PutApplType != atNoContext || trimmed(m.PutDate[:]) != "" || m.AccountingToken != [32]byte{} {
		t.Errorf("NO_CONTEXT left context: %+v", m)
	}
	// A message put through the mq port reads with MQMD_DEFAULT's values.
	pc, err := s.Backend().Connect(t.Context(), mq.Target{QueueManager: "QM1"})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	pq, err := pc.OpenQueue(t.Context(), "DEV.QUEUE.2", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pq.Put(t.Context(), &mq.Message{Format: mq.FormatString, Priority: 4, Payload: []byte("port")}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	g := c.mustGet(c.mustOpen("DEV.QUEUE.2", ooInputShared), 0)
	if g.md.MsgType != mtDatagram || g.md.Encoding != encNative || g.md.CodedCharSetID != qmgrCCSID || g.md.Priority != 4 ||
		trimmed(g.md.Format[:]) != "MQSTR" || g.md.MsgSeqNumber != 1 || g.md.OriginalLength != olUndefined || g.md.Expiry != eiUnlimited {
		t.Errorf("port message read as %+v", g.md)
	}
	// Its CCSID and Encoding are the ones it was put with.
	if _, err := pq.Put(t.Context(), &mq.Message{CCSID: 37, Encoding: mq.EncodingNativeBig, Payload: []byte("ebcdic")}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	g = c.mustGet(c.mustOpen("DEV.QUEUE.2", ooInputShared), 0)
	if g.md.CodedCharSetID != 37 || g.md.Encoding != mq.EncodingNativeBig {
		t.Errorf("port message put with CCSID 37, Encoding 273 read with %d, %d", g.md.CodedCharSetID, g.md.Encoding)
	}
}

func TestPutValidation(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInquire)
	for _, tc := range []struct {
		name string
		pmo  int32
		edit func(*md)
		rc   int32
	}{
		{"bad StrucId", 0, func(m *md) { copy(m.StrucID[:], "XX  ") }, rcMDError},
		{"MQMD version 3", 0, func(m *md) { m.Version = 3 }, rcMDError},
		{"syncpoint and no syncpoint", pmoSyncpoint | pmoNoSyncpoint, nil, rcOptionsError},
		{"two context options", pmoNoContext | pmoSetAll, nil, rcOptionsError},
		{"unknown option", 1 << 30, nil, rcOptionsError},
		{"persistence 3", 0, func(m *md) { m.Persistence = 3 }, rcPersistenceError},
		{"priority -2", 0, func(m *md) { m.Priority = -2 }, rcPriorityError},
		{"expiry 0", 0, func(m *md) { m.Expiry = 0 }, rcExpiryError},
		{"expiry -5", 0, func(m *md) { m.Expiry = -5 }, rcExpiryError},
		{"request without reply-to queue", 0, func(m *md) { m.MsgType = mtRequest }, rcMissingReplyToQ},
		{"message type 0", 0, func(m *md) { m.MsgType = 0 }, rcMsgTypeError},
	} {
		m := defaultMD()
		if tc.edit != nil {
			tc.edit(&m)
		}
		r, _ := c.put(h, tc.pmo, m, nil, []byte("x"))
		wantRC(t, tc.name, r, ccFailed, tc.rc)
	}
	for _, tc := range []struct {
		name string
		p    prop
		rc   int32
	}{
		{"reserved name", prop{"JMSFoo", typeString, []byte("x")}, rcPropertyNameError},
		{"empty segment", prop{"a..b", typeString, []byte("x")}, rcPropertyNameError},
		{"unknown type", prop{"colour", 3, []byte("x")}, rcPropertyTypeError},
		{"int32 of 3 bytes", prop{"count", typeInt32, []byte{1, 2, 3}}, rcPropertyTypeError},
	} {
		r, _ := c.put(h, 0, defaultMD(), []prop{tc.p}, []byte("x"))
		wantRC(t, tc.name, r, ccFailed, tc.rc)
	}
	h1, r, _, _ := c.open(otQMgr, "", ooInquire)
	wantRC(t, "open qmgr", r, ccOK, rcNone)
	r, _ = c.put(h1, 0, defaultMD(), nil, nil)
	wantRC(t, "put to the queue manager object", r, ccFailed, rcNotOpenForOutput)
	r, _ = c.put(999, 0, defaultMD(), nil, nil)
	wantRC(t, "put to no handle", r, ccFailed, rcHobjError)
	r, _ = c.put1(otQMgr, "", 0, defaultMD(), nil, nil)
	wantRC(t, "put1 to the queue manager", r, ccFailed, rcObjectTypeError)
	if d := c.depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("failed puts left depth %d", d)
	}
}

func TestPriorities(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared)
	for _, p := range []int32{priAsQDef, 12, 8} {
		m := defaultMD()
		m.Priority = p
		r, _ := c.put(h, 0, m, nil, []byte{byte(p)})
		if p > maxPriority {
			wantRC(t, "priority 12", r, ccWarning, rcPriorityExceedsMax)
		} else {
			wantRC(t, "put", r, ccOK, rcNone)
		}
	}
	// 12 is delivered as 9, ahead of 8, and reads back as put; the queue
	// default is 0.
	for _, want := range []int32{12, 8, 0} {
		if g := c.mustGet(h, 0); g.md.Priority != want {
			t.Errorf("got priority %d, want %d", g.md.Priority, want)
		}
	}
}

func TestTypedPropertiesRoundTrip(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	props := []prop{
		{"zeta", typeString, []byte("last name first")},
		{"flag", typeBoolean, i32Bytes(1)},
		{"raw", typeByteString, []byte{0, 1, 2, 255}},
		{"i8", typeInt8, []byte{0xfe}},
		{"i16", typeInt16, []byte{0x34, 0x12}},
		{"i32", typeInt32, i32Bytes(-7)},
		{"i64", typeInt64, i64Bytes(1 << 40)},
		{"f32", typeFloat32, i32Bytes(0x3fc00000)},
		{"f64", typeFloat64, f64Bytes(2.5)},
		{"nothing", typeNull, nil},
		{"a.b.c", typeString, []byte("dotted")},
	}
	r, _ := c.put1(otQ, "DEV.QUEUE.1", 0, defaultMD(), props, []byte("body"))
	wantRC(t, "put1", r, ccOK, rcNone)
	h := c.mustOpen("DEV.QUEUE.1", ooInputShared|ooBrowse)
	r, g := c.get(h, getArgs{gmo: gmoBrowseFirst, bufferLength: 10, wantProps: true})
	wantRC(t, "browse", r, ccOK, rcNone)
	if !propsEqual(g.props, props) {
		t.Errorf("properties came back as\n%v\nwant\n%v", g.props, props)
	}
	// Without a message handle, no properties.
	r, g = c.get(h, getArgs{bufferLength: 10})
	wantRC(t, "get", r, ccOK, rcNone)
	if len(g.props) != 0 {
		t.Errorf("got properties without asking: %v", g.props)
	}
	// Properties set through the mq port come back typed, sorted by name.
	pc, err := s.Backend().Connect(t.Context(), mq.Target{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	pq, _ := pc.OpenQueue(t.Context(), "DEV.QUEUE.1", mq.OpenOutput)
	if _, err := pq.Put(t.Context(), &mq.Message{Properties: mq.Properties{"b": int16(-2), "a": float64(1.5)}}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	r, g = c.get(h, getArgs{bufferLength: 10, wantProps: true})
	wantRC(t, "get port message", r, ccOK, rcNone)
	want := []prop{{"a", typeFloat64, f64Bytes(1.5)}, {"b", typeInt16, []byte{0xfe, 0xff}}}
	if !propsEqual(g.props, want) {
		t.Errorf("port properties came back as %v, want %v", g.props, want)
	}
}

// TestRepeatedPropertiesKeepEachPutsOwn: a session's puts that repeat
// the last put's properties reuse what it decoded; every message still
// gets the properties it was put with, a set that changes back and forth
// is never confused, and a refused set is refused each time it repeats.
func TestRepeatedPropertiesKeepEachPutsOwn(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared)
	a := []prop{{"traceparent", typeString, []byte("00-aaaa-01")}, {"raw", typeByteString, []byte{1, 2}}}
	b := []prop{{"traceparent", typeString, []byte("00-bbbb-01")}, {"raw", typeByteString, []byte{1, 2}}}
	sets := [][]prop{a, a, b, a, nil, a, a}
	for i, props := range sets {
		r, _ := c.put(h, 0, defaultMD(), props, []byte{byte(i)})
		wantRC(t, fmt.Sprintf("put %d", i), r, ccOK, rcNone)
	}
	bad := []prop{{"JMSFoo", typeString, []byte("x")}}
	for i := range 2 {
		r, _ := c.put(h, 0, defaultMD(), bad, []byte("x"))
		wantRC(t, fmt.Sprintf("refused set, put %d", i), r, ccFailed, rcPropertyNameError)
	}
	for i, want := range sets {
		r, g := c.get(h, getArgs{bufferLength: 10, wantProps: true})
		wantRC(t, fmt.Sprintf("get %d", i), r, ccOK, rcNone)
		if !propsEqual(g.props, want) {
			t.Errorf("message %d came back with %v, want %v", i, g.props, want)
		}
	}
}

func propsEqual(a, b []prop) bool {
	return slices.EqualFunc(a, b, func(x, y prop) bool { return x.name == y.name && x.typ == y.typ && bytes.Equal(x.value, y.value) })
}

// limitsConfig has a queue manager whose limits are below IBM's defaults.
func limitsConfig() Config {
	return Config{
		QueueManagers: []embedded.QueueManagerConfig{{
			Name: "QM1", MaxMsgLength: 1000, MaxUncommittedMsgs: 3,
			Queues: []embedded.QueueConfig{
				{Name: "SMALL", MaxMsgLength: 100, MaxDepth: 2},
				{Name: "BIG", MaxMsgLength: 5000},
			},
		}},
		Channels: []Channel{{Name: AppChannel, Users: []string{AppUser}, MaxMsgLength: 2000}},
		Users:    []User{{Name: AppUser}},
	}
}

func TestLengthLimits(t *testing.T) {
	s := newServer(t, limitsConfig())
	c := appClient(t, s)
	big, small := c.mustOpen("BIG", ooOutput), c.mustOpen("SMALL", ooOutput)
	for _, tc := range []struct {
		name string
		h    int32
		size int
		rc   int32
	}{
		{"over the channel, the queue manager and the queue", big, 2001, rcDataLengthError},
		{"over the queue manager and the queue", small, 1001, rcMsgTooBigForQMgr},
		{"over the queue manager only", big, 1001, rcMsgTooBigForQMgr},
		{"over the queue only", small, 101, 2030},
	} {
		r, _ := c.put(tc.h, 0, defaultMD(), nil, make([]byte, tc.size))
		wantRC(t, tc.name, r, ccFailed, tc.rc)
	}
	r, _ := c.put(small, 0, defaultMD(), nil, make([]byte, 100))
	wantRC(t, "exactly MAXMSGL", r, ccOK, rcNone)

	// A client asking for a smaller channel limit gets it.
	c2 := dial(t, s.Addr().String())
	r, got := c2.connect(connectArgs{qmgr: "QM1", channel: AppChannel, maxMsgLength: 50})
	wantRC(t, "connect", r, ccOK, rcNone)
	if got.maxMsgLength != 50 {
		t.Fatalf("negotiated %d, want 50", got.maxMsgLength)
	}
	r, _ = c2.put1(otQ, "SMALL", 0, defaultMD(), nil, make([]byte, 51))
	wantRC(t, "over the negotiated limit", r, ccFailed, rcDataLengthError)
}

func TestDepthAndUncommittedLimits(t *testing.T) {
	s := newServer(t, limitsConfig())
	c := appClient(t, s)
	small, big := c.mustOpen("SMALL", ooOutput|ooInputShared), c.mustOpen("BIG", ooOutput|ooInputShared)
	c.mustPut(small, 0, "1")
	c.mustPut(small, pmoSyncpoint, "2") // uncommitted puts count in CURDEPTH
	r, _ := c.put(small, 0, defaultMD(), nil, []byte("3"))
	wantRC(t, "MAXDEPTH 2", r, ccFailed, 2053)
	c.mustPut(big, pmoSyncpoint, "a")
	c.mustGet(small, gmoSyncpoint) // gets count toward MAXUMSGS too
	r, _ = c.put(big, pmoSyncpoint, defaultMD(), nil, []byte("b"))
	wantRC(t, "MAXUMSGS 3", r, ccFailed, 2024)
	wantRC(t, "backout", c.simple(opBack), ccOK, rcNone)
	c.mustPut(big, pmoSyncpoint, "b")
}

func TestGetTruncationAndCursor(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared|ooBrowse)
	c.mustPut(h, 0, "first message")
	c.mustPut(h, 0, "second")

	// Too small a buffer: warning 2080, the message stays, the cursor too.
	r, g := c.get(h, getArgs{gmo: gmoBrowseFirst, bufferLength: 5})
	wantRC(t, "browse into 5 bytes", r, ccWarning, 2080)
	if g.dataLength != 13 || string(g.data) != "first" {
		t.Errorf("2080 returned length %d data %q", g.dataLength, g.data)
	}
	r, g = c.get(h, getArgs{gmo: gmoBrowseNext, bufferLength: 100})
	wantRC(t, "browse next", r, ccOK, rcNone)
	if string(g.data) != "first message" {
		t.Errorf("after a failed BROWSE_FIRST, BROWSE_NEXT read %q, want the first message", g.data)
	}
	r, g = c.get(h, getArgs{gmo: gmoBrowseMsgUnderCursor, bufferLength: 100})
	wantRC(t, "browse under cursor", r, ccOK, rcNone)
	if string(g.data) != "first message" {
		t.Errorf("BROWSE_MSG_UNDER_CURSOR read %q", g.data)
	}
	r, g = c.get(h, getArgs{gmo: gmoBrowseNext, bufferLength: 100})
	wantRC(t, "browse next", r, ccOK, rcNone)
	if string(g.data) != "second" {
		t.Errorf("BROWSE_NEXT read %q, want second", g.data)
	}
	r, _ = c.get(h, getArgs{gmo: gmoBrowseNext, bufferLength: 100})
	wantRC(t, "browse past the end", r, ccFailed, 2033)
	// MSG_UNDER_CURSOR takes the browsed message.
	r, g = c.get(h, getArgs{gmo: gmoMsgUnderCursor, bufferLength: 100})
	wantRC(t, "get under cursor", r, ccOK, rcNone)
	if string(g.data) != "second" {
		t.Errorf("MSG_UNDER_CURSOR got %q", g.data)
	}
	r, _ = c.get(h, getArgs{gmo: gmoMsgUnderCursor, bufferLength: 100})
	wantRC(t, "nothing under the cursor", r, ccFailed, 2034)

	// A destructive get that does not fit leaves the message; with
	// ACCEPT_TRUNCATED_MSG it takes it with warning 2079.
	r, _ = c.get(h, getArgs{bufferLength: 0})
	wantRC(t, "get into 0 bytes", r, ccWarning, 2080)
	if d := c.depth("DEV.QUEUE.1"); d != 1 {
		t.Fatalf("2080 removed the message: depth %d", d)
	}
	r, g = c.get(h, getArgs{gmo: gmoAcceptTruncated, bufferLength: 3})
	wantRC(t, "accept truncated", r, ccWarning, 2079)
	if string(g.data) != "fir" || g.dataLength != 13 {
		t.Errorf("2079 returned %q length %d", g.data, g.dataLength)
	}
	if d := c.depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("2079 left depth %d", d)
	}
}

func TestGetOptionsAndMatching(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared|ooBrowse)
	for _, tc := range []struct {
		name string
		a    getArgs
		rc   int32
	}{
		{"browse under syncpoint", getArgs{gmo: gmoBrowseFirst | gmoSyncpoint}, rcOptionsError},
		{"two cursor options", getArgs{gmo: gmoBrowseFirst | gmoBrowseNext}, rcOptionsError},
		{"two syncpoint options", getArgs{gmo: gmoSyncpoint | gmoNoSyncpoint}, rcOptionsError},
		{"two property options", getArgs{gmo: gmoNoProperties | gmoPropertiesInHandle}, rcOptionsError},
		{"lock", getArgs{gmo: gmoLock}, rcFunctionNotSupported},
		{"wait -2", getArgs{gmo: gmoWait, wait: -2}, rcWaitIntervalError},
		{"match token", getArgs{match: 32}, rcMatchOptionsError},
		{"negative buffer", getArgs{bufferLength: -1}, rcBufferLengthError},
		{"bad MQMD", getArgs{md: md{Version: 2}}, rcMDError},
	} {
		r, _ := c.get(h, tc.a)
		wantRC(t, tc.name, r, ccFailed, tc.rc)
	}
	qm, r, _, _ := c.open(otQMgr, "", ooInquire)
	wantRC(t, "open qmgr", r, ccOK, rcNone)
	r, _ = c.get(qm, getArgs{})
	wantRC(t, "get from the queue manager", r, ccFailed, rcNotOpenForInput)

	for i, corr := range []string{"a", "b", "b"} {
		m := defaultMD()
		m.CorrelID = testID(corr)
		m.GroupID = testID("g")
		m.MsgSeqNumber = int32(i + 1)
		r, _ := c.put(h, 0, m, nil, []byte{byte('0' + i)})
		wantRC(t, "put", r, ccOK, rcNone)
	}
	sel := defaultMD()
	sel.CorrelID = testID("b")
	sel.MsgID = testID("ignored: not matched on")
	r, g := c.get(h, getArgs{match: moMatchCorrelID, md: sel, bufferLength: 10})
	wantRC(t, "get by CorrelId", r, ccOK, rcNone)
	if string(g.data) != "1" {
		t.Errorf("by CorrelId got %q, want 1", g.data)
	}
	sel = defaultMD()
	sel.GroupID, sel.MsgSeqNumber = testID("g"), 3
	r, g = c.get(h, getArgs{match: moMatchGroupID | moMatchMsgSeqNumber, md: sel, bufferLength: 10})
	wantRC(t, "get by group and sequence number", r, ccOK, rcNone)
	if string(g.data) != "2" {
		t.Errorf("by group and sequence got %q, want 2", g.data)
	}
	sel.MsgID = testID("no such message")
	r, _ = c.get(h, getArgs{match: moMatchMsgID, md: sel, bufferLength: 10})
	wantRC(t, "get by unknown MsgId", r, ccFailed, 2033)
}

func TestGetWait(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	getter, putter := appClient(t, s), appClient(t, s)
	h := getter.mustOpen("DEV.QUEUE.1", ooInputShared)
	start := time.Now()
	r, _ := getter.get(h, getArgs{gmo: gmoWait, wait: 100, bufferLength: 10})
	wantRC(t, "wait 100ms", r, ccFailed, 2033)
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Errorf("gave up after %v", waited)
	}
	done := make(chan got, 1)
	go func() {
		r, g, err := getter.getCall(h, getArgs{gmo: gmoWait, wait: wiUnlimited, bufferLength: 10})
		if err != nil || r.rc != rcNone {
			t.Errorf("unlimited wait: %v reason %d", err, r.rc)
		}
		done <- g
	}()
	// Give the get time to start waiting; if it has not, it finds the
	// message at once, and the test still holds.
	time.Sleep(50 * time.Millisecond)
	putter.put1(otQ, "DEV.QUEUE.1", 0, defaultMD(), nil, []byte("wake"))
	select {
	case g := <-done:
		if string(g.data) != "wake" {
			t.Errorf("woken get returned %q", g.data)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a put did not wake the waiting get")
	}
}

func TestUnitsOfWork(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	worker, observer := appClient(t, s), appClient(t, s)
	h := worker.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared)
	oh := observer.mustOpen("DEV.QUEUE.1", ooInputShared|ooBrowse)
	invisible := func(when string) {
		t.Helper()
		r, _ := observer.get(oh, getArgs{gmo: gmoBrowseFirst, bufferLength: 10})
		wantRC(t, when, r, ccFailed, 2033)
	}
	worker.mustPut(h, pmoSyncpoint, "a")
	invisible("uncommitted put")
	if d := observer.depth("DEV.QUEUE.1"); d != 1 {
		t.Errorf("CURDEPTH %d with one uncommitted put, want 1", d)
	}
	wantRC(t, "backout", worker.simple(opBack), ccOK, rcNone)
	if d := observer.depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("CURDEPTH %d after backout", d)
	}
	worker.mustPut(h, pmoSyncpoint, "b")
	wantRC(t, "commit", worker.simple(opCmit), ccOK, rcNone)
	// A get under syncpoint, backed out, comes back with BackoutCount 1.
	worker.mustGet(h, gmoSyncpoint)
	invisible("uncommitted get")
	worker.simple(opBack)
	g := observer.mustGet(oh, gmoSyncpoint)
	if g.md.BackoutCount != 1 || string(g.data) != "b" {
		t.Errorf("after backout got %q with BackoutCount %d", g.data, g.md.BackoutCount)
	}
	observer.simple(opCmit)

	// SYNCPOINT_IF_PERSISTENT takes only persistent messages in the unit
	// of work.
	m := defaultMD()
	m.Persistence = perPersistent
	worker.put(h, 0, m, nil, []byte("persistent"))
	worker.mustPut(h, 0, "not persistent")
	worker.mustGet(h, gmoSyncpointIfPersistent)
	worker.mustGet(h, gmoSyncpointIfPersistent)
	worker.simple(opBack)
	g = observer.mustGet(oh, 0)
	if string(g.data) != "persistent" {
		t.Errorf("backout restored %q, want only the persistent message", g.data)
	}
	invisible("after SYNCPOINT_IF_PERSISTENT backout")
}

func TestDisconnectCommits(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	c.mustPut(c.mustOpen("DEV.QUEUE.1", ooOutput), pmoSyncpoint, "committed by MQDISC")
	wantRC(t, "disc", c.simple(opDisc), ccOK, rcNone)
	wantClosed(t, c)
	o := appClient(t, s)
	if g := o.mustGet(o.mustOpen("DEV.QUEUE.1", ooInputShared), 0); string(g.data) != "committed by MQDISC" {
		t.Errorf("got %q", g.data)
	}
}

func TestDroppedConnectionBacksOut(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	setup := appClient(t, s)
	setup.put1(otQ, "DEV.QUEUE.1", 0, defaultMD(), nil, []byte("taken then dropped"))

	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooInputShared|ooOutput)
	c.mustGet(h, gmoSyncpoint)
	c.mustPut(h, pmoSyncpoint, "never committed")
	c.nc.Close() // the client vanishes
	eventually(t, "the dropped connection released", func() bool { return s.Stats() == Stats{Connections: 1} })
	o := appClient(t, s)
	oh := o.mustOpen("DEV.QUEUE.1", ooInputShared)
	g := o.mustGet(oh, 0)
	if string(g.data) != "taken then dropped" || g.md.BackoutCount != 1 {
		t.Errorf("got %q BackoutCount %d, want the backed-out message with 1", g.data, g.md.BackoutCount)
	}
	r, _ := o.get(oh, getArgs{bufferLength: 100})
	wantRC(t, "the uncommitted put is gone", r, ccFailed, 2033)
}

func TestBreakConnections(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooInputShared|ooOutput)
	c.mustPut(h, pmoSyncpoint, "backed out by the break")
	waiting := make(chan error, 1)
	go func() {
		_, _, err := c.getCall(h, getArgs{gmo: gmoWait, wait: wiUnlimited, bufferLength: 10})
		waiting <- err
	}()
	time.Sleep(50 * time.Millisecond)
	s.BreakConnections()
	if got := s.Stats(); got != (Stats{}) {
		t.Errorf("after BreakConnections, Stats = %+v", got)
	}
	select {
	case err := <-waiting:
		if err == nil {
			t.Error("the waiting get was answered instead of losing its connection")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting get was not ended by BreakConnections")
	}
	o := appClient(t, s)
	if d := o.depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("depth %d after the break, want the uncommitted put backed out", d)
	}
}

func TestQueueManagerBreakAnswers2009(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooInputShared)
	s.Faults().BreakConnections()
	r, _ := c.get(h, getArgs{bufferLength: 10})
	wantRC(t, "get on a broken connection", r, ccFailed, rcConnectionBroken)
	wantClosed(t, c)
}

func TestFaultsReachTheServer(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooInputShared|ooOutput)
	s.Faults().FailNth(mq.VerbPut, 2, mq.ReasonQFull)
	c.mustPut(h, 0, "1")
	r, _ := c.put(h, 0, defaultMD(), nil, []byte("2"))
	wantRC(t, "second put", r, ccFailed, 2053)
	s.Faults().FailNth(mq.VerbCommit, 1, 2003)
	c.mustPut(h, pmoSyncpoint, "3")
	wantRC(t, "commit", c.simple(opCmit), ccFailed, 2003)
	if d := c.depth("DEV.QUEUE.1"); d != 1 {
		t.Errorf("depth %d, want only the first put", d)
	}
}

func TestServerRestart(t *testing.T) {
	noPasswords(t)
	backend, err := embedded.New(embedded.Config{QueueManagers: DefaultQueueManagers()})
	if err != nil {
		t.Fatal(err)
	}
	s1, err := Listen("127.0.0.1:0", Config{Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	addr := s1.Addr().String()
	c := appClient(t, s1)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared)
	c.mustPut(h, 0, "survives")
	c.mustPut(h, pmoSyncpoint, "in flight")
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.getCall(h, getArgs{bufferLength: 10}); err == nil {
		t.Fatal("a call on a connection of the closed server succeeded")
	}
	s2 := listenOn(t, addr, Config{Backend: backend}) // the same port, as a restarted queue manager
	c = appClient(t, s2)
	if g := c.mustGet(c.mustOpen("DEV.QUEUE.1", ooInputShared), 0); string(g.data) != "survives" {
		t.Errorf("after the restart got %q", g.data)
	}
	if d := c.depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("depth %d: the uncommitted put survived the restart", d)
	}
}

func TestInquireQueueManager(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h, r, _, rqm := c.open(otQMgr, "", ooInquire)
	wantRC(t, "open the queue manager", r, ccOK, rcNone)
	if rqm != "QM1" {
		t.Errorf("resolved queue manager %q", rqm)
	}
	r, ints, chars := c.inq(h, []int32{iaCommandLevel, caQMgrName, iaPlatform, caDeadLetterQName, iaMaxUncommittedMsgs, iaCodedCharSetID}, 4, 96)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if !slices.Equal(ints, []int32{940, platformUnix, 10000, qmgrCCSID}) {
		t.Errorf("integer attributes %v", ints)
	}
	if want := pad("QM1", 48) + pad("DEV.DEAD.LETTER.QUEUE", 48); string(chars) != want {
		t.Errorf("character attributes %q, want %q", chars, want)
	}
	r, _, _ = c.inq(h, []int32{iaCurrentQDepth}, 1, 0)
	wantRC(t, "a queue's selector on the queue manager", r, ccFailed, rcSelectorError)
}

// TestInquireNamelist: SYSTEM.DEFAULT.NAMELIST exists, empty, as on every
// IBM queue manager (IBM's amqsinq sample inquires it).
func TestInquireNamelist(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	h, r, _, _ := c.open(otNamelist, "SYSTEM.DEFAULT.NAMELIST", ooInquire)
	wantRC(t, "open the namelist", r, ccOK, rcNone)
	r, ints, chars := c.inq(h, []int32{caNamelistName, iaNameCount, caNames}, 1, 48)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if !slices.Equal(ints, []int32{0}) || string(chars) != pad("SYSTEM.DEFAULT.NAMELIST", 48) {
		t.Errorf("got %v %q, want no names", ints, chars)
	}
	r, _, _ = c.inq(h, []int32{iaCurrentQDepth}, 1, 0)
	wantRC(t, "a queue's selector on a namelist", r, ccFailed, rcSelectorError)
	c.close(h)
}

func pad(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }

func TestInquireQueue(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	c.mustPut(out, 0, "one")
	h := c.mustOpen("DEV.QUEUE.1", ooInquire|ooInputShared)
	sels := []int32{iaCurrentQDepth, iaMaxQDepth, iaOpenInputCount, iaOpenOutputCount, iaMaxMsgLength, iaQType, caQName}
	r, ints, chars := c.inq(h, sels, 6, 48)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if !slices.Equal(ints, []int32{1, 5000, 1, 1, 4194304, 1}) || string(chars) != pad("DEV.QUEUE.1", 48) {
		t.Errorf("got %v %q", ints, chars)
	}
	r, ints, chars = c.inq(h, sels, 2, 10)
	wantRC(t, "too few integers", r, ccWarning, rcIntAttrCountTooSmall)
	if !slices.Equal(ints, []int32{1, 5000}) || string(chars) != "DEV.QUEUE." {
		t.Errorf("got %v %q, want what fits", ints, chars)
	}
	r, _, _ = c.inq(h, []int32{caQName}, 0, 47)
	wantRC(t, "too few characters", r, ccWarning, rcCharAttrsTooShort)
	for _, tc := range []struct {
		name string
		sels []int32
		rc   int32
	}{
		{"unknown selector", []int32{iaCurrentQDepth, 9999}, rcSelectorError},
		{"a queue manager selector", []int32{iaCommandLevel}, rcSelectorError},
		{"257 selectors", make([]int32, 257), rcSelectorCountError},
	} {
		r, _, _ := c.inq(h, tc.sels, 10, 100)
		wantRC(t, tc.name, r, ccFailed, tc.rc)
	}
	r, _, _ = c.inq(h, []int32{iaCurrentQDepth}, -1, 0)
	wantRC(t, "negative count", r, ccFailed, rcIntAttrCountError)
	r, _, _ = c.inq(out, []int32{iaCurrentQDepth}, 1, 0)
	wantRC(t, "not open for inquire", r, ccFailed, rcNotOpenForInquire)
}

func TestAliasAndRemoteQueues(t *testing.T) {
	noPasswords(t)
	s := newServer(t, Config{})
	c := appClient(t, s)

	// An alias resolves to its base queue for put and get.
	h, r, rq, rqm := c.open(otQ, "DEV.ALIAS.1", ooOutput|ooInputShared)
	wantRC(t, "open alias", r, ccOK, rcNone)
	if rq != "DEV.QUEUE.1" || rqm != "QM1" {
		t.Errorf("alias resolved to %s@%s", rq, rqm)
	}
	c.mustPut(h, 0, "via alias")
	if d := c.depth("DEV.QUEUE.1"); d != 1 {
		t.Errorf("base queue depth %d after a put through the alias", d)
	}
	if g := c.mustGet(h, 0); string(g.data) != "via alias" || g.resolvedQ != "DEV.QUEUE.1" {
		t.Errorf("get through the alias: %q from %q", g.data, g.resolvedQ)
	}

	// Inquired, an alias is itself: local-queue selectors warn 2068.
	ah := c.mustOpen("DEV.ALIAS.1", ooInquire)
	r, ints, chars := c.inq(ah, []int32{iaQType, iaCurrentQDepth, caBaseQName, caCreationDate}, 2, 60)
	wantRC(t, "inquire alias", r, ccWarning, rcSelectorNotForType)
	if !slices.Equal(ints, []int32{3, iavNotApplicable}) || string(chars) != pad("DEV.QUEUE.1", 48)+"************" {
		t.Errorf("alias attributes %v %q", ints, chars)
	}

	// A remote definition puts to its transmission queue, named like
	// RQMNAME, and cannot be read.
	r, done := c.put1(otQ, "DEV.REMOTE.1", 0, defaultMD(), nil, []byte("for QM2"))
	wantRC(t, "put1 to the remote definition", r, ccOK, rcNone)
	if done.resolvedQ != "DEV.QUEUE.1" || done.rqmgr != "QM2" {
		t.Errorf("remote put resolved to %s@%s, want RNAME@RQMNAME", done.resolvedQ, done.rqmgr)
	}
	if d := c.depth("QM2"); d != 1 {
		t.Errorf("transmission queue depth %d", d)
	}
	if d := c.depth("DEV.QUEUE.1"); d != 0 {
		t.Errorf("RNAME's local namesake got the message: depth %d", d)
	}
	_, r, _, _ = c.open(otQ, "DEV.REMOTE.1", ooBrowse)
	wantRC(t, "browse a remote definition", r, ccFailed, rcOptionNotValidForType)
	rh := c.mustOpen("DEV.REMOTE.1", ooInquire)
	r, ints, chars = c.inq(rh, []int32{iaQType, iaMaxQDepth, caRemoteQName, caRemoteQMgrName, caXmitQName}, 2, 144)
	wantRC(t, "inquire remote", r, ccWarning, rcSelectorNotForType)
	if !slices.Equal(ints, []int32{6, iavNotApplicable}) || string(chars) != pad("DEV.QUEUE.1", 48)+pad("QM2", 48)+pad("", 48) {
		t.Errorf("remote attributes %v %q", ints, chars)
	}
}

func TestShippedConfigIsTheDefault(t *testing.T) {
	noPasswords(t)
	cfg, err := LoadConfig("../../../configs/mqserver.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{QueueManagers: DefaultQueueManagers(), Channels: DefaultChannels(), Users: DefaultUsers()}
	want.setDefaults()
	cfg.setDefaults()
	// The file spells out what the defaults leave to the queue manager.
	for i := range want.QueueManagers[0].Queues {
		want.QueueManagers[0].Queues[i] = cfg.QueueManagers[0].Queues[i]
	}
	want.QueueManagers[0].CommandLevel, want.QueueManagers[0].MaxMsgLength = 940, 4194304
	want.QueueManagers[0].MaxBytes = embedded.DefaultMaxBytes
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("configs/mqserver.yaml reads as\n%+v\nthe defaults are\n%+v", cfg, want)
	}
	if q := cfg.QueueManagers[0].Queues; len(q) != 6 || q[0].MaxDepth != 5000 || q[1].Name != "DEV.QUEUE.2" ||
		q[5].Name != MaxDepth25Queue || q[5].MaxDepth != 25 {
		t.Errorf("queues %+v", q)
	}
}

func TestConfigPasswordsFromEnvironment(t *testing.T) {
	t.Setenv("MQ_APP_PASSWORD", "from-env")
	t.Setenv("MQ_ADMIN_PASSWORD", "")
	cfg, err := parseConfig(strings.NewReader("users:\n  - name: app\n    password: from-file\n  - name: admin\n    password: admin-file\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Users[0].Password != "from-env" || cfg.Users[1].Password != "admin-file" {
		t.Errorf("passwords %q %q, want the environment's, else the file's", cfg.Users[0].Password, cfg.Users[1].Password)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"queueManager: []\n", "field queueManager not found"},
		{"channels:\n  - name: DEV.APP.SVRCONN\n    users: [nobody]\n", "channels[0].users[0]: \"nobody\" is not one of users"},
		{"channels:\n  - name: X\n", "channels[0].users: must name at least one user"},
		{"channels:\n  - name: X\n    users: [app]\n    maxMsgLength: -1\n", "channels[0].maxMsgLength: must be 0"},
		{"users:\n  - name: a-user-name-too-long\n", "users[0].name: must be 1-12 characters"},
		{"queueManagers:\n  - name: QM1\n    aliases:\n      - {name: A, target: NOWHERE}\n", "queueManagers[0].aliases[0].target: \"NOWHERE\" must name a local queue or a remote definition"},
		{"queueManagers:\n  - name: QM1\n    remotes:\n      - {name: R, remoteQueue: Q, remoteQueueManager: QM9}\n", "queueManagers[0].remotes[0].remoteQueueManager: transmission queue \"QM9\" must be a local queue"},
		{"queueManagers:\n  - name: QM1\n    queues: [{name: Q}]\n    aliases: [{name: Q, target: Q}]\n", "queueManagers[0].aliases[0].name: duplicate queue \"Q\""},
		{"queueMonitoring: SOMETIMES\n", "queueMonitoring: must be OFF, LOW, MEDIUM or HIGH"},
		{"modelQueues:\n  - name: M\n  - name: M\n", "modelQueues[1].name: duplicate model queue \"M\""},
	} {
		path := filepath.Join(t.TempDir(), "mqserver.yaml")
		if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("config\n%s: error %v, want one naming %s and %q", tc.yaml, err, path, tc.want)
		}
	}
}
