package handlers

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// payload builds PRODUCE's message bodies into one reused buffer, so a batch
// allocates nothing per message whatever its mode:
//   - random: size bytes of PRNG output made once; each message differs by
//     its sequence number written over the first 8 bytes (little endian, so
//     shorter bodies still vary). Format MQFMT_NONE.
//   - fixed: the decoded fixedBase64, sent as is when size is 0 or equal to
//     its length, otherwise repeated or truncated to size. Format MQSTR when
//     the body is valid UTF-8, MQFMT_NONE otherwise.
//   - template: the template with {{seq}}, {{uuid}} and {{timestamp}}
//     (RFC 3339, nanoseconds, UTC: when the body was rendered, which for
//     puts made in one call is just before that call) substituted; the
//     rendered text is the whole body, size is ignored. Format MQSTR.
//
// seq is the message's 1-based position in the command, so a resumed batch
// renders the same numbers as the attempt it replaces.
type payload struct {
	mode     command.PayloadMode
	body     []byte
	segments []segment // template mode only
	rng      *rand.ChaCha8
	format   string

	// run holds a run's bodies back to back (see nextRun); in random and
	// fixed mode its first copies bodies are body's bytes, seq aside.
	run    []byte
	copies int
}

func newPayload(p *command.Payload, size int, rng *rand.ChaCha8) (*payload, error) {
	mode := command.PayloadRandom
	if p != nil && p.Mode != "" {
		mode = p.Mode
	}
	switch mode {
	case command.PayloadRandom:
		body := make([]byte, size)
		rng.Read(body)
		return &payload{mode: mode, body: body, format: mq.FormatNone}, nil
	case command.PayloadFixed:
		base, err := base64.StdEncoding.DecodeString(p.FixedBase64)
		if err != nil {
			return nil, fmt.Errorf("payload.fixedBase64: %w", err)
		}
		body := fitToSize(base, size)
		format := mq.FormatNone
		if utf8.Valid(body) {
			format = mq.FormatString
		}
		return &payload{mode: mode, body: body, format: format}, nil
	case command.PayloadTemplate:
		return &payload{mode: mode, segments: compileTemplate(p.Template), rng: rng, format: mq.FormatString}, nil
	}
	return nil, fmt.Errorf("payload.mode: unknown mode %q", mode)
}

// fitToSize repeats or truncates base to size bytes; size 0 keeps base.
func fitToSize(base []byte, size int) []byte {
	if size == 0 || size == len(base) {
		return base
	}
	body := make([]byte, size)
	if len(base) > 0 {
		for n := 0; n < size; {
			n += copy(body[n:], base)
		}
	}
	return body
}

// next returns message seq's body; it stays valid until the next call.
func (p *payload) next(seq int64) []byte {
	switch p.mode {
	case command.PayloadTemplate:
		p.body = p.render(p.body[:0], seq)
	case command.PayloadRandom:
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(seq))
		copy(p.body, b[:])
	}
	return p.body
}

// nextRun returns the bodies of up to n messages from seq back to back,
// stopping once they reach limit bytes, with each one's end appended to
// ends; valid until the next call. Random and fixed bodies differ only in
// the sequence number, so a run is copied once and then only restamped.
func (p *payload) nextRun(seq int64, n, limit int, ends []int32) ([]byte, []int32) {
	if p.mode == command.PayloadTemplate {
		p.run = p.run[:0]
		for i := 0; i < n && len(p.run) < limit; i++ {
			p.run = p.render(p.run, seq+int64(i))
			ends = append(ends, int32(len(p.run)))
		}
		return p.run, ends
	}
	size := len(p.body)
	if size > 0 {
		n = min(n, (limit+size-1)/size)
	}
	for p.copies < n {
		p.run = append(p.run[:p.copies*size], p.body...)
		p.copies++
	}
	for i := range n {
		if p.mode == command.PayloadRandom {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], uint64(seq+int64(i)))
			copy(p.run[i*size:(i+1)*size], b[:])
		}
		ends = append(ends, int32((i+1)*size))
	}
	return p.run[:n*size], ends
}

type segmentKind uint8

const (
	segLiteral segmentKind = iota
	segSeq
	segUUID
	segTimestamp
)

// segment is a compiled piece of a template: literal text or a placeholder.
type segment struct {
	kind segmentKind
	text []byte
}

var placeholders = map[string]segmentKind{"seq": segSeq, "uuid": segUUID, "timestamp": segTimestamp}

// compileTemplate splits t into literals and placeholders once, so
// rendering is appends only. Unknown {{names}} stay literal text.
func compileTemplate(t string) []segment {
	var segs []segment
	var lit []byte
	for {
		open := strings.Index(t, "{{")
		if open < 0 {
			break
		}
		end := strings.Index(t[open+2:], "}}")
		if end < 0 {
			break
		}
		name := strings.TrimSpace(t[open+2 : open+2+end])
		kind, ok := placeholders[name]
		if !ok {
			lit = append(lit, t[:open+2+end+2]...)
			t = t[open+2+end+2:]
			continue
		}
		lit = append(lit, t[:open]...)
		if len(lit) > 0 {
			segs = append(segs, segment{kind: segLiteral, text: lit})
			lit = nil
		}
		segs = append(segs, segment{kind: kind})
		t = t[open+2+end+2:]
	}
	if lit = append(lit, t...); len(lit) > 0 {
		segs = append(segs, segment{kind: segLiteral, text: lit})
	}
	return segs
}

func (p *payload) render(dst []byte, seq int64) []byte {
	for _, s := range p.segments {
		switch s.kind {
		case segLiteral:
			dst = append(dst, s.text...)
		case segSeq:
			dst = strconv.AppendInt(dst, seq, 10)
		case segUUID:
			dst = appendUUID(dst, p.rng)
		case segTimestamp:
			dst = time.Now().UTC().AppendFormat(dst, time.RFC3339Nano)
		}
	}
	return dst
}

// appendUUID appends a random (version 4) UUID in its text form.
func appendUUID(dst []byte, rng *rand.ChaCha8) []byte {
	var u [16]byte
	rng.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	const hexDigits = "0123456789abcdef"
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[b>>4], hexDigits[b&0x0f])
	}
	return dst
}
