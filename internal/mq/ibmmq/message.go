//go:build ibmmq

package ibmmq

import (
	"math"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// maxFormatLength is the size of MQMD Format.
const maxFormatLength = 8

// tenth is MQ's expiry unit.
const tenth = 100 * time.Millisecond

// defaultMD holds the MQMD defaults; descriptor.reset copies it.
var defaultMD = *mqi.NewMQMD()

// descriptor is an MQMD reused from call to call. The binding copies the
// fixed-length byte fields in and out of the slices it is given, so keeping
// them saves four allocations per call.
type descriptor struct {
	md                       mqi.MQMD
	msgID, correlID, groupID [mq.IDLength]byte
	accountingToken          [mqi.MQ_ACCOUNTING_TOKEN_LENGTH]byte
}

// reset restores the MQMD defaults; the binding copies output fields back
// into the MQMD, so without this one call's output would be the next one's
// input.
func (d *descriptor) reset() *mqi.MQMD {
	clear(d.msgID[:])
	clear(d.correlID[:])
	clear(d.groupID[:])
	clear(d.accountingToken[:])
	d.md = defaultMD
	d.md.MsgId, d.md.CorrelId = d.msgID[:], d.correlID[:]
	d.md.GroupId, d.md.AccountingToken = d.groupID[:], d.accountingToken[:]
	return &d.md
}

// validatePut rejects what the port forbids but MQPUT would accept or
// silently change: priorities above 9 (MQ puts them as 9 with a warning),
// negative expiries and formats longer than the MQMD field (the binding
// cuts them). Properties, names and value types, are checked as they are
// set on the message handle (propertyHandle.set).
func validatePut(msg *mq.Message, queue string) error {
	switch {
	case msg.Priority < mq.MinPriority || msg.Priority > mq.MaxPriority:
		return mq.NewError(mq.VerbPut, queue, mq.ReasonPriorityError)
	case msg.Expiry < 0:
		return mq.NewError(mq.VerbPut, queue, mq.ReasonExpiryError)
	case len(msg.Format) > maxFormatLength:
		return mq.NewError(mq.VerbPut, queue, mq.ReasonFormatError)
	}
	return nil
}

// setPutFields copies msg's MQMD fields into md, which has the defaults.
func setPutFields(md *mqi.MQMD, msg *mq.Message) {
	copy(md.MsgId, msg.MsgID[:])
	copy(md.CorrelId, msg.CorrelID[:])
	md.Format = msg.Format
	md.Priority = msg.Priority
	md.Persistence = mqi.MQPER_NOT_PERSISTENT
	if msg.Persistent {
		md.Persistence = mqi.MQPER_PERSISTENT
	}
	md.Expiry = expiryTenths(msg.Expiry)
	md.ReplyToQ = msg.ReplyToQ
	md.ReplyToQMgr = msg.ReplyToQMgr
	md.CodedCharSetId = msg.CCSID // 0 is MQCCSI_Q_MGR
	md.Encoding = putEncoding(msg.Encoding)
}

// putEncoding is MQMD Encoding for the port's Encoding: 0 is MQENC_NATIVE.
func putEncoding(enc int32) int32 {
	if enc == 0 {
		return mqi.MQENC_NATIVE
	}
	return enc
}

// expiryTenths converts an expiry to MQMD Expiry: tenths of a second,
// rounded up so a short expiry does not become "unlimited" or 0, and capped
// at the field's range (about 6.8 years).
func expiryTenths(d time.Duration) int32 {
	if d <= 0 {
		return mqi.MQEI_UNLIMITED
	}
	tenths := (d + tenth - 1) / tenth
	return int32(min(tenths, math.MaxInt32))
}

// setGotFields overwrites msg's MQMD fields from md, the descriptor of a
// message MQGET returned. Payload and Properties are left to the caller.
func setGotFields(msg *mq.Message, md *mqi.MQMD) {
	payload, props := msg.Payload, msg.Properties
	*msg = mq.Message{
		Format:       md.Format,
		Persistent:   md.Persistence == mqi.MQPER_PERSISTENT,
		Priority:     md.Priority,
		ReplyToQ:     md.ReplyToQ,
		ReplyToQMgr:  md.ReplyToQMgr,
		CCSID:        md.CodedCharSetId,
		Encoding:     md.Encoding,
		PutTime:      md.PutDateTime,
		BackoutCount: md.BackoutCount,
		Payload:      payload,
		Properties:   props,
	}
	copy(msg.MsgID[:], md.MsgId)
	copy(msg.CorrelID[:], md.CorrelId)
	if md.Expiry != mqi.MQEI_UNLIMITED {
		msg.Expiry = time.Duration(md.Expiry) * tenth
	}
}
