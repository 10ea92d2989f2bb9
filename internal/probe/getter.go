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
	opts := mq.GetOptions{Wait: getWait, CorrelID: r.id}
	for ctx.Err() == nil {
		err := g.q.Get(ctx, &g.msg, opts)
		now := time.Since(r.start)
		switch {
		case err == nil:
			if h, ok := decodeHeader(g.msg.Payload); ok {
				r.received(h, now)
			}
		case mq.IsReason(err, mq.ReasonNoMsgAvailable), ctx.Err() != nil:
		default:
			return fmt.Errorf("probe: getter %d: get from %s: %w", g.index, g.q.Name(), err)
		}
	}
	return nil
}
