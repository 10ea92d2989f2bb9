package mqserver

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// mdLength is an MQMD version 2 on 64-bit Linux (MQMD_LENGTH_2).
const mdLength = 364

// md is an MQMD version 2; character fields are blank-padded bytes. It has
// no padding, so encoding/binary lays it out as cmqc.h does.
type md struct {
	StrucID          [4]byte
	Version          int32
	Report           int32
	MsgType          int32
	Expiry           int32
	Feedback         int32
	Encoding         int32
	CodedCharSetID   int32
	Format           [8]byte
	Priority         int32
	Persistence      int32
	MsgID            mq.ID
	CorrelID         mq.ID
	BackoutCount     int32
	ReplyToQ         [48]byte
	ReplyToQMgr      [48]byte
	UserIdentifier   [12]byte
	AccountingToken  [32]byte
	ApplIdentityData [32]byte
	PutApplType      int32
	PutApplName      [28]byte
	PutDate          [8]byte
	PutTime          [8]byte
	ApplOriginData   [4]byte
	GroupID          mq.ID
	MsgSeqNumber     int32
	Offset           int32
	MsgFlags         int32
	OriginalLength   int32
}

// mdIsWireLayout: on a little-endian machine md's memory is the wire's
// MQMD byte for byte (int32 fields at multiples of 4, no padding), so an
// MQMD is copied rather than walked field by field through reflection,
// which cost a put most of the server's instructions.
var mdIsWireLayout = unsafe.Sizeof(md{}) == mdLength && binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func decodeMD(d *decoder) md {
	var m md
	if b := d.take(mdLength); b != nil {
		if mdIsWireLayout {
			copy(mdBytes(&m), b)
		} else {
			_, _ = binary.Decode(b, binary.LittleEndian, &m) // cannot fail: b is the struct's size
		}
	}
	return m
}

func (e *encoder) md(m *md) {
	if mdIsWireLayout {
		e.buf = append(e.buf, mdBytes(m)...)
		return
	}
	var err error
	e.buf, err = binary.Append(e.buf, binary.LittleEndian, m)
	if err != nil {
		panic("mqserver: MQMD does not encode: " + err.Error()) // fixed-size struct: cannot happen
	}
}

// mdBytes is m's memory (see mdIsWireLayout).
func mdBytes(m *md) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(m)), mdLength) }

// defaultMD is MQMD_DEFAULT as a reply's template.
func defaultMD() md {
	m := md{StrucID: [4]byte{'M', 'D', ' ', ' '}, Version: mdVersion2, MsgType: mtDatagram, Expiry: eiUnlimited,
		Encoding: encNative, CodedCharSetID: ccsiQMgr, Priority: priAsQDef, Persistence: perAsQDef,
		MsgSeqNumber: 1, OriginalLength: olUndefined}
	for _, f := range [][]byte{m.Format[:], m.ReplyToQ[:], m.ReplyToQMgr[:], m.UserIdentifier[:],
		m.ApplIdentityData[:], m.PutApplName[:], m.PutDate[:], m.PutTime[:], m.ApplOriginData[:]} {
		blank(f)
	}
	return m
}

func blank(b []byte) {
	for i := range b {
		b[i] = ' '
	}
}

// fixed copies s into a blank-padded field.
func fixed(dst []byte, s string) {
	n := copy(dst, s)
	blank(dst[n:])
}

// trimmed is a fixed field without its trailing blanks and NULs.
func trimmed(b []byte) string { return strings.TrimRight(string(b), " \x00") }

// blankField reports whether a fixed field holds nothing.
func blankField(b []byte) bool { return trimmed(b) == "" }

// putDateTime formats t as MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH),
// in GMT.
func putDateTime(t time.Time, date, tm *[8]byte) {
	t = t.UTC()
	copy(date[:], t.Format("20060102"))
	copy(tm[:], fmt.Sprintf("%02d%02d%02d%02d", t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/10_000_000))
}

// descriptor is the part of m the mq port does not carry.
func (m *md) descriptor() embedded.Descriptor {
	return embedded.Descriptor{
		Report: m.Report, MsgType: m.MsgType, Feedback: m.Feedback, Encoding: m.Encoding,
		CodedCharSetID: m.CodedCharSetID, Priority: m.Priority, UserIdentifier: m.UserIdentifier,
		AccountingToken: m.AccountingToken, ApplIdentityData: m.ApplIdentityData, PutApplType: m.PutApplType,
		PutApplName: m.PutApplName, PutDate: m.PutDate, PutTime: m.PutTime, ApplOriginData: m.ApplOriginData,
		GroupID: m.GroupID, MsgSeqNumber: m.MsgSeqNumber, Offset: m.Offset, MsgFlags: m.MsgFlags,
		OriginalLength: m.OriginalLength,
	}
}

// gotMD is the MQMD MQGET returns for msg and its descriptor. A message
// put through the mq port has no descriptor: it gets MQMD_DEFAULT's values
// with the queue manager's context, and the CCSID and Encoding it was put
// with.
func gotMD(msg *mq.Message, d *embedded.Descriptor) md {
	m := defaultMD()
	m.Priority = msg.Priority
	if d.Valid {
		m.Report, m.MsgType, m.Feedback, m.Encoding = d.Report, d.MsgType, d.Feedback, d.Encoding
		m.CodedCharSetID, m.Priority = d.CodedCharSetID, d.Priority
		m.UserIdentifier, m.AccountingToken, m.ApplIdentityData = d.UserIdentifier, d.AccountingToken, d.ApplIdentityData
		m.PutApplType, m.PutApplName, m.PutDate, m.PutTime = d.PutApplType, d.PutApplName, d.PutDate, d.PutTime
		m.ApplOriginData, m.GroupID, m.MsgSeqNumber, m.Offset = d.ApplOriginData, d.GroupID, d.MsgSeqNumber, d.Offset
		m.MsgFlags, m.OriginalLength = d.MsgFlags, d.OriginalLength
	} else {
		m.CodedCharSetID, m.Encoding = msg.CCSID, msg.Encoding
		m.PutApplType = atUnix
		putDateTime(msg.PutTime, &m.PutDate, &m.PutTime)
	}
	fixed(m.Format[:], msg.Format)
	m.Persistence = perNotPersistent
	if msg.Persistent {
		m.Persistence = perPersistent
	}
	m.MsgID, m.CorrelID, m.BackoutCount = msg.MsgID, msg.CorrelID, msg.BackoutCount
	fixed(m.ReplyToQ[:], msg.ReplyToQ)
	fixed(m.ReplyToQMgr[:], msg.ReplyToQMgr)
	if msg.Expiry > 0 {
		m.Expiry = int32(min(msg.Expiry/(100*time.Millisecond), math.MaxInt32)) // whole tenths, rounded up by the queue manager
	}
	return m
}

// propsCache remembers what a session's puts sent as properties: the
// names that passed mq.CheckPropertyName, and the last props field and
// what it decoded to. A PRODUCE's puts carry the same trace context and
// headers, so each put after the first compares bytes instead of building
// a map; the puts share that map, which nothing after decoding writes (the
// embedded queue manager copies the properties it keeps).
type propsCache struct {
	names nameCache
	raw   []byte
	props mq.Properties
	order []string
	rc    int32
}

// nameCache remembers the last few property names that passed
// mq.CheckPropertyName, so a put loop's names are checked once.
type nameCache struct {
	names [8]string
	next  int
}

// valid reports whether name is a valid property name.
func (c *nameCache) valid(name string) bool {
	for _, n := range c.names {
		if n == name && n != "" {
			return true
		}
	}
	if mq.CheckPropertyName(name) != nil {
		return false
	}
	c.names[c.next] = name
	c.next = (c.next + 1) % len(c.names)
	return true
}

// decodeProps reads a props field into mq.Properties and the order of its
// names; a later property of the same name replaces an earlier one. It
// returns the reason code for a name or type MQSETMP would refuse.
func decodeProps(d *decoder, c *propsCache) (mq.Properties, []string, int32) {
	field := d.b
	skipProps(d)
	if d.err != nil {
		return nil, nil, rcNone
	}
	raw := field[:len(field)-len(d.b)]
	if c.props != nil && string(raw) == string(c.raw) {
		return c.props, c.order, c.rc
	}
	props, order, rc := decodePropsField(&decoder{b: raw}, &c.names)
	if props != nil {
		c.raw, c.props, c.order, c.rc = append(c.raw[:0], raw...), props, order, rc
	}
	return props, order, rc
}

// skipProps moves d past a props field without decoding it.
func skipProps(d *decoder) {
	for range d.count() {
		d.bytes()
		d.take(4)
		d.bytes()
	}
}

// decodePropsField decodes a props field d holds whole (skipProps has
// checked its lengths).
func decodePropsField(d *decoder, names *nameCache) (mq.Properties, []string, int32) {
	n := d.count()
	if n == 0 {
		return nil, nil, rcNone
	}
	props := make(mq.Properties, n)
	order := make([]string, 0, n)
	reason := rcNone
	for range n {
		name := d.str()
		typ := d.i32()
		raw := d.bytes()
		v, rc := propertyValue(typ, raw)
		if rc == rcNone && !names.valid(name) {
			rc = rcPropertyNameError
		}
		if rc != rcNone {
			if reason == rcNone {
				reason = rc
			}
			continue
		}
		if _, dup := props[name]; !dup {
			order = append(order, name)
		}
		props[name] = v
	}
	return props, order, reason
}

// propertySizes are the fixed-size property types' sizes in bytes.
var propertySizes = map[int32]int{typeBoolean: 4, typeInt8: 1, typeInt16: 2, typeInt32: 4, typeInt64: 8,
	typeFloat32: 4, typeFloat64: 8, typeNull: 0}

// propertyValue decodes one value; a size that does not fit its type is
// MQRC_PROPERTY_TYPE_ERROR, as is an unknown type.
func propertyValue(typ int32, raw []byte) (any, int32) {
	if want, ok := propertySizes[typ]; ok && len(raw) != want {
		return nil, rcPropertyTypeError
	}
	le := binary.LittleEndian
	switch typ {
	case typeString:
		return string(raw), rcNone
	case typeByteString:
		return append([]byte{}, raw...), rcNone
	case typeBoolean:
		return le.Uint32(raw) != 0, rcNone
	case typeInt8:
		return int8(raw[0]), rcNone
	case typeInt16:
		return int16(le.Uint16(raw)), rcNone
	case typeInt32:
		return int32(le.Uint32(raw)), rcNone
	case typeInt64:
		return int64(le.Uint64(raw)), rcNone
	case typeFloat32:
		return math.Float32frombits(le.Uint32(raw)), rcNone
	case typeFloat64:
		return math.Float64frombits(le.Uint64(raw)), rcNone
	case typeNull:
		return nil, rcNone
	}
	return nil, rcPropertyTypeError
}

// props writes properties in order: the given order first, then any
// property it does not name (put through the mq port), sorted by name.
func (e *encoder) props(props mq.Properties, order []string) {
	names := make([]string, 0, len(props))
	seen := make(map[string]bool, len(order))
	for _, n := range order {
		if _, ok := props[n]; ok && !seen[n] {
			names = append(names, n)
			seen[n] = true
		}
	}
	var rest []string
	for n := range props {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	names = append(names, rest...)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(names)))
	le := binary.LittleEndian
	for _, n := range names {
		e.str(n)
		switch v := props[n].(type) {
		case string:
			e.i32(typeString)
			e.str(v)
		case []byte:
			e.i32(typeByteString)
			e.bytes(v)
		case bool:
			e.i32(typeBoolean)
			var b int32
			if v {
				b = 1
			}
			e.bytes(le.AppendUint32(nil, uint32(b)))
		case int8:
			e.i32(typeInt8)
			e.bytes([]byte{byte(v)})
		case int16:
			e.i32(typeInt16)
			e.bytes(le.AppendUint16(nil, uint16(v)))
		case int32:
			e.i32(typeInt32)
			e.bytes(le.AppendUint32(nil, uint32(v)))
		case int64:
			e.i32(typeInt64)
			e.bytes(le.AppendUint64(nil, uint64(v)))
		case float32:
			e.i32(typeFloat32)
			e.bytes(le.AppendUint32(nil, math.Float32bits(v)))
		case float64:
			e.i32(typeFloat64)
			e.bytes(le.AppendUint64(nil, math.Float64bits(v)))
		default: // nil; the port admits no other type
			e.i32(typeNull)
			e.bytes(nil)
		}
	}
}
