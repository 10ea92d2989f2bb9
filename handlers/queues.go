package handlers

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
)

// Reading a queue for display (the console's queue views) is no command:
// no idempotency record, no result event. These functions run the same MQ
// code as DEPTH and REDRIVE's browse, on a connection the caller's
// Connector lends.

// ErrSystemQueue refuses a SYSTEM.* queue other than the queue manager's
// dead-letter queue.
var ErrSystemQueue = errors.New("SYSTEM.* queues are refused, except the queue manager's dead-letter queue (DEADQ)")

// QueueHealth is DEPTH's result for queue on target, judged against
// thresholds when they are given.
func QueueHealth(ctx context.Context, conns Connector, target mq.Target, queue string, thresholds *command.Thresholds) (DepthResult, error) {
	run := Run{Command: command.Command{Thresholds: thresholds}, Target: target, Queue: queue, Conns: conns}
	if err := refuseSystemQueue(ctx, run); err != nil {
		return DepthResult{}, err
	}
	res, err := depth(ctx, run)
	if err != nil {
		return DepthResult{}, err
	}
	return res.(DepthResult), nil
}

// BrowseLimits bound one browse.
type BrowseLimits struct {
	// Messages is the most messages one page lists.
	Messages int
	// PayloadBytes is the most payload bytes shown of each message.
	PayloadBytes int
}

// BrowseResult is one page of a queue's messages, browsed (not removed)
// from the first.
type BrowseResult struct {
	Queue        string           `json:"queue"`
	QueueManager string           `json:"queueManager"`
	Messages     []BrowsedMessage `json:"messages"`
	// More says the queue holds messages after this page.
	More bool `json:"more"`
}

// BrowsedMessage is one message: its MQMD, its properties and the first
// bytes of its payload; a dead-lettered one's MQDLH decoded.
type BrowsedMessage struct {
	Position     int            `json:"position"` // 1 is the first on the queue
	MsgID        string         `json:"msgId"`    // hex, as IBM's tools print it
	CorrelID     string         `json:"correlId"` // hex
	PutTime      time.Time      `json:"putTime"`
	Format       string         `json:"format"`
	Persistence  string         `json:"persistence"` // persistent | nonpersistent
	Priority     int32          `json:"priority"`
	ExpirySecs   *float64       `json:"expirySeconds,omitempty"` // the time left; absent when unlimited
	ReplyToQ     string         `json:"replyToQ,omitempty"`
	ReplyToQMgr  string         `json:"replyToQMgr,omitempty"`
	BackoutCount int32          `json:"backoutCount"`
	Properties   map[string]any `json:"properties,omitempty"`
	SizeBytes    int            `json:"sizeBytes"`
	// PayloadBase64 holds at most BrowseLimits.PayloadBytes of the payload
	// (after the MQDLH of a dead-lettered message); PayloadTruncated says
	// when it holds less than all.
	PayloadBase64    string            `json:"payloadBase64"`
	PayloadTruncated bool              `json:"payloadTruncated"`
	DeadLetterHeader *DeadLetterHeader `json:"deadLetterHeader,omitempty"`
}

// DeadLetterHeader is a dead-lettered message's MQDLH.
type DeadLetterHeader struct {
	Reason               int32     `json:"reason"`
	ReasonName           string    `json:"reasonName"`
	OriginalQueue        string    `json:"originalQueue"`
	OriginalQueueManager string    `json:"originalQueueManager"`
	PutApplName          string    `json:"putApplName"`
	PutApplType          int32     `json:"putApplType"`
	DeadLetteredAt       time.Time `json:"deadLetteredAt,omitzero"`
	Format               string    `json:"format"`
	CCSID                int32     `json:"ccsid"`
	Encoding             int32     `json:"encoding"`
}

func deadLetterHeader(h mq.DeadLetterHeader) DeadLetterHeader {
	return DeadLetterHeader{Reason: int32(h.Reason), ReasonName: reasonKey(h.Reason),
		OriginalQueue: h.DestQueue, OriginalQueueManager: h.DestQMgr, PutApplName: h.PutApplName, PutApplType: h.PutApplType,
		DeadLetteredAt: h.PutTime, Format: h.Format, CCSID: h.CCSID, Encoding: h.Encoding}
}

// BrowseQueue lists the first messages of queue on target without removing
// them, within limits.
func BrowseQueue(ctx context.Context, conns Connector, target mq.Target, queue string, limits BrowseLimits) (BrowseResult, error) {
	run := Run{Target: target, Queue: queue, Conns: conns}
	if err := refuseSystemQueue(ctx, run); err != nil {
		return BrowseResult{}, err
	}
	conn, q, err := openQueue(ctx, run, "browse", mq.OpenBrowse)
	if err != nil {
		return BrowseResult{}, err
	}
	defer conn.Close()
	res := BrowseResult{Queue: queue, QueueManager: target.QueueManager, Messages: []BrowsedMessage{}}
	var msg mq.Message
	mode := mq.BrowseFirst
	for {
		err := q.Get(ctx, &msg, mq.GetOptions{Browse: mode})
		mode = mq.BrowseNext
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return res, nil
		}
		if err != nil {
			return BrowseResult{}, fmt.Errorf("browse %s: %w", queue, withCause(ctx, err))
		}
		if len(res.Messages) == limits.Messages {
			res.More = true
			return res, nil
		}
		res.Messages = append(res.Messages, browsed(&msg, len(res.Messages)+1, limits.PayloadBytes))
	}
}

func browsed(m *mq.Message, position, payloadBytes int) BrowsedMessage {
	persistence := "nonpersistent"
	if m.Persistent {
		persistence = "persistent"
	}
	b := BrowsedMessage{Position: position, MsgID: m.MsgID.String(), CorrelID: m.CorrelID.String(), PutTime: m.PutTime.UTC(),
		Format: m.Format, Persistence: persistence, Priority: m.Priority, ReplyToQ: m.ReplyToQ, ReplyToQMgr: m.ReplyToQMgr,
		BackoutCount: m.BackoutCount, SizeBytes: len(m.Payload)}
	if m.Expiry > 0 {
		secs := m.Expiry.Seconds()
		b.ExpirySecs = &secs
	}
	if len(m.Properties) > 0 {
		b.Properties = make(map[string]any, len(m.Properties))
		for k, v := range m.Properties {
			b.Properties[k] = propertyJSON(v)
		}
	}
	body := m.Payload
	if m.Format == mq.FormatDeadLetterHeader {
		if h, rest, err := mq.DecodeDeadLetterHeader(m.Payload); err == nil {
			dlh := deadLetterHeader(h)
			b.DeadLetterHeader = &dlh
			body = rest
		}
	}
	keep := min(len(body), payloadBytes)
	b.PayloadBase64 = base64.StdEncoding.EncodeToString(body[:keep])
	b.PayloadTruncated = keep < len(body)
	return b
}

// propertyJSON is a property value as JSON carries it: a byte string in
// base64 (as encoding/json writes []byte), a float that JSON cannot hold
// (NaN, ±Inf) as its name, the rest as itself.
func propertyJSON(v any) any {
	switch f := v.(type) {
	case float64:
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprint(f)
		}
	case float32:
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return fmt.Sprint(f)
		}
	}
	return v
}

// refuseSystemQueue refuses run.Queue when it is a SYSTEM.* queue other
// than the queue manager's dead-letter queue.
func refuseSystemQueue(ctx context.Context, run Run) error {
	if !mq.IsSystemQueue(run.Queue) {
		return nil
	}
	var info mq.QueueManagerInfo
	err := readOnly(ctx, run, func(conn *mq.PooledConn) (err error) {
		info, err = conn.InquireQueueManager(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: inquire the dead-letter queue's name: %w", run.Queue, err)
	}
	if info.DeadLetterQueue == run.Queue {
		return nil
	}
	return fmt.Errorf("%s: %w", run.Queue, ErrSystemQueue)
}
