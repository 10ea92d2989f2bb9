package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// getWait is how long one get waits for a message. Short, so a getter
// notices the end of the run soon (a real MQGET cannot be interrupted),
// yet long enough not to spin on an idle queue.
const getWait = 100 * time.Millisecond

// getter gets the run's messages, selected by CorrelId so other traffic
// on the queue is left alone, and records them.
type getter struct {
	r     *run
	index int
	q     mq.Queue
	msg   mq.Message // reused: Get overwrites it keeping its storage
}

// loop gets until ctx ends (the run is over: not an error). It returns get
// failures other than "no message".
func (g *getter) loop(ctx context.Context) error {
	r := g.r
	switch {
	case r.cfg.Mode != ModeRequestReply:
	case r.privateReplies:
		return g.privateReplies(ctx)
	default:
		return g.sharedReplies(ctx)
	}
	opts := mq.GetOptions{Wait: getWait, CorrelID: r.id}
	for ctx.Err() == nil {
		if _, err := g.take(ctx, opts); err != nil {
			return err
		}
	}
	return nil
}

// take gets one of the run's messages with opts and records it; got is
// false when there was none or ctx ended.
func (g *getter) take(ctx context.Context, opts mq.GetOptions) (got bool, err error) {
	err = g.q.Get(ctx, &g.msg, opts)
	now := time.Since(g.r.start)
	switch {
	case err == nil:
		if h, ok := decodeHeader(g.msg.Payload); ok {
			g.r.received(h, now, nil)
		}
		return true, nil
	case mq.IsReason(err, mq.ReasonNoMsgAvailable), ctx.Err() != nil:
		return false, nil
	default:
		return false, fmt.Errorf("probe: getter %d: get from %s: %w", g.index, g.q.Name(), err)
	}
}

// takeWaiting takes the run's messages on the queue now, without waiting:
// a putter's gets after each put when the putters get (run.putterGets).
func (g *getter) takeWaiting(ctx context.Context) error {
	opts := mq.GetOptions{CorrelID: g.r.id}
	for {
		if got, err := g.take(ctx, opts); !got || err != nil {
			return err
		}
	}
}

// privateReplies gets every reply from the run's own dynamic queue: all
// that arrives there answers this run's requests.
func (g *getter) privateReplies(ctx context.Context) error {
	opts := mq.GetOptions{Wait: getWait}
	for ctx.Err() == nil {
		err := g.q.Get(ctx, &g.msg, opts)
		switch {
		case err == nil:
			g.reply()
		case mq.IsReason(err, mq.ReasonNoMsgAvailable), ctx.Err() != nil:
		default:
			return fmt.Errorf("probe: getter %d: get from %s: %w", g.index, g.q.Name(), err)
		}
	}
	return nil
}

// sharedReplies takes the run's replies from a queue others may use too:
// a reply's CorrelId is its request's MsgId, which MQ can match only
// exactly, so the getter browses for CorrelIds naming the run and gets
// each such message by its MsgId, leaving other messages alone. Another
// getter may take a browsed reply first (2033 on the get): it is counted
// there.
func (g *getter) sharedReplies(ctx context.Context) error {
	r := g.r
	browse := mq.BrowseFirst
	for ctx.Err() == nil {
		err := g.q.Get(ctx, &g.msg, mq.GetOptions{Wait: getWait, Browse: browse})
		switch {
		case err == nil:
			browse = mq.BrowseNext
			if !isReplyOf(r.id, g.msg.CorrelID) {
				continue
			}
			err = g.q.Get(ctx, &g.msg, mq.GetOptions{MsgID: g.msg.MsgID, CorrelID: g.msg.CorrelID})
			switch {
			case err == nil:
				g.reply()
			case mq.IsReason(err, mq.ReasonNoMsgAvailable), ctx.Err() != nil:
			default:
				return fmt.Errorf("probe: getter %d: get from %s: %w", g.index, g.q.Name(), err)
			}
		case mq.IsReason(err, mq.ReasonNoMsgAvailable), ctx.Err() != nil:
			// Past the last message: start again from the first, which
			// also finds replies that arrived behind the cursor.
			browse = mq.BrowseFirst
		default:
			return fmt.Errorf("probe: getter %d: browse %s: %w", g.index, g.q.Name(), err)
		}
	}
	return nil
}

// reply records the reply in g.msg, got just now: its round trip and,
// when the responder stamped it, its hops.
func (g *getter) reply() {
	r := g.r
	wall := time.Now()
	now := wall.Sub(r.start)
	if !isReplyOf(r.id, g.msg.CorrelID) {
		return
	}
	h, ok := decodeHeader(g.msg.Payload)
	if !ok {
		return
	}
	var hops *hopTimes
	if gotAt, putAt, stamped := replyStamps(g.msg.Properties); stamped {
		// The put's time on this host's wall clock, the one the responder's
		// is compared with: now's reading less the round trip, so that
		// wall-clock corrections since the run started do not count.
		sent := wall.Round(0).Add(-(now - h.sentAt))
		hops = &hopTimes{sent: sent, reqGot: gotAt, rspPut: putAt}
	}
	r.received(h, now, hops)
}
