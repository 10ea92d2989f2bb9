package mq

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"time"
)

// IDLength is the size of MQMD MsgId and CorrelId.
const IDLength = 24

// ID is a 24-byte MQMD MsgId or CorrelId. The zero ID is MQMI_NONE /
// MQCI_NONE: on put it asks the queue manager to generate a MsgId, and in
// GetOptions it matches any message.
type ID [IDLength]byte

// IsZero reports whether id is MQMI_NONE.
func (id ID) IsZero() bool { return id == ID{} }

// String is the hex form IBM tools print.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IDFromBytes copies up to 24 bytes into an ID, padding with zeros as MQ
// does. Longer input is an error rather than silently truncated.
func IDFromBytes(b []byte) (ID, error) {
	var id ID
	if len(b) > IDLength {
		return id, fmt.Errorf("mq: id is %d bytes, at most %d allowed", len(b), IDLength)
	}
	copy(id[:], b)
	return id, nil
}

// Formats (MQMD Format, trimmed of IBM's blank padding).
const (
	FormatNone   = ""      // MQFMT_NONE: binary payload
	FormatString = "MQSTR" // MQFMT_STRING: character payload
)

// MQMD CodedCharSetId and Encoding values.
const (
	// CCSIDQueueManager is MQCCSI_Q_MGR: on put, the queue manager's CCSID,
	// which the message then carries.
	CCSIDQueueManager = 0
	// EncodingNative is MQENC_NATIVE of the platforms mqprobe runs on
	// (little-endian: MQENC_INTEGER_REVERSED, MQENC_DECIMAL_REVERSED,
	// MQENC_FLOAT_IEEE_REVERSED).
	EncodingNative = EncodingNativeLittle
)

// Priority bounds.
const (
	MinPriority = 0
	MaxPriority = 9
)

// Message is an MQMD subset plus message properties and payload. On Put it
// is read; on Get it is overwritten, reusing Payload's and Properties'
// storage so a loop that gets into one Message does not allocate per message.
type Message struct {
	MsgID       ID
	CorrelID    ID
	Format      string        // up to 8 characters; FormatString, FormatNone, ...
	Persistent  bool          // MQPER_PERSISTENT when true, MQPER_NOT_PERSISTENT otherwise
	Priority    int32         // 0 (lowest) to 9
	Expiry      time.Duration // 0 = unlimited; MQ keeps tenths of a second. On get: the time left.
	ReplyToQ    string
	ReplyToQMgr string
	// CCSID (MQMD CodedCharSetId) and Encoding describe the payload's
	// characters and numbers. On put 0 means the default MQMD_DEFAULT has:
	// CCSIDQueueManager and EncodingNative. On get they are the message's,
	// CCSIDQueueManager replaced by the queue manager's CCSID.
	CCSID    int32
	Encoding int32

	// Set by the queue manager; ignored on put.
	PutTime      time.Time
	BackoutCount int32

	// Properties are MQ message properties.
	Properties Properties
	// Payload is the message data. On Get it is filled from Payload[:0],
	// growing only when the message is larger than its capacity.
	Payload []byte
}

// Reset clears m for reuse, keeping Payload's and Properties' storage.
func (m *Message) Reset() {
	payload, props := m.Payload[:0], m.Properties
	clear(props)
	*m = Message{Payload: payload, Properties: props}
}

// Properties are message properties. A value is one of the MQ property
// types: string (MQTYPE_STRING), bool (BOOLEAN), int8, int16, int32, int64
// (INT8 to INT64), float32, float64 (FLOAT32, FLOAT64), []byte
// (BYTE_STRING) or nil (NULL). Backends return each value with the type it
// was put with.
type Properties map[string]any

// Validate checks names and value types before a put, the way MQSETMP would.
func (p Properties) Validate() error {
	for name, v := range p {
		if err := ValidateProperty(name, v); err != nil {
			return err
		}
	}
	return nil
}

// ValidateProperty checks one property's name and value type, the way
// MQSETMP would.
func ValidateProperty(name string, v any) error {
	if err := CheckPropertyName(name); err != nil {
		return &Error{Verb: VerbSetProp, Object: name, CompCode: CompFailed, Reason: ReasonPropertyNameError,
			Err: fmt.Errorf("property name %q %w", name, err)}
	}
	switch v.(type) {
	case string, bool, int8, int16, int32, int64, float32, float64, []byte, nil:
		return nil
	}
	return &Error{Verb: VerbSetProp, Object: name, CompCode: CompFailed, Reason: ReasonPropertyTypeError,
		Err: fmt.Errorf("property %q has unsupported type %T", name, v)}
}

// SamePropertyValue reports whether a and b are the same property value:
// the same type and value, byte strings compared by content. Values of
// types Validate rejects are never the same.
func SamePropertyValue(a, b any) bool {
	switch a := a.(type) {
	case []byte:
		b, ok := b.([]byte)
		return ok && bytes.Equal(a, b)
	case string, bool, int8, int16, int32, int64, float32, float64, nil:
		return a == b
	}
	return false
}

// PutOptions are the MQPMO options the port exposes.
type PutOptions struct {
	// Syncpoint puts the message in the connection's unit of work: it is
	// invisible to getters until Commit and vanishes on Backout.
	Syncpoint bool
	// Async lets Put return before the queue manager has answered (IBM MQ's
	// MQPMO_ASYNC_RESPONSE): the PutResult then holds the MsgId the client
	// made but no PutTime, and a failed put is reported later — by the
	// connection's next Commit, which then backs the unit of work out, or
	// by CheckAsyncPuts. Backends without asynchronous puts put
	// synchronously.
	Async bool
}

// PutResult carries the MQMD output fields of a put.
type PutResult struct {
	MsgID   ID
	PutTime time.Time
}

// BrowseMode selects a destructive get or a browse.
type BrowseMode int

// Browse modes (MQGMO_BROWSE_FIRST / MQGMO_BROWSE_NEXT).
const (
	NoBrowse    BrowseMode = iota // destructive get
	BrowseFirst                   // reposition the handle's cursor to the first message
	BrowseNext                    // the message after the handle's cursor
)

// GetOptions are the MQGMO options and match criteria the port exposes.
type GetOptions struct {
	// Wait is how long to wait for a matching message (MQGMO_WAIT). Zero
	// returns MQRC_NO_MSG_AVAILABLE at once. Backends also stop waiting when
	// the context ends.
	Wait time.Duration
	// Syncpoint takes the message in the unit of work: Backout puts it back
	// where it was, with BackoutCount+1. Not allowed with a browse.
	Syncpoint bool
	// Browse reads without removing, through the handle's browse cursor.
	Browse BrowseMode
	// MsgID and CorrelID select a message when non-zero (MQMO_MATCH_*).
	MsgID    ID
	CorrelID ID
}
