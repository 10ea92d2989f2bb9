package mq

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Batch is a run of messages that share every descriptor field and
// property and differ only in their bodies, put in order by PutBatch.
type Batch struct {
	// Message holds what every message shares; PutBatch sets its Payload
	// to each body in turn and leaves it unspecified afterwards.
	Message *Message
	// Bodies holds the messages' payloads back to back: message i's ends
	// at Ends[i] and starts where message i-1's ended (at 0 for the first).
	Bodies []byte
	Ends   []int32
	// Timed lists, ascending, the indexes of the messages whose put is
	// timed alone; Elapsed[j] receives the time message Timed[j]'s put
	// took, for each one put or tried. Elapsed is at least as long as
	// Timed.
	Timed   []int32
	Elapsed []time.Duration
}

// Len is the number of messages in b.
func (b *Batch) Len() int { return len(b.Ends) }

// Validate rejects a batch whose bodies or timings do not fit together:
// Ends must not decrease nor pass Bodies' end, Timed must ascend within
// the batch, and Elapsed be at least as long as Timed.
func (b *Batch) Validate() error {
	if b.Message == nil {
		return errors.New("mq: batch without a message")
	}
	start := int32(0)
	for i, end := range b.Ends {
		if end < start || int(end) > len(b.Bodies) {
			return fmt.Errorf("mq: batch message %d ends at %d, outside %d to %d", i, end, start, len(b.Bodies))
		}
		start = end
	}
	if len(b.Elapsed) < len(b.Timed) {
		return fmt.Errorf("mq: batch times %d puts into %d durations", len(b.Timed), len(b.Elapsed))
	}
	prev := int32(-1)
	for _, i := range b.Timed {
		if i <= prev || int(i) >= len(b.Ends) {
			return fmt.Errorf("mq: batch timed index %d not ascending within 0 to %d", i, len(b.Ends)-1)
		}
		prev = i
	}
	return nil
}

// BatchResult is how a PutBatch went.
type BatchResult struct {
	// Put is how many messages were put: the first Put of the batch, in
	// order. The one after them failed when PutBatch returns an error.
	Put int
	// First and Last are the results of the first and the last message
	// put, when Put > 0.
	First, Last PutResult
}

// BatchPutter is a Queue that puts a Batch in one call, as IBM MQ's does
// with one crossing from Go to the client library, which loops MQPUT.
// Callers use PutBatch, which puts one message at a time on other queues.
type BatchPutter interface {
	// PutBatch is mq.PutBatch on this queue.
	PutBatch(ctx context.Context, b *Batch, opts PutOptions) (BatchResult, error)
}

// PutBatch puts b's messages on q in order with opts, as that many Puts
// would, stopping at the first that fails; a warning does not stop it.
// Properties are checked once for the batch. Each timed put is timed
// around the put alone. With asynchronous puts a failure may instead
// come from the connection's next Commit or CheckAsyncPuts, as with Put.
func PutBatch(ctx context.Context, q Queue, b *Batch, opts PutOptions) (BatchResult, error) {
	if bp, ok := q.(BatchPutter); ok {
		return bp.PutBatch(ctx, b, opts)
	}
	return PutEach(ctx, q, b, opts)
}

// PutEach is PutBatch made of one Put per message: what a queue without
// a batch call of its own does.
func PutEach(ctx context.Context, q Queue, b *Batch, opts PutOptions) (BatchResult, error) {
	var r BatchResult
	if err := b.Validate(); err != nil {
		return r, err
	}
	msg, start, next := b.Message, int32(0), 0
	for i, end := range b.Ends {
		msg.Payload = b.Bodies[start:end]
		start = end
		timed := next < len(b.Timed) && int(b.Timed[next]) == i
		var began time.Duration
		if timed {
			began = monotonic()
		}
		res, err := q.Put(ctx, msg, opts)
		if timed {
			b.Elapsed[next] = monotonic() - began
			next++
		}
		if err != nil {
			return r, err
		}
		if r.Put == 0 {
			r.First = res
		}
		r.Last = res
		r.Put++
	}
	return r, nil
}

// clockBase anchors monotonic.
var clockBase = time.Now()

// monotonic reads the monotonic clock alone, about half the cost of
// time.Now.
func monotonic() time.Duration { return time.Since(clockBase) }
