package handlers

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// CapturedMessage is one consumed or browsed message in CONSUME's result.
// PayloadBase64 may be shorter than SizeBytes when capture was
// capped.
type CapturedMessage struct {
	MsgIDBase64    string `json:"msgIdBase64"`
	CorrelIDBase64 string `json:"correlIdBase64"`
	PutTime        string `json:"putTime"` // RFC 3339, UTC
	Priority       int32  `json:"priority"`
	Persistence    string `json:"persistence"` // persistent | nonpersistent
	Format         string `json:"format"`
	SizeBytes      int    `json:"sizeBytes"`
	PayloadBase64  string `json:"payloadBase64"`
}

// Room an idempotency record keeps besides CONSUME's list of messages: its
// own attributes and the result's envelope (recordReserve), and the ids of
// a unit of work's unlisted messages, whose commit a checkpoint must let a
// resume check (maxDoubtIDs ids of doubtIDBytes each).
const (
	recordReserve = 16 * 1024
	maxDoubtIDs   = 512
	doubtIDBytes  = 40
)

// listBytes is the most JSON bytes CONSUME's list of messages may take so
// that a record of recordBytes holds it twice (the last checkpoint and the
// result) with room to spare; 0 when the store sets no limit.
func listBytes(recordBytes int) int {
	if recordBytes <= 0 {
		return 0
	}
	return max((recordBytes-recordReserve)/2-maxDoubtIDs*doubtIDBytes, 1)
}

// capture lists messages, keeping at most perMessage payload bytes of each
// and total payload bytes in all, within maxList JSON bytes of list. Once a
// message does not fit the list, it and every later one are counted, not
// listed (truncated): the list stays the first messages in order, and the
// count stays exact.
type capture struct {
	perMessage, total, used int
	maxList, listed         int // maxList 0: the list is unbounded
	truncated               bool
	omitPayloads            bool // includePayloads false: no payload is kept, which is no truncation
	messages                []CapturedMessage
	// counted messages were consumed but not listed; pending holds the
	// ids of those since the last settle, lastCounted the latest one and
	// lastSettled the latest one settled.
	counted                  int
	pending                  []string
	lastCounted, lastSettled string
}

func newCapture(l CaptureLimits) *capture {
	return &capture{perMessage: l.MaxMessageBytes, total: l.MaxBytes, maxList: listBytes(l.RecordBytes),
		messages: []CapturedMessage{}}
}

// count is how many messages the capture has seen, listed or not.
func (c *capture) count() int { return len(c.messages) + c.counted }

func (c *capture) add(m *mq.Message) {
	// The budget can be overspent by messages restored from an attempt
	// that ran under larger limits.
	keep := max(min(len(m.Payload), c.perMessage, c.total-c.used), 0)
	if c.omitPayloads {
		keep = 0
	}
	persistence := "nonpersistent"
	if m.Persistent {
		persistence = "persistent"
	}
	cm := CapturedMessage{
		MsgIDBase64:    encodeID(m.MsgID),
		CorrelIDBase64: encodeID(m.CorrelID),
		PutTime:        m.PutTime.UTC().Format(time.RFC3339Nano),
		Priority:       m.Priority,
		Persistence:    persistence,
		Format:         m.Format,
		SizeBytes:      len(m.Payload),
		PayloadBase64:  base64.StdEncoding.EncodeToString(m.Payload[:keep]),
	}
	size := listedSize(cm)
	if c.counted > 0 || (c.maxList > 0 && c.listed+size > c.maxList) {
		c.truncated = true
		c.counted++
		c.pending = append(c.pending, cm.MsgIDBase64)
		c.lastCounted = cm.MsgIDBase64
		return
	}
	if keep < len(m.Payload) && !c.omitPayloads {
		c.truncated = true
	}
	c.used += keep
	c.listed += size
	c.messages = append(c.messages, cm)
}

// settled forgets the ids of the counted messages now settled.
func (c *capture) settled() {
	if n := len(c.pending); n > 0 {
		c.lastSettled = c.pending[n-1]
	}
	c.pending = c.pending[:0]
}

// restore takes over what a previous attempt captured, charging the listed
// payloads to the budget.
func (c *capture) restore(msgs []CapturedMessage, truncated bool, counted int, lastCounted string) {
	c.messages = append(c.messages, msgs...)
	c.truncated = c.truncated || truncated || counted > 0
	c.counted += counted
	if lastCounted != "" {
		c.lastCounted, c.lastSettled = lastCounted, lastCounted
	}
	for _, m := range msgs {
		c.used += decodedLen(m.PayloadBase64)
		c.listed += listedSize(m)
	}
}

// listedSize is what m adds to the JSON of a list of messages.
func listedSize(m CapturedMessage) int {
	b, _ := json.Marshal(m)
	return len(b) + 1 // and a comma
}

// decodedLen is the length of padded standard base64 s once decoded.
func decodedLen(s string) int {
	return len(s)/4*3 - (len(s) - len(strings.TrimRight(s, "=")))
}
