package handlers

import (
	"encoding/base64"
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

// capture lists messages, keeping at most perMessage payload bytes of each
// and total payload bytes in all; every message is listed even once the
// payload budget is spent.
type capture struct {
	perMessage, total, used int
	truncated               bool
	messages                []CapturedMessage
}

func newCapture(l CaptureLimits) *capture {
	return &capture{perMessage: l.MaxMessageBytes, total: l.MaxBytes, messages: []CapturedMessage{}}
}

func (c *capture) add(m *mq.Message) {
	// The budget can be overspent by messages restored from an attempt
	// that ran under larger limits.
	keep := max(min(len(m.Payload), c.perMessage, c.total-c.used), 0)
	if keep < len(m.Payload) {
		c.truncated = true
	}
	c.used += keep
	persistence := "nonpersistent"
	if m.Persistent {
		persistence = "persistent"
	}
	c.messages = append(c.messages, CapturedMessage{
		MsgIDBase64:    encodeID(m.MsgID),
		CorrelIDBase64: encodeID(m.CorrelID),
		PutTime:        m.PutTime.UTC().Format(time.RFC3339Nano),
		Priority:       m.Priority,
		Persistence:    persistence,
		Format:         m.Format,
		SizeBytes:      len(m.Payload),
		PayloadBase64:  base64.StdEncoding.EncodeToString(m.Payload[:keep]),
	})
}

// restore takes over messages a previous attempt captured, charging their
// payloads to the budget.
func (c *capture) restore(msgs []CapturedMessage, truncated bool) {
	c.messages = append(c.messages, msgs...)
	c.truncated = c.truncated || truncated
	for _, m := range msgs {
		c.used += decodedLen(m.PayloadBase64)
	}
}

// decodedLen is the length of padded standard base64 s once decoded.
func decodedLen(s string) int {
	return len(s)/4*3 - (len(s) - len(strings.TrimRight(s, "=")))
}
