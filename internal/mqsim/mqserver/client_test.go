package mqserver

import (
	"bufio"
	"encoding/binary"
	"math"
	"net"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// client speaks PROTOCOL.md the way the C client does, for tests.
type client struct {
	t  testing.TB
	nc net.Conn
	r  *bufio.Reader
	w  *bufio.Writer
}

func dial(t testing.TB, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}
}

// reply is a reply body after compCode and reason.
type reply struct {
	cc, rc int32
	d      *decoder
}

// call sends one request and reads its reply; err is a connection failure.
func (c *client) call(op uint16, e *encoder) (reply, error) {
	if err := writeFrame(c.w, op, e.buf); err != nil {
		return reply{}, err
	}
	gotOp, body, _, err := readFrame(c.r, nil)
	if err != nil {
		return reply{}, err
	}
	if gotOp != op|opReply {
		c.t.Fatalf("reply op %#x to op %d", gotOp, op)
	}
	d := &decoder{b: body}
	return reply{cc: d.i32(), rc: d.i32(), d: d}, nil
}

// mustCall is call for a connection that must stay up.
func (c *client) mustCall(op uint16, e *encoder) reply {
	c.t.Helper()
	r, err := c.call(op, e)
	if err != nil {
		c.t.Fatalf("op %d: %v", op, err)
	}
	return r
}

type connectArgs struct {
	qmgr, channel, user, password string
	maxMsgLength                  int32
}

type connected struct {
	qmgr         string
	connID       []byte
	qmgrID       string
	maxMsgLength int32
}

func (c *client) connect(a connectArgs) (reply, connected) {
	c.t.Helper()
	var e encoder
	e.i32(protocolVersion)
	e.str(a.qmgr)
	e.str(a.channel)
	e.str(a.user)
	e.str(a.password)
	e.str("mqserver.test")
	e.i32(0)
	e.i32(a.maxMsgLength)
	r := c.mustCall(opConnect, &e)
	got := connected{qmgr: r.d.str(), connID: r.d.bytes(), qmgrID: r.d.str(), maxMsgLength: r.d.i32()}
	c.end(r)
	return r, got
}

// end checks that a reply had nothing left over.
func (c *client) end(r reply) {
	c.t.Helper()
	if err := r.d.end(); err != nil {
		c.t.Fatalf("reply: %v", err)
	}
}

func (c *client) open(objectType int32, name string, options int32) (int32, reply, string, string) {
	c.t.Helper()
	var e encoder
	e.i32(objectType)
	e.str(name)
	e.str("")
	e.str("")
	e.i32(options)
	r := c.mustCall(opOpen, &e)
	h, rq, rqm := r.d.i32(), r.d.str(), r.d.str()
	c.end(r)
	return h, r, rq, rqm
}

// mustOpen opens a queue that must open.
func (c *client) mustOpen(name string, options int32) int32 {
	c.t.Helper()
	h, r, _, _ := c.open(otQ, name, options)
	wantRC(c.t, "open "+name, r, ccOK, rcNone)
	return h
}

func (c *client) close(h int32) reply {
	c.t.Helper()
	var e encoder
	e.i32(h)
	e.i32(0)
	r := c.mustCall(opClose, &e)
	c.end(r)
	return r
}

func (c *client) simple(op uint16) reply {
	c.t.Helper()
	r := c.mustCall(op, &encoder{})
	c.end(r)
	return r
}

// prop is a property as the client sends it.
type prop struct {
	name  string
	typ   int32
	value []byte
}

func encodeProps(e *encoder, props []prop) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(props)))
	for _, p := range props {
		e.str(p.name)
		e.i32(p.typ)
		e.bytes(p.value)
	}
}

type putDone struct {
	md               md
	resolvedQ, rqmgr string
}

func (c *client) put(h int32, pmo int32, m md, props []prop, data []byte) (reply, putDone) {
	c.t.Helper()
	var e encoder
	e.i32(h)
	e.i32(pmo)
	e.md(&m)
	encodeProps(&e, props)
	e.bytes(data)
	r := c.mustCall(opPut, &e)
	got := putDone{md: decodeMD(r.d), resolvedQ: r.d.str(), rqmgr: r.d.str()}
	c.end(r)
	return r, got
}

func (c *client) put1(objectType int32, name string, pmo int32, m md, props []prop, data []byte) (reply, putDone) {
	c.t.Helper()
	var e encoder
	e.i32(objectType)
	e.str(name)
	e.str("")
	e.i32(pmo)
	e.md(&m)
	encodeProps(&e, props)
	e.bytes(data)
	r := c.mustCall(opPut1, &e)
	got := putDone{md: decodeMD(r.d), resolvedQ: r.d.str(), rqmgr: r.d.str()}
	c.end(r)
	return r, got
}

// mustPut puts data with MQMD_DEFAULT, outside syncpoint unless pmo says.
func (c *client) mustPut(h int32, pmo int32, data string) putDone {
	c.t.Helper()
	r, done := c.put(h, pmo, defaultMD(), nil, []byte(data))
	wantRC(c.t, "put", r, ccOK, rcNone)
	return done
}

type getArgs struct {
	gmo, wait, match int32
	md               md
	bufferLength     int32
	wantProps        bool
}

type got struct {
	md         md
	dataLength int32
	data       []byte
	props      []prop
	resolvedQ  string
}

func (c *client) getCall(h int32, a getArgs) (reply, got, error) {
	var e encoder
	e.i32(h)
	e.i32(a.gmo)
	e.i32(a.wait)
	e.i32(a.match)
	if a.md.Version == 0 {
		a.md = defaultMD()
	}
	e.md(&a.md)
	e.i32(a.bufferLength)
	want := int32(0)
	if a.wantProps {
		want = 1
	}
	e.i32(want)
	r, err := c.call(opGet, &e)
	if err != nil {
		return r, got{}, err
	}
	g := got{md: decodeMD(r.d), dataLength: r.d.i32(), data: append([]byte(nil), r.d.bytes()...)}
	n := r.d.count()
	for range n {
		g.props = append(g.props, prop{name: r.d.str(), typ: r.d.i32(), value: append([]byte(nil), r.d.bytes()...)})
	}
	g.resolvedQ = r.d.str()
	c.end(r)
	return r, g, nil
}

func (c *client) get(h int32, a getArgs) (reply, got) {
	c.t.Helper()
	r, g, err := c.getCall(h, a)
	if err != nil {
		c.t.Fatalf("get: %v", err)
	}
	return r, g
}

// mustGet gets the next message (no wait, no syncpoint unless gmo says).
func (c *client) mustGet(h int32, gmo int32) got {
	c.t.Helper()
	r, g := c.get(h, getArgs{gmo: gmo, bufferLength: 1 << 20})
	wantRC(c.t, "get", r, ccOK, rcNone)
	return g
}

func (c *client) inq(h int32, selectors []int32, intCount, charLength int32) (reply, []int32, []byte) {
	c.t.Helper()
	var e encoder
	e.i32(h)
	e.i32s(selectors)
	e.i32(intCount)
	e.i32(charLength)
	r := c.mustCall(opInq, &e)
	ints, chars := r.d.i32s(), append([]byte(nil), r.d.bytes()...)
	c.end(r)
	return r, ints, chars
}

// depth is the queue's CURDEPTH through a handle of its own.
func (c *client) depth(queue string) int32 {
	c.t.Helper()
	h := c.mustOpen(queue, ooInquire)
	defer c.close(h)
	r, ints, _ := c.inq(h, []int32{iaCurrentQDepth}, 1, 0)
	wantRC(c.t, "inquire depth", r, ccOK, rcNone)
	return ints[0]
}

// wantRC fails unless a reply has the completion and reason codes.
func wantRC(t testing.TB, what string, r reply, cc, rc int32) {
	t.Helper()
	if r.cc != cc || r.rc != rc {
		t.Fatalf("%s: compCode %d reason %d, want %d %d", what, r.cc, r.rc, cc, rc)
	}
}

// i32Bytes and friends encode property values.
func i32Bytes(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
func i64Bytes(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
func f64Bytes(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

// eventually polls cond until it holds or a few seconds pass.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after 5s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testID is an ID from a string.
func testID(s string) mq.ID {
	var id mq.ID
	copy(id[:], s)
	return id
}
