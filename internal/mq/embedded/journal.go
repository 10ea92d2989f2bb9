package embedded

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// The journal keeps a queue manager's committed persistent messages on
// disk, so that they survive a restart as on IBM MQ; non-persistent ones
// do not. It is an append-only log of two kinds of record: a put (the
// whole message, when it becomes committed) and a delete (its id, when it
// leaves the queue for good). The log is fsynced where IBM MQ forces its
// log: at commit, and at a persistent put or get outside syncpoint.
//
// Compaction: when the records of messages gone (deletes and the puts
// they cancel) outnumber the live puts and the file is over
// compactMinBytes, the journal rewrites the file with only the live puts
// (to a temporary file, fsynced, renamed over the log). Recovery compacts
// too. The file is so bounded by about twice the live messages' size
// plus compactMinBytes, and the live messages by the queue manager's
// MaxBytes.
type journal struct {
	path string

	mu      sync.Mutex
	file    *os.File
	size    int64
	live    map[uint64]struct{} // ids of put records not deleted
	dead    int                 // delete records plus the put records they cancel
	nextID  uint64
	unsaved bool  // written since the last fsync
	err     error // the first write or fsync failure: the journal takes no more
}

// compactMinBytes is the size below which the journal is never
// rewritten: small logs cost little to replay.
const compactMinBytes = 1 << 20

// maxRecordLength bounds one record: a body up to IBM's largest MAXMSGL
// plus its descriptor and properties. A longer length is corruption.
const maxRecordLength = 100*1024*1024 + 16*1024*1024

// journalFile is where a queue manager's journal lives in a data directory.
func journalFile(dataDir, qmgr string) string {
	return filepath.Join(dataDir, qmgr, "messages.log")
}

const (
	// recordPutV1 is a put record written before the port carried CCSID
	// and Encoding: recovery gives its message the defaults a put of the
	// time got.
	recordPutV1  byte = 'P'
	recordPut    byte = 'Q' // recordPutV1's layout, then CCSID and Encoding
	recordDelete byte = 'D'
)

// recovered is a committed persistent message read back from the journal.
type recovered struct {
	id    uint64
	queue string
	m     *message
}

// openJournal replays the journal at path (created when missing),
// compacts it, and returns it with the messages it holds, in the order
// they were committed. A torn last record (a crash in mid-write) is cut
// off.
func openJournal(path string) (*journal, []recovered, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	j := &journal{path: path, live: make(map[uint64]struct{}), nextID: 1}
	msgs, err := j.replay()
	if err != nil {
		return nil, nil, err
	}
	if err := j.rewrite(); err != nil {
		return nil, nil, err
	}
	return j, msgs, nil
}

// replay reads every whole record of the log.
func (j *journal) replay() ([]recovered, error) {
	f, err := os.Open(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	byID := make(map[uint64]recovered)
	var order []uint64
	r := bufio.NewReader(f)
	for {
		body, err := readRecord(r)
		if err != nil {
			break // the end, or a torn or corrupt tail: what follows was never committed
		}
		switch body[0] {
		case recordPut, recordPutV1:
			rec, err := decodePut(body[1:], body[0])
			if err != nil {
				return nil, fmt.Errorf("journal %s: %w", j.path, err)
			}
			byID[rec.id] = rec
			order = append(order, rec.id)
			j.nextID = max(j.nextID, rec.id+1)
		case recordDelete:
			if len(body) != 9 {
				return nil, fmt.Errorf("journal %s: bad delete record", j.path)
			}
			delete(byID, binary.LittleEndian.Uint64(body[1:]))
		default:
			return nil, fmt.Errorf("journal %s: unknown record type %q", j.path, body[0])
		}
	}
	var msgs []recovered
	for _, id := range order {
		if rec, ok := byID[id]; ok {
			msgs = append(msgs, rec)
			j.live[id] = struct{}{}
		}
	}
	return msgs, nil
}

// readRecord reads one framed record: length, CRC-32C, body.
func readRecord(r io.Reader) ([]byte, error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:4])
	if n == 0 || n > maxRecordLength {
		return nil, errors.New("bad record length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(hdr[4:]) {
		return nil, errors.New("bad record checksum")
	}
	return body, nil
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func frame(body []byte) []byte {
	out := make([]byte, 8, 8+len(body))
	binary.LittleEndian.PutUint32(out[:4], uint32(len(body)))
	binary.LittleEndian.PutUint32(out[4:], crc32.Checksum(body, crcTable))
	return append(out, body...)
}

// rewrite replaces the log with its live put records. Callers hold j.mu
// or own j alone.
func (j *journal) rewrite() error {
	tmp := j.path + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("journal: compact: %w", err)
	}
	size, err := j.copyLive(out)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, j.path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(j.path))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: compact: %w", err)
	}
	if j.file != nil {
		j.file.Close()
	}
	if j.file, err = os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0o640); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.size, j.dead, j.unsaved = size, 0, false
	return nil
}

// copyLive writes the live put records of the current log to out and
// returns how many bytes it wrote.
func (j *journal) copyLive(out io.Writer) (int64, error) {
	f, err := os.Open(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriter(out)
	var size int64
	r := bufio.NewReader(f)
	for {
		body, err := readRecord(r)
		if err != nil {
			break
		}
		if (body[0] != recordPut && body[0] != recordPutV1) || len(body) < 9 {
			continue
		}
		if _, ok := j.live[binary.LittleEndian.Uint64(body[1:])]; !ok {
			continue
		}
		rec := frame(body)
		if _, err := w.Write(rec); err != nil {
			return 0, err
		}
		size += int64(len(rec))
	}
	return size, w.Flush()
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// logPut records m, committed on queue, and gives it its journal id.
func (j *journal) logPut(queue string, m *message) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	m.logID = j.nextID
	j.nextID++
	j.live[m.logID] = struct{}{}
	j.appendLocked(encodePut(m.logID, queue, m))
}

// logDelete records that the message with journal id has gone for good.
func (j *journal) logDelete(id uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	if _, ok := j.live[id]; !ok {
		return
	}
	delete(j.live, id)
	j.dead += 2
	var body [9]byte
	body[0] = recordDelete
	binary.LittleEndian.PutUint64(body[1:], id)
	j.appendLocked(body[:])
}

func (j *journal) appendLocked(body []byte) {
	rec := frame(body)
	if _, err := j.file.Write(rec); err != nil {
		j.err = fmt.Errorf("journal %s: %w", j.path, err)
		return
	}
	j.size += int64(len(rec))
	j.unsaved = true
}

// sync forces what was written to disk, compacting first when the dead
// records outnumber the live ones. It returns the journal's first failure,
// if it has failed.
func (j *journal) sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil || !j.unsaved {
		return j.err
	}
	if j.dead > len(j.live) && j.size > compactMinBytes {
		if err := j.rewrite(); err != nil {
			j.err = err
		}
		return j.err
	}
	if err := j.file.Sync(); err != nil {
		j.err = fmt.Errorf("journal %s: %w", j.path, err)
		return j.err
	}
	j.unsaved = false
	return nil
}

// failure is the journal's first failure, if any.
func (j *journal) failure() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.file == nil {
		return nil
	}
	err := j.file.Sync()
	if cerr := j.file.Close(); err == nil {
		err = cerr
	}
	j.file = nil
	if j.err == nil {
		j.err = errors.New("journal closed")
	}
	return err
}

// Put record layout, after the type byte: id, queue name, then the
// message's fields in the order of encodePut.

func encodePut(id uint64, queue string, m *message) []byte {
	b := make([]byte, 0, 256+len(m.payload))
	b = append(b, recordPut)
	b = binary.LittleEndian.AppendUint64(b, id)
	b = appendString(b, queue)
	b = append(b, m.msgID[:]...)
	b = append(b, m.correlID[:]...)
	b = appendString(b, m.format)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.priority))
	b = binary.LittleEndian.AppendUint64(b, uint64(m.expiresAt))
	b = binary.LittleEndian.AppendUint64(b, uint64(m.putTime.UnixNano()))
	b = appendString(b, m.replyToQ)
	b = appendString(b, m.replyToQMgr)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.backoutCount))
	if m.desc != nil {
		b = append(b, 1)
		var err error
		if b, err = binary.Append(b, binary.LittleEndian, m.desc); err != nil {
			panic("embedded: journal: Descriptor is not fixed-size: " + err.Error())
		}
	} else {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.propOrder)))
	for _, name := range m.propOrder {
		b = appendString(b, name)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.props)))
	for name, v := range m.props {
		b = appendString(b, name)
		b = appendProperty(b, v)
	}
	b = appendBytes(b, m.payload)
	b = binary.LittleEndian.AppendUint32(b, uint32(m.ccsid))
	return binary.LittleEndian.AppendUint32(b, uint32(m.encoding))
}

// decodePut reads a put record's body of the type recordPut or
// recordPutV1.
func decodePut(b []byte, recordType byte) (recovered, error) {
	d := decoder{b: b}
	rec := recovered{id: d.u64(), queue: d.str(), m: &message{persistent: true}}
	m := rec.m
	copy(m.msgID[:], d.take(mq.IDLength))
	copy(m.correlID[:], d.take(mq.IDLength))
	m.format = d.str()
	m.priority = int32(d.u32())
	m.expiresAt = int64(d.u64())
	m.putTime = time.Unix(0, int64(d.u64()))
	m.replyToQ = d.str()
	m.replyToQMgr = d.str()
	m.backoutCount = int32(d.u32())
	if hasDesc := d.take(1); len(hasDesc) == 1 && hasDesc[0] == 1 {
		var desc Descriptor
		n, err := binary.Decode(d.b, binary.LittleEndian, &desc)
		if err != nil {
			return recovered{}, fmt.Errorf("put record %d: descriptor: %w", rec.id, err)
		}
		d.take(n)
		m.desc = &desc
	}
	if n := d.u32(); n > 0 && d.err == nil {
		for range min(n, uint32(len(d.b))) {
			m.propOrder = append(m.propOrder, d.str())
		}
	}
	if n := d.u32(); n > 0 && d.err == nil {
		m.props = make(mq.Properties)
		for range min(n, uint32(len(d.b))) {
			name := d.str()
			m.props[name] = d.property()
		}
	}
	m.payload = d.bytes()
	switch {
	case recordType == recordPut:
		m.ccsid, m.encoding = int32(d.u32()), int32(d.u32())
	case m.desc != nil:
		m.ccsid, m.encoding = putCCSID(m.desc.CodedCharSetID), m.desc.Encoding
	default:
		m.ccsid, m.encoding = putCCSID(mq.CCSIDQueueManager), mq.EncodingNative
	}
	if d.err != nil || len(d.b) != 0 {
		return recovered{}, fmt.Errorf("put record %d: malformed", rec.id)
	}
	return rec, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendBytes(b, p []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	return append(b, p...)
}

// Property value tags: one per mq.Properties value type.
const (
	propNull byte = iota
	propString
	propBool
	propInt8
	propInt16
	propInt32
	propInt64
	propFloat32
	propFloat64
	propBytes
)

func appendProperty(b []byte, v any) []byte {
	le := binary.LittleEndian
	switch v := v.(type) {
	case string:
		return appendString(append(b, propString), v)
	case bool:
		if v {
			return append(b, propBool, 1)
		}
		return append(b, propBool, 0)
	case int8:
		return append(b, propInt8, byte(v))
	case int16:
		return le.AppendUint16(append(b, propInt16), uint16(v))
	case int32:
		return le.AppendUint32(append(b, propInt32), uint32(v))
	case int64:
		return le.AppendUint64(append(b, propInt64), uint64(v))
	case float32:
		return le.AppendUint32(append(b, propFloat32), math.Float32bits(v))
	case float64:
		return le.AppendUint64(append(b, propFloat64), math.Float64bits(v))
	case []byte:
		return appendBytes(append(b, propBytes), v)
	default: // nil: put validation admits no other type
		return append(b, propNull)
	}
}

// decoder reads a record; the first short read sets err and every later
// read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.err = errors.New("short record")
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) u16() uint16 {
	if p := d.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) bytes() []byte {
	n := d.u32()
	return append([]byte(nil), d.take(int(n))...)
}

func (d *decoder) str() string { return string(d.take(int(d.u32()))) }

func (d *decoder) property() any {
	tag := d.take(1)
	if tag == nil {
		return nil
	}
	switch tag[0] {
	case propString:
		return d.str()
	case propBool:
		p := d.take(1)
		return p != nil && p[0] == 1
	case propInt8:
		if p := d.take(1); p != nil {
			return int8(p[0])
		}
		return int8(0)
	case propInt16:
		return int16(d.u16())
	case propInt32:
		return int32(d.u32())
	case propInt64:
		return int64(d.u64())
	case propFloat32:
		return math.Float32frombits(d.u32())
	case propFloat64:
		return math.Float64frombits(d.u64())
	case propBytes:
		return d.bytes()
	case propNull:
		return nil
	}
	d.err = fmt.Errorf("unknown property type %d", tag[0])
	return nil
}
