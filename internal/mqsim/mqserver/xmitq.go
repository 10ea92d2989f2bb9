package mqserver

import (
	"encoding/binary"
)

// Transmission headers: a put to a remote queue definition places the
// message on its transmission queue prefixed with an MQXQH (MQFMT_XMIT_Q_HEADER),
// which names the destination and carries the application's MQMD, as IBM
// MQ does for the channel that would move it on (no channel does here).

const (
	xqhLength     = 428 // MQXQH_LENGTH_1: StrucId, Version, two names, an MQMD version 1
	mdLength1     = 324 // MQMD_LENGTH_1
	fmtXmitQHdr   = "MQXMIT"
	xqhStrucID    = "XQH "
	xqhVersion1   = 1
	objectNameLen = 48
)

// xmitMessage is what a put to a remote definition stores on the
// transmission queue: its MQMD (the application's, in the format of a
// transmission header, the queue manager's encoding and CCSID) and data
// (the MQXQH for remoteQ at remoteQMgr carrying app, then the application's
// data).
func xmitMessage(app *md, remoteQ, remoteQMgr string, data []byte) (md, []byte) {
	out := make([]byte, 0, xqhLength+len(data))
	out = append(out, xqhStrucID...)
	out = binary.LittleEndian.AppendUint32(out, xqhVersion1)
	name := make([]byte, objectNameLen)
	fixed(name, remoteQ)
	out = append(out, name...)
	fixed(name, remoteQMgr)
	out = append(out, name...)
	v1 := *app
	v1.Version = mdVersion1
	var e encoder
	e.md(&v1)
	out = append(out, e.buf[:mdLength1]...)
	out = append(out, data...)

	xmit := *app
	fixed(xmit.Format[:], fmtXmitQHdr)
	xmit.Encoding, xmit.CodedCharSetID = encNative, qmgrCCSID
	return xmit, out
}
