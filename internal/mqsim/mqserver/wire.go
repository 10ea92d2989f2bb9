package mqserver

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Operations (PROTOCOL.md, "Calls"). A reply carries its request's op with
// opReply set.
const (
	opConnect uint16 = 1
	opDisc    uint16 = 2
	opOpen    uint16 = 3
	opClose   uint16 = 4
	opPut     uint16 = 5
	opPut1    uint16 = 6
	opGet     uint16 = 7
	opInq     uint16 = 8
	opCmit    uint16 = 9
	opBack    uint16 = 10
	opStat    uint16 = 11 // async.go
	opSet     uint16 = 12 // set.go
	opReply   uint16 = 1 << 15
)

// MaxFrameBody is the largest frame body either side accepts: 100 MiB of
// message data (IBM's largest MAXMSGL) plus 64 KiB for the rest.
const MaxFrameBody = 104857600 + 65536

// protocolVersion is CONNECT's version field.
const protocolVersion = 1

// errProtocol marks a frame the peer should not have sent; the connection
// is closed.
var errProtocol = errors.New("mqserver: protocol error")

// readFrame reads one frame into buf (grown as needed) and returns its op
// and body.
func readFrame(r *bufio.Reader, buf []byte) (op uint16, body, newBuf []byte, err error) {
	op, _, body, newBuf, err = readFrameFlags(r, buf)
	return op, body, newBuf, err
}

// readFrameFlags is readFrame with the frame's flags.
func readFrameFlags(r *bufio.Reader, buf []byte) (op, flags uint16, body, newBuf []byte, err error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, 0, nil, buf, err
	}
	length := binary.LittleEndian.Uint32(hdr[0:4])
	if length < 4 || length-4 > MaxFrameBody {
		return 0, 0, nil, buf, fmt.Errorf("%w: frame length %d outside 4..%d", errProtocol, length, MaxFrameBody+4)
	}
	op = binary.LittleEndian.Uint16(hdr[4:6])
	flags = binary.LittleEndian.Uint16(hdr[6:8])
	n := int(length - 4)
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	body = buf[:n]
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, 0, nil, buf, err
	}
	return op, flags, body, buf, nil
}

// writeFrame writes one frame and flushes it.
func writeFrame(w *bufio.Writer, op uint16, body []byte) error {
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[0:4], uint32(len(body)+4))
	binary.LittleEndian.PutUint16(hdr[4:6], op)
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	return w.Flush()
}

// encoder appends PROTOCOL.md's encodings to buf.
type encoder struct{ buf []byte }

func (e *encoder) i32(v int32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(v)) }

func (e *encoder) bytes(b []byte) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(b)))
	e.buf = append(e.buf, b...)
}

func (e *encoder) str(s string) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) i32s(vs []int32) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(vs)))
	for _, v := range vs {
		e.i32(v)
	}
}

// decoder reads PROTOCOL.md's encodings from a body; the first short read
// sets err and every later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = fmt.Errorf("%w: body ends early", errProtocol)
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) i32() int32 {
	b := d.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.LittleEndian.Uint32(b))
}

func (d *decoder) count() int {
	b := d.take(4)
	if b == nil {
		return 0
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(d.b)) || n > math.MaxInt32 {
		d.err = fmt.Errorf("%w: length %d beyond the body", errProtocol, n)
		return 0
	}
	return int(n)
}

// bytes returns a slice of the body: copy it if it must outlive the frame.
func (d *decoder) bytes() []byte { return d.take(d.count()) }

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) i32s() []int32 {
	n := d.count()
	if n > len(d.b)/4 {
		d.err = fmt.Errorf("%w: %d integers beyond the body", errProtocol, n)
		return nil
	}
	vs := make([]int32, n)
	for i := range vs {
		vs[i] = d.i32()
	}
	return vs
}

// end reports a decoding error, or bytes left over.
func (d *decoder) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d bytes after the last field", errProtocol, len(d.b))
	}
	return d.err
}
