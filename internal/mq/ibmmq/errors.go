//go:build ibmmq

package ibmmq

import (
	"errors"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// MQI verbs the port does not name: message handles and their properties.
const (
	verbCreateMsgHandle mq.Verb = "MQCRTMH"
	verbDeleteMsgHandle mq.Verb = "MQDLTMH"
	verbInquireProp     mq.Verb = "MQINQMP"
	verbDeleteProp      mq.Verb = "MQDLTMP"
)

// mqError turns an error from the binding into the port's *mq.Error for the
// call verb on object.
func mqError(verb mq.Verb, object string, err error) *mq.Error {
	var rc *mqi.MQReturn
	if errors.As(err, &rc) {
		return &mq.Error{Verb: verb, Object: object, CompCode: mq.CompCode(rc.MQCC), Reason: mq.Reason(rc.MQRC)}
	}
	// The binding reports every outcome as *MQReturn; anything else is a
	// defect, kept as the cause.
	return &mq.Error{Verb: verb, Object: object, CompCode: mq.CompFailed, Reason: mq.ReasonUnexpectedError, Err: err}
}

// isWarning reports whether err is a binding outcome with MQCC_WARNING: the
// call did its work (a connection or object handle exists, a message was
// put) and says something about it.
func isWarning(err error) bool {
	var rc *mqi.MQReturn
	return errors.As(err, &rc) && rc.MQCC == mqi.MQCC_WARNING
}

// reasonOf is the MQRC of a binding error; MQRC_NONE for nil or an error
// of another kind. It runs on every
// get, so it asserts the binding's unwrapped *MQReturn instead of paying
// errors.As an allocation.
func reasonOf(err error) int32 {
	if rc, ok := err.(*mqi.MQReturn); ok {
		return rc.MQRC
	}
	return mqi.MQRC_NONE
}
