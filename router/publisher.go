package router

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/mqprobe/mqprobe/internal/result"
)

// ResultPublisher publishes result events as watermill messages on topic,
// with metadata subscribers can filter on (SQS/SNS message attributes in
// aws mode).
type ResultPublisher struct {
	pub   message.Publisher
	topic string
}

// NewResultPublisher returns a publisher of result events to topic on pub.
func NewResultPublisher(pub message.Publisher, topic string) *ResultPublisher {
	return &ResultPublisher{pub: pub, topic: topic}
}

// Publish implements result.Publisher.
func (p *ResultPublisher) Publish(ctx context.Context, e result.Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode result event: %w", err)
	}
	msg := message.NewMessage(watermill.NewUUID(), body)
	msg.SetContext(ctx)
	msg.Metadata.Set("type", string(e.Type))
	msg.Metadata.Set("operationType", e.Data.OperationType)
	msg.Metadata.Set("status", string(e.Data.Status))
	msg.Metadata.Set("idempotencyKey", e.Data.IdempotencyKey)
	if e.TraceParent != "" {
		msg.Metadata.Set("traceparent", e.TraceParent)
	}
	if err := p.pub.Publish(p.topic, msg); err != nil {
		return fmt.Errorf("publish result to %s: %w", p.topic, err)
	}
	return nil
}
