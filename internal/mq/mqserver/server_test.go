package mqserver

import (
	"bytes"
	"encoding/binary"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// newServer serves cfg on a free port. When the test ends, after its
// clients have gone, every connection and handle must be released.
func newServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", cfg)
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
		{"namelist", 2, "SYSTEM.DEFAULT.NAMELIST", ooInquire, rcObjectTypeError},
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
