package handlers

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// descriptor holds the MQMD fields and properties every message of a
// PRODUCE shares, and sets the per-message ids.
type descriptor struct {
	msg    mq.Message
	echoID bool // correlIdMode echoMsgId: MsgId made here, CorrelId = MsgId
	rng    *rand.ChaCha8
}

// newDescriptor maps mqProps and headers onto a message; nil props mean
// non-persistent, priority 0, no expiry, no CorrelId.
func newDescriptor(props *command.MQProps, headers map[string]string, rng *rand.ChaCha8) (*descriptor, error) {
	d := &descriptor{rng: rng}
	m := &d.msg
	if len(headers) > 0 {
		m.Properties = make(mq.Properties, len(headers))
		for k, v := range headers {
			m.Properties[k] = v
		}
	}
	if props == nil {
		return d, nil
	}
	m.Persistent = props.Persistence == "persistent"
	m.Priority = int32(props.Priority)
	m.Expiry = time.Duration(props.ExpiryMs) * time.Millisecond
	switch props.CorrelIDMode {
	case command.CorrelEchoMsgID:
		d.echoID = true
	case command.CorrelFixed:
		raw, err := base64.StdEncoding.DecodeString(props.FixedCorrelIDBase64)
		if err != nil {
			return nil, fmt.Errorf("mqProps.fixedCorrelIdBase64: %w", err)
		}
		if m.CorrelID, err = mq.IDFromBytes(raw); err != nil {
			return nil, fmt.Errorf("mqProps.fixedCorrelIdBase64: %w", err)
		}
	}
	return d, nil
}

// setTraceParent makes the following messages carry the W3C trace context
// as the message property traceparent, so consumers can continue the trace.
func (d *descriptor) setTraceParent(tp string) {
	if tp == "" {
		return
	}
	if d.msg.Properties == nil {
		d.msg.Properties = mq.Properties{}
	}
	d.msg.Properties[traceParentProperty] = tp
}

// traceParentProperty is the message property carrying trace context.
const traceParentProperty = "traceparent"

// next returns the message to put with body; it is the same Message each
// time. In echoMsgId mode the MsgId is generated here (24 random bytes, as
// unique as a queue manager's) so the CorrelId can carry it in the same put.
func (d *descriptor) next(body []byte, format string) *mq.Message {
	d.msg.Payload = body
	d.msg.Format = format
	if d.echoID {
		d.rng.Read(d.msg.MsgID[:])
		d.msg.CorrelID = d.msg.MsgID
	}
	return &d.msg
}
