//go:build ibmmq

package ibmmq

/*
#cgo noescape mqprobe_put
#cgo nocallback mqprobe_put
#cgo noescape mqprobe_put_batch
#cgo nocallback mqprobe_put_batch
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmqc.h>

// The outputs of one put that a batch reports.
typedef struct {
	MQBYTE24 msgId;
	MQCHAR8  putDate;
	MQCHAR8  putTime;
} mqprobe_put_out;

// How a batch went: put messages were put; when one failed, cc and rc are
// its reason. warnings counts puts that completed with a warning, the
// first one's reason in warnReason.
typedef struct {
	MQLONG put, cc, rc, warnings, warnReason;
	mqprobe_put_out first, last;
} mqprobe_batch_out;

// One open queue's MQPUT structures, in C memory: a put passes them to the
// client library as they are, where the binding's MQPUT builds an MQMD and
// an MQPMO from Go structures and copies every field back after the call.
typedef struct {
	MQMD  tmpl; // the inputs the messages share; changed only when they change
	MQMD  md;   // one call's: tmpl, then its outputs
	MQPMO pmo;
	mqprobe_batch_out out; // the last batch's
} mqprobe_putter;

static mqprobe_putter *mqprobe_putter_new(void) {
	mqprobe_putter *p = malloc(sizeof *p);
	if (p) {
		MQMD md = {MQMD_DEFAULT};
		MQPMO pmo = {MQPMO_DEFAULT};
		p->tmpl = md;
		p->md = md;
		p->pmo = pmo;
		p->pmo.Version = MQPMO_VERSION_3; // OriginalMsgHandle
	}
	return p;
}

static void mqprobe_put(MQHCONN hconn, MQHOBJ hobj, mqprobe_putter *p, MQLONG length, void *buffer,
                        MQLONG *compCode, MQLONG *reason) {
	memcpy(&p->md, &p->tmpl, sizeof p->md);
	MQPUT(hconn, hobj, &p->md, &p->pmo, length, buffer, compCode, reason);
}

static void mqprobe_keep_out(mqprobe_put_out *o, const MQMD *md) {
	memcpy(o->msgId, md->MsgId, sizeof o->msgId);
	memcpy(o->putDate, md->PutDate, sizeof o->putDate);
	memcpy(o->putTime, md->PutTime, sizeof o->putTime);
}

static int64_t mqprobe_nanos(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

// Puts count messages, message i's body ending at ends[i] in bodies, each
// with tmpl and pmo as they are, stopping at the first that fails. The
// puts at the indexes timed lists (ascending) are timed, into elapsed.
static void mqprobe_put_batch(MQHCONN hconn, MQHOBJ hobj, mqprobe_putter *p, MQLONG count, char *bodies,
                              const MQLONG *ends, const MQLONG *timed, MQLONG ntimed, int64_t *elapsed) {
	mqprobe_batch_out *out = &p->out;
	MQLONG start = 0, next = 0;
	out->put = 0;
	out->cc = MQCC_OK;
	out->rc = MQRC_NONE;
	out->warnings = 0;
	out->warnReason = MQRC_NONE;
	for (MQLONG i = 0; i < count; i++) {
		MQLONG cc, rc;
		int64_t began = 0;
		int timing = next < ntimed && timed[next] == i;
		memcpy(&p->md, &p->tmpl, sizeof p->md);
		if (timing) began = mqprobe_nanos();
		MQPUT(hconn, hobj, &p->md, &p->pmo, ends[i] - start, bodies + start, &cc, &rc);
		if (timing) elapsed[next++] = mqprobe_nanos() - began;
		start = ends[i];
		if (cc == MQCC_FAILED) {
			out->cc = cc;
			out->rc = rc;
			return;
		}
		if (cc == MQCC_WARNING && out->warnings++ == 0) out->warnReason = rc;
		if (i == 0) mqprobe_keep_out(&out->first, &p->md);
		out->put++;
	}
	if (out->put > 0) mqprobe_keep_out(&out->last, &p->md);
}
*/
import "C"

import (
	"reflect"
	"time"
	"unsafe"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// putter makes a queue's MQPUTs: one cgo call per put with the MQMD and
// MQPMO kept in C memory and only what changed written into them. The
// binding's MQObject.Put converts both structures to C and back on every
// call (strings, a time parse, allocations), which cost the daemon several
// times the client library's own work per message.
type putter struct {
	c     *C.mqprobe_putter
	hConn C.MQHCONN
	hObj  C.MQHOBJ
	// The string fields as tmpl holds them.
	format, replyToQ, replyToQMgr string
	// The message handle last put with, and its MQI handle.
	handle mqi.MQMessageHandle
	hMsg   C.MQHMSG
	// The PutDate last seen, and its midnight.
	date C.MQCHAR8
	day  time.Time
}

// newPutter prepares puts to obj on qm; nil when the binding's handles
// cannot be read (a binding whose structures changed), and the queue
// then puts through the binding.
func newPutter(qm *mqi.MQQueueManager, obj mqi.MQObject) *putter {
	hConn, okConn := bindingHandle(reflect.ValueOf(qm).Elem(), "hConn")
	hObj, okObj := bindingHandle(reflect.ValueOf(obj), "hObj")
	if !okConn || !okObj {
		return nil
	}
	if _, ok := bindingHandle(reflect.ValueOf(mqi.MQMessageHandle{}), "hMsg"); !ok {
		return nil
	}
	c := C.mqprobe_putter_new()
	if c == nil {
		return nil
	}
	return &putter{c: c, hConn: C.MQHCONN(hConn), hObj: C.MQHOBJ(hObj), hMsg: C.MQHM_NONE}
}

// bindingHandle reads the MQI handle the binding keeps in an unexported
// integer field of v.
func bindingHandle(v reflect.Value, field string) (int64, bool) {
	f := v.FieldByName(field)
	switch f.Kind() {
	case reflect.Int32, reflect.Int64:
		return f.Int(), true
	}
	return 0, false
}

// free releases the C structures; the putter is unusable afterwards.
func (p *putter) free() {
	C.free(unsafe.Pointer(p.c))
	p.c = nil
}

// put puts msg's payload with msg's descriptor fields, the put options and
// the message handle h (a zero one for none), and returns the MsgId and
// put time the queue manager gave it. A failure or warning is the
// binding's *mqi.MQReturn, as MQObject.Put returns it.
func (p *putter) put(msg *mq.Message, options int32, h mqi.MQMessageHandle) (mq.PutResult, error) {
	p.prepare(msg, options, h)
	var buffer unsafe.Pointer
	if len(msg.Payload) > 0 {
		buffer = unsafe.Pointer(&msg.Payload[0])
	}
	var cc, rc C.MQLONG
	C.mqprobe_put(p.hConn, p.hObj, p.c, C.MQLONG(len(msg.Payload)), buffer, &cc, &rc)
	var err error
	if cc != C.MQCC_OK {
		err = &mqi.MQReturn{MQCC: int32(cc), MQRC: int32(rc)}
		if cc == C.MQCC_FAILED {
			return mq.PutResult{}, err
		}
	}
	md := &p.c.md
	res := mq.PutResult{PutTime: p.putTime(&md.PutDate, &md.PutTime)}
	res.MsgID = *(*[mq.IDLength]byte)(unsafe.Pointer(&md.MsgId[0]))
	return res, err
}

// putBatch puts b's messages as put would put each, in one call into C
// that stops at the first failure. tried is how many MQPUTs it made;
// warning is the first warning (the messages are on the queue), err the
// failure, both the binding's *mqi.MQReturn.
func (p *putter) putBatch(b *mq.Batch, options int32, h mqi.MQMessageHandle) (res mq.BatchResult, tried int, warning, err error) {
	p.prepare(b.Message, options, h)
	n := b.Len()
	var bodies *C.char
	if len(b.Bodies) > 0 {
		bodies = (*C.char)(unsafe.Pointer(&b.Bodies[0]))
	}
	var timed *C.MQLONG
	var elapsed *C.int64_t
	if len(b.Timed) > 0 {
		timed = (*C.MQLONG)(unsafe.Pointer(&b.Timed[0]))
		elapsed = (*C.int64_t)(unsafe.Pointer(&b.Elapsed[0]))
	}
	C.mqprobe_put_batch(p.hConn, p.hObj, p.c, C.MQLONG(n), bodies, (*C.MQLONG)(unsafe.Pointer(&b.Ends[0])),
		timed, C.MQLONG(len(b.Timed)), elapsed)
	out := &p.c.out
	res.Put, tried = int(out.put), int(out.put)
	if out.warnings > 0 {
		warning = &mqi.MQReturn{MQCC: mqi.MQCC_WARNING, MQRC: int32(out.warnReason)}
	}
	if out.cc == C.MQCC_FAILED {
		tried++
		err = &mqi.MQReturn{MQCC: int32(out.cc), MQRC: int32(out.rc)}
	}
	if res.Put > 0 {
		res.First = p.result(&out.first)
		res.Last = p.result(&out.last)
	}
	return res, tried, warning, err
}

// result is the PutResult a batch kept of one put.
func (p *putter) result(o *C.mqprobe_put_out) mq.PutResult {
	return mq.PutResult{MsgID: *(*[mq.IDLength]byte)(unsafe.Pointer(&o.msgId[0])), PutTime: p.putTime(&o.putDate, &o.putTime)}
}

// prepare writes msg's descriptor fields, the put options and the message
// handle h (a zero one for none) into the C structures.
func (p *putter) prepare(msg *mq.Message, options int32, h mqi.MQMessageHandle) {
	if h != p.handle {
		v, _ := bindingHandle(reflect.ValueOf(h), "hMsg") // newPutter found the field; a zero handle holds MQHM_NONE (0)
		p.handle, p.hMsg = h, C.MQHMSG(v)
	}
	t := &p.c.tmpl
	*(*[mq.IDLength]byte)(unsafe.Pointer(&t.MsgId[0])) = msg.MsgID
	*(*[mq.IDLength]byte)(unsafe.Pointer(&t.CorrelId[0])) = msg.CorrelID
	t.Priority = C.MQLONG(msg.Priority)
	t.Persistence = C.MQPER_NOT_PERSISTENT
	if msg.Persistent {
		t.Persistence = C.MQPER_PERSISTENT
	}
	t.Expiry = C.MQLONG(expiryTenths(msg.Expiry))
	t.CodedCharSetId = C.MQLONG(msg.CCSID) // 0 is MQCCSI_Q_MGR
	t.Encoding = C.MQLONG(putEncoding(msg.Encoding))
	if msg.Format != p.format {
		setField(t.Format[:], msg.Format)
		p.format = msg.Format
	}
	if msg.ReplyToQ != p.replyToQ {
		setField(t.ReplyToQ[:], msg.ReplyToQ)
		p.replyToQ = msg.ReplyToQ
	}
	if msg.ReplyToQMgr != p.replyToQMgr {
		setField(t.ReplyToQMgr[:], msg.ReplyToQMgr)
		p.replyToQMgr = msg.ReplyToQMgr
	}
	p.c.pmo.Options = C.MQLONG(options)
	p.c.pmo.OriginalMsgHandle = p.hMsg
}

// setField writes s into a blank-padded MQCHAR field (the binding's
// setMQIString cuts a longer s the same way; validatePut refuses a Format
// longer than its field).
func setField(field []C.MQCHAR, s string) {
	n := copy(unsafe.Slice((*byte)(unsafe.Pointer(&field[0])), len(field)), s)
	for i := n; i < len(field); i++ {
		field[i] = ' '
	}
}

// putTime is the MQMD's PutDate (YYYYMMDD) and PutTime (HHMMSSTH, in
// hundredths) in UTC, as MQ gives them; zero when they are not digits. The
// day is parsed once per date.
func (p *putter) putTime(date, clock *C.MQCHAR8) time.Time {
	if *date != p.date || p.day.IsZero() {
		y, ok1 := digits(date[0:4])
		mo, ok2 := digits(date[4:6])
		d, ok3 := digits(date[6:8])
		if !(ok1 && ok2 && ok3) {
			return time.Time{}
		}
		p.date, p.day = *date, time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	}
	hundredths, ok := digits(clock[6:8])
	h, ok1 := digits(clock[0:2])
	mi, ok2 := digits(clock[2:4])
	sec, ok3 := digits(clock[4:6])
	if !(ok && ok1 && ok2 && ok3) {
		return time.Time{}
	}
	return p.day.Add(time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second +
		time.Duration(hundredths)*10*time.Millisecond)
}

// digits is the decimal number f spells; false when f holds another
// character.
func digits(f []C.MQCHAR) (int, bool) {
	n := 0
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
