package mq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Dead-letter header constants (cmqc.h).
const (
	// DeadLetterHeaderLength is MQDLH_LENGTH_1: the version 1 header, the
	// only version IBM MQ defines.
	DeadLetterHeaderLength = 172
	// FormatDeadLetterHeader is MQFMT_DEAD_LETTER_HEADER, the MQMD Format of
	// a message that starts with an MQDLH.
	FormatDeadLetterHeader = "MQDEAD"

	dlhStrucID = "DLH "
	dlhVersion = 1

	// MQENC_NATIVE of little-endian (x86, POWER Linux) and big-endian (AIX,
	// z/OS) platforms: the Encoding an MQDLH names for the data after it.
	EncodingNativeLittle = 546
	EncodingNativeBig    = 273
)

// DeadLetterHeader is an MQDLH: why a queue manager (or an application)
// put a message on the dead-letter queue, and where it was going. The
// Encoding, CCSID and Format are those of the data after the header, to
// restore when the message is put back.
type DeadLetterHeader struct {
	Reason      Reason // MQRC_* or MQFB_* code
	DestQueue   string // DestQName: the queue the message was for
	DestQMgr    string // DestQMgrName
	Encoding    int32  // of the data after the header
	CCSID       int32  // of the data after the header
	Format      string // of the data after the header, blanks trimmed
	PutApplType int32  // MQAT_* of the application that dead-lettered it
	PutApplName string
	PutTime     time.Time // when it was put on the dead-letter queue (UTC); zero when unreadable
	BigEndian   bool      // the header's integers are big-endian (MQENC_INTEGER_NORMAL)
}

// ErrNotDeadLetterHeader is returned by DecodeDeadLetterHeader for data
// that does not start with an MQDLH.
var ErrNotDeadLetterHeader = errors.New("mq: no MQDLH: data does not start with StrucId \"DLH \" version 1")

// DecodeDeadLetterHeader reads the MQDLH at the start of data (character
// fields in an ASCII CCSID, integers in either byte order: the version
// field, always 1, tells which) and returns it with the data after it.
func DecodeDeadLetterHeader(data []byte) (DeadLetterHeader, []byte, error) {
	var h DeadLetterHeader
	if len(data) < DeadLetterHeaderLength || string(data[0:4]) != dlhStrucID {
		return h, nil, ErrNotDeadLetterHeader
	}
	var order binary.ByteOrder
	switch {
	case binary.BigEndian.Uint32(data[4:8]) == dlhVersion:
		order, h.BigEndian = binary.BigEndian, true
	case binary.LittleEndian.Uint32(data[4:8]) == dlhVersion:
		order = binary.LittleEndian
	default:
		return h, nil, ErrNotDeadLetterHeader
	}
	long := func(off int) int32 { return int32(order.Uint32(data[off : off+4])) }
	char := func(off, n int) string {
		return strings.TrimRight(string(bytes.TrimRight(data[off:off+n], "\x00")), " ")
	}
	h.Reason = Reason(long(8))
	h.DestQueue = char(12, 48)
	h.DestQMgr = char(60, 48)
	h.Encoding = long(108)
	h.CCSID = long(112)
	h.Format = char(116, 8)
	h.PutApplType = long(124)
	h.PutApplName = char(128, 28)
	date, clock := char(156, 8), char(164, 8)
	if t, err := time.Parse("20060102150405", date+clock[:min(len(clock), 6)]); err == nil {
		if len(clock) == 8 { // HHMMSSTH: hundredths
			var th int
			if _, err := fmt.Sscanf(clock[6:], "%02d", &th); err == nil {
				t = t.Add(time.Duration(th) * 10 * time.Millisecond)
			}
		}
		h.PutTime = t.UTC()
	}
	return h, data[DeadLetterHeaderLength:], nil
}

// Encode writes h as IBM MQ does (amqsdlh, the queue manager): 172 bytes,
// blank-padded character fields, integers in the byte order BigEndian
// names, PutDate and PutTime from PutTime in UTC as YYYYMMDD and
// HHMMSSTH. Names longer than their fields are an error.
func (h DeadLetterHeader) Encode() ([]byte, error) {
	b := make([]byte, DeadLetterHeaderLength)
	var order binary.ByteOrder = binary.LittleEndian
	if h.BigEndian {
		order = binary.BigEndian
	}
	var err error
	char := func(off, n int, field, s string) {
		if len(s) > n {
			err = errors.Join(err, fmt.Errorf("mq: MQDLH %s %q is longer than %d characters", field, s, n))
			return
		}
		copy(b[off:off+n], s+strings.Repeat(" ", n-len(s)))
	}
	long := func(off int, v int32) { order.PutUint32(b[off:off+4], uint32(v)) }
	copy(b[0:4], dlhStrucID)
	long(4, dlhVersion)
	long(8, int32(h.Reason))
	char(12, 48, "DestQName", h.DestQueue)
	char(60, 48, "DestQMgrName", h.DestQMgr)
	long(108, h.Encoding)
	long(112, h.CCSID)
	char(116, 8, "Format", h.Format)
	long(124, h.PutApplType)
	char(128, 28, "PutApplName", h.PutApplName)
	var date, clock string
	if !h.PutTime.IsZero() {
		t := h.PutTime.UTC()
		date = t.Format("20060102")
		clock = t.Format("150405") + fmt.Sprintf("%02d", t.Nanosecond()/int(10*time.Millisecond))
	}
	char(156, 8, "PutDate", date)
	char(164, 8, "PutTime", clock)
	if err != nil {
		return nil, err
	}
	return b, nil
}
