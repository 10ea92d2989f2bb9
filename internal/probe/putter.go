package probe

import (
	"context"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/pacing"
)

// unpacedInFlight caps the messages out at once when Rate is 0, so "as
// fast as possible" means as fast as round trips complete rather than
// filling the queue (IBM's default MAXDEPTH is 5000).
const unpacedInFlight = 1024

// putter puts the run's messages on its own connection, taking sequence
// numbers and due times from the shared schedule.
type putter struct {
	r     *run
	index int
	q     mq.Queue
	msg   mq.Message // reused: payload and properties are rewritten per put
	// gets is the getter whose queue this putter takes the run's messages
	// from after each put when the putters get (run.putterGets); else nil.
	gets *getter
}

func newPutter(r *run, index int, q mq.Queue) *putter {
	cfg := r.cfg
	return &putter{r: r, index: index, q: q, msg: mq.Message{
		CorrelID:   r.id,
		Format:     mq.FormatNone,
		Persistent: cfg.Persistent,
		// A message not back within LossTimeout is lost anyway; expiring it
		// then keeps lost and leftover probes from piling up on the queue.
		Expiry:     cfg.LossTimeout,
		Payload:    make([]byte, max(cfg.MessageSize, HeaderSize)),
		Properties: mq.Properties{},
		// Request/reply: where the responder answers.
		ReplyToQ:    r.replyQueue,
		ReplyToQMgr: r.replyQMgr,
	}}
}

// loop puts until the schedule is exhausted or ctx ends (a stop: not an
// error). It returns put failures.
func (p *putter) loop(ctx context.Context) error {
	r := p.r
	timer := pacing.NewTimer()
	for {
		seq, due, ok := r.sched.next(time.Now())
		if !ok {
			return nil
		}
		if err := p.put(ctx, timer, seq, due); err != nil {
			r.tracker.abandon(seq)
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if p.gets != nil {
			if err := p.gets.takeWaiting(ctx); err != nil {
				return err // the message was put: it is in flight, not abandoned
			}
		}
	}
}

// put waits until due, then puts message seq.
func (p *putter) put(ctx context.Context, timer *time.Timer, seq int64, due time.Time) error {
	r := p.r
	if err := pacing.Wait(ctx, timer, due, r.sched.spin()); err != nil {
		return err
	}
	if r.credits != nil {
		select {
		case r.credits <- struct{}{}: // given back when the message resolves
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	sentAt := time.Since(r.start)
	header{putter: p.index, seq: seq, sentAt: sentAt}.encode(p.msg.Payload)
	p.msg.Properties[PropSeq] = seq
	p.msg.Properties[PropSentAt] = FormatStamp(r.start.Add(sentAt))
	if r.cfg.Mode == ModeRequestReply {
		p.msg.MsgID = requestMsgID(r.id, seq)
	}
	if err := r.tracker.sending(seq, sentAt); err != nil {
		if r.credits != nil {
			<-r.credits
		}
		return err
	}
	if _, err := p.q.Put(ctx, &p.msg, mq.PutOptions{}); err != nil {
		return fmt.Errorf("probe: putter %d: put message %d on %s: %w", p.index, seq, p.q.Name(), err)
	}
	return nil
}
