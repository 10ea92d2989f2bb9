package mq

import (
	"errors"
	"strings"
)

// Verb names the MQI call that failed, as IBM spells it in its messages.
type Verb string

// MQI verbs.
const (
	VerbConnect    Verb = "MQCONNX"
	VerbDisconnect Verb = "MQDISC"
	VerbOpen       Verb = "MQOPEN"
	VerbClose      Verb = "MQCLOSE"
	VerbPut        Verb = "MQPUT"
	VerbGet        Verb = "MQGET"
	VerbCommit     Verb = "MQCMIT"
	VerbBackout    Verb = "MQBACK"
	VerbInquire    Verb = "MQINQ"
	VerbSetProp    Verb = "MQSETMP"
	VerbStatus     Verb = "MQSTAT"
)

// Error is a failed (or warned) MQI call. Every backend returns *Error for
// queue-manager outcomes, so callers classify them with errors.As or the
// helpers below whatever the backend.
type Error struct {
	Verb     Verb     // the call, e.g. MQPUT
	Object   string   // queue or queue manager name; may be empty
	CompCode CompCode // MQCC_FAILED or MQCC_WARNING
	Reason   Reason   // MQRC_*
	Err      error    // optional underlying cause (e.g. from the client library)
	// Permanent marks an outcome that a later retry of the command would
	// not change although its reason alone says it might: 2059 from a
	// queue manager that stayed unavailable through the pool's retries.
	Permanent bool
}

// NewError returns a failed-call error.
func NewError(verb Verb, object string, reason Reason) *Error {
	return &Error{Verb: verb, Object: object, CompCode: CompFailed, Reason: reason}
}

// Error renders e.g. `mq: MQOPEN DEV.QUEUE.9: MQRC_UNKNOWN_OBJECT_NAME (2085)`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("mq: ")
	b.WriteString(string(e.Verb))
	if e.Object != "" {
		b.WriteByte(' ')
		b.WriteString(e.Object)
	}
	b.WriteString(": ")
	if e.CompCode == CompWarning {
		b.WriteString("warning ")
	}
	b.WriteString(e.Reason.String())
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Code is the reason's IBM name, for result events' error.code.
func (e *Error) Code() string { return e.Reason.Code() }

// Transient reports whether the command may succeed if retried later: the
// reason is transient and e is not marked Permanent.
func (e *Error) Transient() bool { return !e.Permanent && e.Reason.Transient() }

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// ReasonOf is the reason code of the *Error in err's chain, or ReasonNone.
func ReasonOf(err error) Reason {
	if e, ok := AsError(err); ok {
		return e.Reason
	}
	return ReasonNone
}

// IsReason reports whether err carries one of the reasons.
func IsReason(err error, reasons ...Reason) bool {
	e, ok := AsError(err)
	if !ok {
		return false
	}
	for _, r := range reasons {
		if e.Reason == r {
			return true
		}
	}
	return false
}

// IsTransient reports whether err is an MQ error worth retrying later.
// Errors that are not MQ outcomes (context cancellation, validation) are not
// classified here and report false.
func IsTransient(err error) bool {
	e, ok := AsError(err)
	return ok && e.Transient()
}

// IsConnectionBroken reports whether err means the connection it came from is
// unusable and must be replaced.
func IsConnectionBroken(err error) bool {
	e, ok := AsError(err)
	return ok && e.Reason.ConnectionBroken()
}
