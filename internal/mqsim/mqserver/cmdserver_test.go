package mqserver

import (
	"encoding/binary"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// openModel opens a model queue with a DynamicQName; the reply's
// objectName is returned as name.
func (c *client) openModel(model, dynamicQName string, options int32) (h int32, r reply, name string) {
	c.t.Helper()
	var e encoder
	e.i32(otQ)
	e.str(model)
	e.str("")
	e.str(dynamicQName)
	e.i32(options)
	r = c.mustCall(opOpen, &e)
	h, _, _ = r.d.i32(), r.d.str(), r.d.str()
	if r.cc != ccFailed {
		name = r.d.str()
	}
	c.end(r)
	return h, r, name
}

func (c *client) closeWith(h, options int32) reply {
	c.t.Helper()
	var e encoder
	e.i32(h)
	e.i32(options)
	r := c.mustCall(opClose, &e)
	c.end(r)
	return r
}

func TestModelQueueOpenCreatesATemporaryDynamicQueue(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)

	h, r, name := c.openModel(DefaultModelQueue, "AMQ.*", ooInputExclusive|ooInquire)
	wantRC(t, "open the model", r, ccOK, rcNone)
	if !regexp.MustCompile(`^AMQ\.[0-9A-F]{16}$`).MatchString(name) {
		t.Fatalf("dynamic queue %q: want AMQ.<16 hex digits>", name)
	}
	_, _, second := c.openModel(DefaultModelQueue, "AMQ.*", ooInputExclusive)
	if second == name || second == "" {
		t.Fatalf("a second open of the model made %q after %q: want another name", second, name)
	}
	r, ints, _ := c.inq(h, []int32{iaDefinitionType, iaMaxQDepth}, 2, 0)
	wantRC(t, "inquire", r, ccOK, rcNone)
	if ints[0] != qdtTemporaryDynamic || ints[1] != 5000 {
		t.Errorf("DEFTYPE, MAXDEPTH = %v, want [%d 5000]", ints, qdtTemporaryDynamic)
	}

	// Another connection puts to it by name; the creator gets.
	other := appClient(t, s)
	oh := other.mustOpen(name, ooOutput)
	other.mustPut(oh, pmoNoSyncpoint, "reply")
	if g := c.mustGet(h, 0); string(g.data) != "reply" {
		t.Fatalf("got %q, want reply", g.data)
	}
	other.mustPut(oh, pmoNoSyncpoint, "left behind")

	// The creator's close deletes it, messages and all; the other
	// handle's calls fail MQRC_Q_DELETED, its close works.
	wantRC(t, "close with MQCO_DELETE_PURGE", c.closeWith(h, coDeletePurge), ccOK, rcNone)
	if defined(s, name) {
		t.Fatalf("%s still defined after its creator closed it", name)
	}
	r, _ = other.put(oh, pmoNoSyncpoint, defaultMD(), nil, []byte("late"))
	wantRC(t, "put to the deleted queue", r, ccFailed, 2052)
	wantRC(t, "close the deleted queue", other.close(oh), ccOK, rcNone)
	if h, r, _, _ := other.open(otQ, name, ooOutput); r.rc != rcUnknownObjectName {
		t.Errorf("open of the deleted %s: hobj %d rc %d, want 2085", name, h, r.rc)
	}

	// A predefined queue's handle takes no DELETE option.
	ph := c.mustOpen("DEV.QUEUE.1", ooOutput)
	wantRC(t, "close a predefined queue with MQCO_DELETE", c.closeWith(ph, coDelete), ccFailed, rcOptionNotValidForType)
	c.close(ph)

	// The connection's end deletes the rest.
	c.simple(opDisc)
	eventually(t, "the second dynamic queue deleted at MQDISC", func() bool { return !defined(s, second) })
}

func TestModelQueueDynamicNames(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h, r, name := c.openModel(AppModelQueue, "MY.REPLIES", ooInputShared)
	wantRC(t, "a name without '*'", r, ccOK, rcNone)
	if name != "MY.REPLIES" {
		t.Errorf("dynamic queue %q, want MY.REPLIES", name)
	}
	_, r, _ = c.openModel(AppModelQueue, "MY.REPLIES", ooInputShared)
	wantRC(t, "the same name again", r, ccFailed, 2100) // MQRC_OBJECT_ALREADY_EXISTS
	_, r, _ = c.openModel(AppModelQueue, "DEV.QUEUE.1", ooInputShared)
	wantRC(t, "a predefined queue's name", r, ccFailed, 2100)
	r, _ = c.put1(otQ, AppModelQueue, pmoNoSyncpoint, defaultMD(), nil, []byte("x"))
	wantRC(t, "MQPUT1 to a model queue", r, ccFailed, rcQTypeError)
	for _, bad := range []string{"", "A*B*", "ABCDEFGHIJABCDEFGHIJABCDEFGHIJABCD*"} {
		_, r, _ = c.openModel(AppModelQueue, bad, ooInputShared)
		wantRC(t, "DynamicQName "+bad, r, ccFailed, rcDynamicQNameError)
	}
	c.close(h)
	// A lost connection deletes its dynamic queues too.
	_, _, name = c.openModel(AppModelQueue, "LOST.*", ooInputShared)
	c.nc.Close()
	eventually(t, "the dynamic queue of a lost connection deleted", func() bool { return !defined(s, name) })
}

func defined(s *Server, name string) bool {
	defs, _ := s.Backend().QueueDefinitions("QM1")
	for _, d := range defs {
		if d.Name == name {
			return true
		}
	}
	return false
}

// pcfParams are a response's parameters by id: ints or trimmed strings.
type pcfParams map[int32]any

// pcfMessage is a response message.
type pcfMessage struct {
	command, control, cc, rc int32
	params                   pcfParams
}

// command sends a PCF command (parameters already encoded, count of them)
// to SYSTEM.ADMIN.COMMAND.QUEUE with a reply queue from the model, and
// returns the responses up to the one marked last.
func (c *client) command(order pcfOrder, encoding, command int32, count int32, params []byte) []pcfMessage {
	c.t.Helper()
	replyH, r, replyQ := c.openModel(DefaultModelQueue, "CMD.*", ooInputExclusive)
	wantRC(c.t, "open the reply queue", r, ccOK, rcNone)
	defer c.close(replyH)
	var body []byte
	for _, v := range []int32{cftCommandXR, cfhLength, 3, command, 1, cfcLast, 0, 0, count} {
		body = order.AppendUint32(body, uint32(v))
	}
	body = append(body, params...)
	m := defaultMD()
	m.MsgType = mtRequest
	m.Encoding = encoding
	fixed(m.Format[:], fmtAdmin)
	fixed(m.ReplyToQ[:], replyQ)
	r, done := c.put1(otQ, commandQueue, pmoNoSyncpoint|pmoNewMsgID, m, nil, body)
	wantRC(c.t, "put the command", r, ccOK, rcNone)
	var out []pcfMessage
	for {
		r, g := c.get(replyH, getArgs{gmo: gmoWait, wait: 30000, bufferLength: 1 << 20})
		wantRC(c.t, "get a response", r, ccOK, rcNone)
		if g.md.CorrelID != done.md.MsgID || trimmed(g.md.Format[:]) != fmtAdmin || g.md.MsgType != mtReply {
			c.t.Fatalf("response CorrelId %x Format %q MsgType %d: want the command's MsgId %x, MQADMIN, reply",
				g.md.CorrelID, g.md.Format, g.md.MsgType, done.md.MsgID)
		}
		msg := parseResponse(c.t, order, g.data)
		out = append(out, msg)
		if msg.control == cfcLast {
			return out
		}
	}
}

func parseResponse(t testing.TB, order pcfOrder, b []byte) pcfMessage {
	t.Helper()
	word := func(off int) int32 { return int32(order.Uint32(b[off:])) }
	if len(b) < cfhLength || word(0) != cftResponse {
		t.Fatalf("response %x: not an MQCFT_RESPONSE", b)
	}
	m := pcfMessage{command: word(12), control: word(20), cc: word(24), rc: word(28), params: pcfParams{}}
	off := cfhLength
	for range word(32) {
		typ, length, id := word(off), int(word(off+4)), word(off+8)
		switch typ {
		case cftInteger:
			m.params[id] = word(off + 12)
		case cftIntegerList:
			var vs []int32
			for i := range int(word(off + 12)) {
				vs = append(vs, word(off+16+4*i))
			}
			m.params[id] = vs
		case cftString:
			m.params[id] = trimmed(b[off+20 : off+20+int(word(off+16))])
		case cftStringList:
			var ss []string
			n, each := int(word(off+16)), int(word(off+20))
			for i := range n {
				ss = append(ss, trimmed(b[off+24+i*each:off+24+(i+1)*each]))
			}
			m.params[id] = ss
		default:
			t.Fatalf("response parameter type %d", typ)
		}
		off += length
	}
	if off != len(b) {
		t.Fatalf("response of %d bytes has %d after its parameters", len(b), len(b)-off)
	}
	return m
}

// pcfEncoder builds command parameters.
type pcfEncoder struct {
	order pcfOrder
	b     []byte
	n     int32
}

func (e *pcfEncoder) word(v int32) { e.b = e.order.AppendUint32(e.b, uint32(v)) }

func (e *pcfEncoder) integer(id, v int32) *pcfEncoder {
	e.word(cftInteger)
	e.word(cfinLength)
	e.word(id)
	e.word(v)
	e.n++
	return e
}

func (e *pcfEncoder) str(id int32, s string) *pcfEncoder {
	padded := (len(s) + 3) &^ 3
	e.word(cftString)
	e.word(int32(cfstFixedLength + padded))
	e.word(id)
	e.word(qmgrCCSID)
	e.word(int32(len(s)))
	e.b = append(e.b, blankPadded(s, padded)...)
	e.n++
	return e
}

func (e *pcfEncoder) integers(id int32, vs ...int32) *pcfEncoder {
	e.word(cftIntegerList)
	e.word(int32(cfilFixedLength + 4*len(vs)))
	e.word(id)
	e.word(int32(len(vs)))
	for _, v := range vs {
		e.word(v)
	}
	e.n++
	return e
}

func little() *pcfEncoder { return &pcfEncoder{order: binary.LittleEndian} }

func (c *client) mustCommand(command int32, e *pcfEncoder) []pcfMessage {
	c.t.Helper()
	return c.command(e.order, encNative, command, e.n, e.b)
}

func TestCommandServerQueueStatus(t *testing.T) {
	s := newServer(t, Config{QueueMonitoring: "MEDIUM"})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.1", ooOutput|ooInputShared)
	before := time.Now()
	c.mustPut(h, pmoNoSyncpoint, "one")
	c.mustPut(h, pmoNoSyncpoint, "two")
	c.mustPut(h, pmoSyncpoint, "uncommitted")
	c.mustGet(h, gmoNoSyncpoint)

	resp := c.mustCommand(cmdInquireQStatus, little().str(caQName, "DEV.QUEUE.1").integer(iacfQStatusType, iacfQStatus))
	if len(resp) != 1 || resp[0].cc != ccOK {
		t.Fatalf("INQUIRE_Q_STATUS: %+v", resp)
	}
	p := resp[0].params
	for _, id := range []int32{cacfLastPutDate, cacfLastGetDate} {
		if p[id] != pcfDate(before) && p[id] != pcfDate(time.Now()) {
			t.Errorf("INQUIRE_Q_STATUS parameter %d = %v, want today", id, p[id])
		}
	}
	for id, want := range map[int32]any{
		caQName: "DEV.QUEUE.1", iaCurrentQDepth: int32(2), iaOpenInputCount: int32(1), iaOpenOutputCount: int32(1),
		iacfUncommittedMsgs: int32(1), iaMonitoringQ: int32(33),
	} {
		if p[id] != want {
			t.Errorf("INQUIRE_Q_STATUS parameter %d = %v, want %v", id, p[id], want)
		}
	}
	if age := p[iacfOldestMsgAge].(int32); age < 0 || age > int32(time.Since(before)/time.Second)+1 {
		t.Errorf("oldest message age %d s, want this test's", age)
	}
	if q := p[iacfQTimeIndicator].([]int32); len(q) != 2 || q[0] < 0 || q[1] < 0 {
		t.Errorf("queue times %v, want two figures of the got message", q)
	}

	// MQIACF_Q_STATUS_ATTRS narrows the response to what it names.
	resp = c.mustCommand(cmdInquireQStatus, little().str(caQName, "DEV.QUEUE.1").integers(iacfQStatusAttrs, iaCurrentQDepth))
	if p := resp[0].params; len(p) != 3 || p[iaCurrentQDepth] != int32(2) || p[iacfQStatusType] != iacfQStatus {
		t.Errorf("INQUIRE_Q_STATUS of CURDEPTH: %v, want the name, status type and depth", p)
	}

	// RESET_Q_STATS counts the puts and gets since the last reset, then starts again.
	resp = c.mustCommand(cmdResetQStats, little().str(caQName, "DEV.QUEUE.1"))
	p = resp[0].params
	if p[iaMsgEnqCount] != int32(3) || p[iaMsgDeqCount] != int32(1) || p[iaHighQDepth] != int32(3) {
		t.Errorf("RESET_Q_STATS: %v, want 3 enqueued, 1 dequeued, high depth 3", p)
	}
	resp = c.mustCommand(cmdResetQStats, little().str(caQName, "DEV.QUEUE.1"))
	p = resp[0].params
	if p[iaMsgEnqCount] != int32(0) || p[iaMsgDeqCount] != int32(0) || p[iaHighQDepth] != int32(2) {
		t.Errorf("second RESET_Q_STATS: %v, want 0, 0 and the depth, 2", p)
	}
	wantRC(t, "commit", c.simple(opCmit), ccOK, rcNone)
	c.close(h)
}

func TestCommandServerQueueStatusWithoutMonitoring(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h := c.mustOpen("DEV.QUEUE.2", ooOutput)
	c.mustPut(h, pmoNoSyncpoint, "one")
	c.close(h)
	resp := c.mustCommand(cmdInquireQStatus, little().str(caQName, "DEV.QUEUE.2"))
	p := resp[0].params
	if p[iaCurrentQDepth] != int32(1) || p[iacfOldestMsgAge] != monNotAvailable || p[cacfLastPutDate] != "" ||
		!slices.Equal(p[iacfQTimeIndicator].([]int32), []int32{monNotAvailable, monNotAvailable}) {
		t.Errorf("INQUIRE_Q_STATUS with MONQ(OFF): %v, want the depth and no age, times or last put", p)
	}
}

func TestCommandServerListsAndErrors(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)

	resp := c.mustCommand(cmdInquireQNames, little().str(caQName, "DEV.*"))
	names, types := resp[0].params[cacfQNames], resp[0].params[iacfQTypes]
	wantNames := []string{"DEV.ALIAS.1", "DEV.APP.MODEL.QUEUE", "DEV.DEAD.LETTER.QUEUE", "DEV.MAXDEPTH25", "DEV.QUEUE.1", "DEV.QUEUE.2",
		"DEV.QUEUE.3", "DEV.REMOTE.1"}
	wantTypes := []int32{qtAlias, qtModel, qtLocal, qtLocal, qtLocal, qtLocal, qtLocal, qtRemote}
	if !slices.Equal(names.([]string), wantNames) || !slices.Equal(types.([]int32), wantTypes) {
		t.Errorf("INQUIRE_Q_NAMES DEV.*: %v %v, want %v %v", names, types, wantNames, wantTypes)
	}

	// One response per queue, the last marked so.
	resp = c.mustCommand(cmdInquireQ, little().str(caQName, "DEV.QUEUE.*").integer(iaQType, qtLocal).
		integers(iacfQAttrs, iaMaxQDepth))
	if len(resp) != 3 || resp[0].control != cfcNotLast || resp[2].control != cfcLast ||
		resp[1].params[caQName] != "DEV.QUEUE.2" || resp[1].params[iaMaxQDepth] != int32(5000) || len(resp[1].params) != 3 {
		t.Errorf("INQUIRE_Q DEV.QUEUE.* MAXDEPTH: %+v", resp)
	}

	// The command queue is predefined; a model and its dynamic queues are
	// DEFTYPE(TEMPDYN).
	h, _, dynamic := c.openModel(AppModelQueue, "DYN.*", ooInputShared)
	for name, want := range map[string]int32{commandQueue: qdtPredefined, AppModelQueue: qdtTemporaryDynamic,
		dynamic: qdtTemporaryDynamic} {
		resp = c.mustCommand(cmdInquireQ, little().str(caQName, name).integers(iacfQAttrs, iaDefinitionType))
		if got := resp[0].params[iaDefinitionType]; got != want {
			t.Errorf("INQUIRE_Q %s DEFTYPE %v, want %d", name, got, want)
		}
	}
	c.close(h)

	// Big-endian integers (MQENC_INTEGER_NORMAL) are read and answered so.
	big := &pcfEncoder{order: binary.BigEndian}
	big.str(caQName, "DEV.QUEUE.3")
	resp = c.command(binary.BigEndian, encIntegerNormal, cmdInquireQ, big.n, big.b)
	if resp[0].cc != ccOK || resp[0].params[caQName] != "DEV.QUEUE.3" {
		t.Errorf("INQUIRE_Q in big-endian: %+v", resp)
	}

	for _, tc := range []struct {
		what    string
		command int32
		params  *pcfEncoder
		rc      int32
	}{
		{"an unknown command", 9999, little(), rccfCFHCommandError},
		{"INQUIRE_Q without a name", cmdInquireQ, little(), rccfParmCountTooSmall},
		{"an unknown queue", cmdInquireQ, little().str(caQName, "NO.SUCH.QUEUE"), rcUnknownObjectName},
		{"status of an alias", cmdInquireQStatus, little().str(caQName, "DEV.ALIAS.1"), rccfQTypeError},
		{"an unknown channel", cmdInquireChannel, little().str(cachChannelName, "NO.SUCH"), rccfChannelNotFound},
		{"saved channel status", cmdInquireChannelStatus,
			little().str(cachChannelName, "*").integer(iachChannelInstanceType, otSavedChannel), rccfChlStatusNotFound},
	} {
		resp := c.mustCommand(tc.command, tc.params)
		if len(resp) != 1 || resp[0].cc != ccFailed || resp[0].rc != tc.rc || resp[0].control != cfcLast {
			t.Errorf("%s: %+v, want one last response failing %d", tc.what, resp, tc.rc)
		}
	}

	// A header that is wrong.
	resp = c.command(binary.LittleEndian, encNative, cmdInquireQMgr, -1, nil)
	if len(resp) != 1 || resp[0].rc != rccfCFHParmCountError {
		t.Errorf("a header with ParameterCount -1: %+v, want %d", resp, rccfCFHParmCountError)
	}
}

func TestCommandServerChannels(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	resp := c.mustCommand(cmdInquireChannelNames, little().str(cachChannelName, "*"))
	if got := resp[0].params[cachChannelNames]; !slices.Equal(got.([]string), []string{AdminChannel, AppChannel, TLSChannel}) {
		t.Errorf("INQUIRE_CHANNEL_NAMES *: %v", got)
	}
	resp = c.mustCommand(cmdInquireChannel, little().str(cachChannelName, AppChannel))
	if p := resp[0].params; p[iachChannelType] != chtSvrconn || p[iachMaxMsgLength] != int32(DefaultChannelMaxMsgLength) {
		t.Errorf("INQUIRE_CHANNEL %s: %v", AppChannel, p)
	}

	other := appClient(t, s)
	other.mustOpen("DEV.QUEUE.1", ooInquire)
	resp = c.mustCommand(cmdInquireChannelStatus, little().str(cachChannelName, "DEV.*"))
	if len(resp) != 2 {
		t.Fatalf("INQUIRE_CHANNEL_STATUS: %d responses, want one per connection, 2", len(resp))
	}
	for _, r := range resp {
		p := r.params
		if p[cachChannelName] != AppChannel || p[iachChannelStatus] != chsRunning || p[cachConnectionName] != "127.0.0.1" ||
			p[iachMsgs].(int32) < 2 || p[iachBytesSent].(int32) <= 0 || p[iachBytesReceived].(int32) <= 0 ||
			p[cachSSLCipherSpec] != "" || p[cachMCAUserID] != AppUser {
			t.Errorf("channel status: %v", p)
		}
	}
	if resp[0].params[cachMCAJobName] == resp[1].params[cachMCAJobName] {
		t.Errorf("two instances share the job name %v", resp[0].params[cachMCAJobName])
	}
}

// The command server's own connection takes no injected fault: a test's
// armed fault is for the application.
func TestCommandServerIsNotFaulted(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	s.Faults().FailNth(mq.VerbGet, 2, mq.ReasonConnectionBroken) // the first is this client's get of the response
	c.mustCommand(cmdInquireQMgr, little())
	h := c.mustOpen("DEV.QUEUE.1", ooInputShared)
	r, _ := c.get(h, getArgs{bufferLength: 10})
	if r.rc != 2009 {
		t.Errorf("the application's first get: %d, want the armed 2009", r.rc)
	}
}

// IBM's metrics collectors (mq-metric-samples v5.7.1, mqmetric) inquire
// these of the queue manager; each must answer as a fresh queue manager
// does.
func TestInquireQueueManagerAsMetricsCollectorsDo(t *testing.T) {
	s := newServer(t, Config{})
	c := appClient(t, s)
	h, r, _, _ := c.open(otQMgr, "", ooInquire)
	wantRC(t, "open the queue manager", r, ccOK, rcNone)
	defer c.close(h)
	selectors := []int32{iaCommandLevel, iaPerformanceEvent, iaMaxHandles, iaPlatform, iaStatisticsMQI,
		iaChannelAutoDef, iaInhibitEvent, iaActivityRecording, iaStatisticsQ, iaMonitoringQ, caQMgrName, caQMgrDesc, caCustom}
	r, ints, chars := c.inq(h, selectors, 10, 48+64+128)
	wantRC(t, "inquire", r, ccOK, rcNone)
	want := []int32{940, 0, maxHandlesPerConn, platformUnix, 0, 0, 0, 1, 0, 0}
	if !slices.Equal(ints, want) {
		t.Errorf("integer attributes %v, want %v", ints, want)
	}
	if got := trimmed(chars[:48]); got != "QM1" || len(chars) != 48+64+128 {
		t.Errorf("character attributes %q (%d bytes), want QM1 first and 240 bytes", got, len(chars))
	}
}

// A model queue without a MAXDEPTH of its own shows, and gives its dynamic
// queues, the queue manager's.
func TestModelQueueDepthIsTheQueueManagers(t *testing.T) {
	qmgrs := DefaultQueueManagers()
	qmgrs[0].MaxDepth = 7
	s := newServer(t, Config{QueueManagers: qmgrs, ModelQueues: []ModelQueue{{Name: DefaultModelQueue}, {Name: "M.OWN", MaxDepth: 3}}})
	c := appClient(t, s)
	for model, want := range map[string]int32{DefaultModelQueue: 7, "M.OWN": 3} {
		resp := c.mustCommand(cmdInquireQ, little().str(caQName, model).integers(iacfQAttrs, iaMaxQDepth))
		if got := resp[0].params[iaMaxQDepth]; got != want {
			t.Errorf("INQUIRE_Q %s MAXDEPTH %v, want %d", model, got, want)
		}
		h, r, name := c.openModel(model, "D.*", ooInputShared|ooInquire)
		wantRC(t, "open "+model, r, ccOK, rcNone)
		r, ints, _ := c.inq(h, []int32{iaMaxQDepth}, 1, 0)
		if r.rc != rcNone || ints[0] != want {
			t.Errorf("MAXDEPTH of %s from %s: %v (rc %d), want %d", name, model, ints, r.rc, want)
		}
		c.close(h)
	}
}
