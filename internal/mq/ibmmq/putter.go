//go:build ibmmq

package ibmmq

/*
#cgo noescape mqprobe_put
#cgo nocallback mqprobe_put
#include <stdlib.h>
#include <string.h>
#include <cmqc.h>

// One open queue's MQPUT structures, in C memory: a put passes them to the
// client library as they are, where the binding's MQPUT builds an MQMD and
// an MQPMO from Go structures and copies every field back after the call.
typedef struct {
	MQMD  tmpl; // the inputs the messages share; changed only when they change
	MQMD  md;   // one call's: tmpl, then its outputs
	MQPMO pmo;
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
