package router

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestInProcessTransport: what POST /commands submits reaches the command
// subscription with its metadata and a message id, results go to the
// results topic, and after StopIntake nothing more is taken.
func TestInProcessTransport(t *testing.T) {
	tr, err := NewTransport(t.Context(), TransportConfig{Mode: config.ModeEmbedded})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	commands, err := tr.Commands.Subscribe(t.Context(), CommandsTopic)
	if err != nil {
		t.Fatal(err)
	}
	results, err := tr.bus.Subscribe(t.Context(), ResultsTopic)
	if err != nil {
		t.Fatal(err)
	}

	id, err := tr.Submit(t.Context(), []byte(`{"operationType":"DEPTH"}`), map[string]string{MetaIdempotencyKey: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-commands:
		if string(m.Payload) != `{"operationType":"DEPTH"}` || m.Metadata.Get(MetaIdempotencyKey) != "k1" || m.Metadata.Get(MetaMessageID) != id {
			t.Errorf("delivered %s with %v, want the body, the key and message id %s", m.Payload, m.Metadata, id)
		}
		m.Ack()
	case <-time.After(5 * time.Second):
		t.Fatal("the submitted command never arrived")
	}

	ev := result.Event{Type: result.TypeCompleted, Data: result.Data{OperationType: "DEPTH", IdempotencyKey: "k1", Status: result.StatusCompleted}}
	go func() { _ = tr.Results.Publish(context.Background(), ev) }()
	select {
	case m := <-results:
		if m.Metadata.Get("status") != "COMPLETED" || m.Metadata.Get("idempotencyKey") != "k1" {
			t.Errorf("result metadata %v", m.Metadata)
		}
		m.Ack()
	case <-time.After(5 * time.Second):
		t.Fatal("the result never arrived")
	}

	tr.StopIntake()
	if _, err := tr.Submit(t.Context(), []byte(`{}`), nil); err == nil {
		t.Error("Submit accepted a command after StopIntake")
	}
	if tr.DelayRedelivery != nil {
		t.Error("the in-process bus cannot delay a redelivery: the router must wait")
	}
}

func TestTransportOfAnUnknownMode(t *testing.T) {
	if _, err := NewTransport(t.Context(), TransportConfig{Mode: "carrier-pigeon"}); err == nil {
		t.Error("NewTransport accepted an unknown mode")
	}
}

// TestSubmitQueueIsBounded: Submit holds at most MaxQueued commands not
// yet acked; a nack keeps a command queued, an ack frees its place.
func TestSubmitQueueIsBounded(t *testing.T) {
	tr, err := NewTransport(t.Context(), TransportConfig{Mode: config.ModeEmbedded, MaxQueued: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	commands, err := tr.Commands.Subscribe(t.Context(), CommandsTopic)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := tr.Submit(t.Context(), []byte(`{}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = tr.Submit(t.Context(), []byte(`{}`), nil)
	var full *QueueFullError
	if !errors.As(err, &full) || full.RetryAfter() <= 0 {
		t.Fatalf("third Submit: %v; want QueueFullError with a retry delay", err)
	}
	next := func() *message.Message {
		select {
		case m := <-commands:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no command delivered")
			return nil
		}
	}
	m := next()
	m.Nack()
	if tr.Queued() != 2 {
		t.Errorf("Queued() = %d after a nack; the command comes back, so 2", tr.Queued())
	}
	m = next()
	tr.Settled(m)
	m.Ack()
	if tr.Queued() != 1 {
		t.Errorf("Queued() = %d after an ack, want 1", tr.Queued())
	}
	if _, err := tr.Submit(t.Context(), []byte(`{}`), nil); err != nil {
		t.Errorf("Submit with room again: %v", err)
	}
	// Messages published by others than Submit are not in its count.
	other := message.NewMessage("other", []byte(`{}`))
	tr.Settled(other)
	if tr.Queued() != 2 {
		t.Errorf("Queued() = %d after settling a message Submit did not publish, want 2", tr.Queued())
	}
}
