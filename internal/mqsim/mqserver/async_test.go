package mqserver

import (
	"bufio"
	"encoding/binary"
	"testing"
)

// asyncPut sends a PUT with flagNoReply: no reply comes.
func (c *client) asyncPut(h int32, pmo int32, m md, data string) {
	c.t.Helper()
	var e encoder
	e.i32(h)
	e.i32(pmo | pmoAsyncResponse)
	e.md(&m)
	encodeProps(&e, nil)
	e.bytes([]byte(data))
	if err := writeFrameFlags(c.w, opPut, flagNoReply, e.buf); err != nil {
		c.t.Fatalf("async put: %v", err)
	}
}

// writeFrameFlags is writeFrame with flags, as the C client sends an
// asynchronous put.
func writeFrameFlags(w *bufio.Writer, op, flags uint16, body []byte) error {
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[0:4], uint32(len(body)+4))
	binary.LittleEndian.PutUint16(hdr[4:6], op)
	binary.LittleEndian.PutUint16(hdr[6:8], flags)
	if _, err := w.Write(append(hdr[:], body...)); err != nil {
		return err
	}
	return w.Flush()
}

// rcQFull is MQRC_Q_FULL, which the queue manager gives.
const rcQFull int32 = 2053

type statReply struct {
	cc, rc                        int32
	successes, warnings, failures int32
	objectType                    int32
	name, qmgr, resolved, resQMgr string
}

func (c *client) stat(typ int32) (reply, statReply) {
	c.t.Helper()
	var e encoder
	e.i32(typ)
	r := c.mustCall(opStat, &e)
	s := statReply{cc: r.d.i32(), rc: r.d.i32(), successes: r.d.i32(), warnings: r.d.i32(), failures: r.d.i32(),
		objectType: r.d.i32(), name: r.d.str(), qmgr: r.d.str(), resolved: r.d.str(), resQMgr: r.d.str()}
	c.end(r)
	return r, s
}

func TestAsyncPutCountsOutcomesUntilMQSTAT(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen(MaxDepth25Queue, ooOutput)
	// 30 puts to a queue of MAXDEPTH 25: 25 arrive, 5 fail 2053, and none
	// is answered.
	for range 30 {
		c.asyncPut(h, pmoNoSyncpoint, defaultMD(), "async")
	}
	r, st := c.stat(statTypeAsyncError)
	wantRC(t, "MQSTAT", r, ccOK, rcNone)
	want := statReply{cc: ccFailed, rc: rcQFull, successes: 25, failures: 5, objectType: otQ,
		name: MaxDepth25Queue, resolved: MaxDepth25Queue, resQMgr: "QM1"}
	if st != want {
		t.Fatalf("MQSTAT after 30 async puts: %+v, want %+v", st, want)
	}
	if d := c.depth(MaxDepth25Queue); d != 25 {
		t.Fatalf("depth %d, want 25", d)
	}
	// MQSTAT reset the status.
	_, st = c.stat(statTypeAsyncError)
	if st != (statReply{}) {
		t.Fatalf("second MQSTAT: %+v, want all zero", st)
	}
	r, _ = c.stat(99)
	wantRC(t, "MQSTAT of an unknown type", r, ccFailed, rcStatTypeError)
}

func TestAsyncPutFailureWarningThenFailureIsReported(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput)
	over := defaultMD()
	over.Priority = 12 // delivered as 9 with warning 2049
	c.asyncPut(h, pmoNoSyncpoint, over, "warning")
	bad := defaultMD()
	bad.Persistence = 7
	c.asyncPut(h, pmoNoSyncpoint, bad, "failure")
	c.asyncPut(h, pmoNoSyncpoint, defaultMD(), "ok")
	_, st := c.stat(statTypeAsyncError)
	if st.successes != 1 || st.warnings != 1 || st.failures != 1 || st.cc != ccFailed || st.rc != rcPersistenceError {
		t.Fatalf("MQSTAT: %+v, want 1 success, 1 warning, 1 failure, first error the failure 2047", st)
	}
}

func TestAsyncPutFailureInUnitOfWorkBacksOutAtCommit(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen(MaxDepth25Queue, ooOutput)
	persistent := defaultMD()
	persistent.Persistence = perPersistent
	for range 26 {
		c.asyncPut(h, pmoSyncpoint, persistent, "in the unit of work")
	}
	r := c.simple(opCmit)
	wantRC(t, "MQCMIT after a failed persistent async put", r, ccWarning, rcBackedOut)
	if d := c.depth(MaxDepth25Queue); d != 0 {
		t.Fatalf("depth %d after the backed-out unit of work, want 0", d)
	}
	// A failed non-persistent put does not spoil the unit of work.
	for range 26 {
		c.asyncPut(h, pmoSyncpoint, defaultMD(), "non-persistent")
	}
	wantRC(t, "MQCMIT after a failed non-persistent async put", c.simple(opCmit), ccOK, rcNone)
	if d := c.depth(MaxDepth25Queue); d != 25 {
		t.Fatalf("depth %d, want 25", d)
	}
}

func TestAsyncFlagOnlyOnPuts(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	if err := writeFrameFlags(c.w, opCmit, flagNoReply, nil); err != nil {
		t.Fatal(err)
	}
	wantClosed(t, c)
}

func TestQueuesPutSynchronouslyByDefault(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooInquire)
	r, ints, _ := c.inq(h, []int32{iaDefPutResponseType}, 1, 0)
	wantRC(t, "inquire DEFPRESP", r, ccOK, rcNone)
	if ints[0] != 1 {
		t.Fatalf("DEFPRESP %d, want 1 (MQPRT_SYNC_RESPONSE)", ints[0])
	}
	// Both response options: an options error, answered (the client sends
	// such a put synchronously).
	out := c.mustOpen("DEV.QUEUE.1", ooOutput)
	r, _ = c.put(out, pmoNoSyncpoint|pmoAsyncResponse|pmoSyncResponse, defaultMD(), nil, []byte("x"))
	wantRC(t, "put with both response options", r, ccFailed, rcOptionsError)
}

func TestDisconnectWithSpoiledUnitOfWorkBacksOut(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen(MaxDepth25Queue, ooOutput)
	persistent := defaultMD()
	persistent.Persistence = perPersistent
	for range 26 {
		c.asyncPut(h, pmoSyncpoint, persistent, "in the unit of work")
	}
	wantRC(t, "MQDISC after a failed persistent async put", c.simple(opDisc), ccWarning, rcBackedOut)
	if d := appClient(t, s).depth(MaxDepth25Queue); d != 0 {
		t.Fatalf("depth %d after MQDISC backed out, want 0", d)
	}
}
