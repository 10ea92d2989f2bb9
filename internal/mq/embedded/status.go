package embedded

import (
	"context"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Queue status and statistics, as IBM MQ's command server reports them
// (INQUIRE_Q_STATUS, RESET_Q_STATS); the mq port reads the status.

// queueStats is what a queue tracks for its status. Its queue's mutex
// guards it.
type queueStats struct {
	uncommitted int // puts and gets in units of work not yet committed or backed out
	lastPut     time.Time
	lastGet     time.Time
	// qtimeShort and qtimeLong average, in microseconds, how long the
	// messages got had waited: over about the last few and the last
	// hundred or so.
	qtimeShort, qtimeLong float64
	qtimeKnown            bool
	enqueued, dequeued    int // since resetAt
	highDepth             int // since resetAt
	resetAt               time.Time
}

// Weights of the newest message in the queue-time averages: IBM MQ gives
// a short-term and a long-term figure without saying over how many
// messages.
const (
	qtimeShortWeight = 1.0 / 4
	qtimeLongWeight  = 1.0 / 64
)

// put records a message appended at depth.
func (s *queueStats) put(m *message, depth int) {
	s.enqueued++
	s.highDepth = max(s.highDepth, depth)
	if m.putTime.After(s.lastPut) {
		s.lastPut = m.putTime
	}
	if m.uncommitted {
		s.uncommitted++
	}
}

// got records a destructive get at now; inUOW when it is under syncpoint.
func (s *queueStats) got(m *message, now time.Time, inUOW bool) {
	s.dequeued++
	s.lastGet = now
	if inUOW {
		s.uncommitted++
	}
	waited := float64(now.Sub(m.putTime).Microseconds())
	if !s.qtimeKnown {
		s.qtimeShort, s.qtimeLong, s.qtimeKnown = waited, waited, true
		return
	}
	s.qtimeShort += (waited - s.qtimeShort) * qtimeShortWeight
	s.qtimeLong += (waited - s.qtimeLong) * qtimeLongWeight
}

// settled records a unit-of-work entry committed or backed out.
func (s *queueStats) settled() { s.uncommitted = max(s.uncommitted-1, 0) }

// QueueStatus is a local queue's status, as INQUIRE_Q_STATUS reports it.
type QueueStatus struct {
	Name            string
	Depth           int
	MaxDepth        int
	MaxMsgLength    int
	OpenInputCount  int
	OpenOutputCount int
	// Uncommitted counts the puts and gets on the queue in units of work
	// not yet committed or backed out.
	Uncommitted int
	// OldestPut is the put time of the oldest committed message; zero on
	// an empty queue.
	OldestPut time.Time
	// LastPut and LastGet are the last put and destructive get; zero
	// when none happened.
	LastPut, LastGet time.Time
	// QueueTimeShort and QueueTimeLong average how long got messages
	// had waited, over the last few and over many; Known is false before
	// the first get.
	QueueTimeShort, QueueTimeLong time.Duration
	QueueTimeKnown                bool
}

// QueueStatistics are RESET_Q_STATS' figures since the previous reset.
type QueueStatistics struct {
	Enqueued, Dequeued int
	HighDepth          int
	Interval           time.Duration
}

// QueueStatus reads the status of the local queue name of queue manager
// qmgr ("" the default): MQRC_UNKNOWN_OBJECT_NAME (2085) for a name that
// is no local queue.
func (b *Backend) QueueStatus(qmgr, name string) (QueueStatus, error) {
	q, err := b.localQueue(qmgr, name)
	if err != nil {
		return QueueStatus{}, err
	}
	return q.status(time.Now()), nil
}

// status reads the queue's status at now.
func (q *queue) status(now time.Time) QueueStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.purgeExpired(now.UnixNano())
	st := QueueStatus{
		Name: q.name, Depth: q.depth, MaxDepth: q.effectiveMaxDepth(), MaxMsgLength: q.maxMsgLength,
		OpenInputCount: q.inputCount, OpenOutputCount: q.outputCount, Uncommitted: q.stats.uncommitted,
		LastPut: q.stats.lastPut, LastGet: q.stats.lastGet, QueueTimeKnown: q.stats.qtimeKnown,
		QueueTimeShort: time.Duration(q.stats.qtimeShort) * time.Microsecond,
		QueueTimeLong:  time.Duration(q.stats.qtimeLong) * time.Microsecond,
	}
	for p := range q.levels {
		for _, m := range q.levels[p].live() {
			if !m.uncommitted {
				if st.OldestPut.IsZero() || m.putTime.Before(st.OldestPut) {
					st.OldestPut = m.putTime
				}
				break // a level is in put order: its first committed message is its oldest
			}
		}
	}
	return st
}

// InquireQueueStatus reads a local queue's status natively: the embedded
// queue manager always monitors its queues, as MONQ(HIGH) would.
func (c *conn) InquireQueueStatus(_ context.Context, name string) (mq.QueueStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.check(mq.VerbInquire, name); err != nil {
		return mq.QueueStatus{}, err
	}
	q := c.qm.queue(name)
	if q == nil {
		return mq.QueueStatus{}, mq.NewError(mq.VerbInquire, name, mq.ReasonUnknownObjectName)
	}
	now := time.Now()
	st := q.status(now)
	out := mq.QueueStatus{
		Name: st.Name, CurrentDepth: st.Depth, OpenInputCount: st.OpenInputCount, OpenOutputCount: st.OpenOutputCount,
		Uncommitted: st.Uncommitted, Monitored: true, LastPut: st.LastPut, LastGet: st.LastGet,
		QueueTimeShort: st.QueueTimeShort, QueueTimeLong: st.QueueTimeLong, QueueTimeKnown: st.QueueTimeKnown,
	}
	if !st.OldestPut.IsZero() {
		out.OldestMessageAge = now.Sub(st.OldestPut)
	}
	return out, nil
}

// ResetQueueStatistics returns the local queue's statistics since the
// previous reset and starts them again, as RESET QSTATS does.
func (b *Backend) ResetQueueStatistics(qmgr, name string) (QueueStatistics, error) {
	q, err := b.localQueue(qmgr, name)
	if err != nil {
		return QueueStatistics{}, err
	}
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	st := QueueStatistics{Enqueued: q.stats.enqueued, Dequeued: q.stats.dequeued,
		HighDepth: max(q.stats.highDepth, q.depth), Interval: now.Sub(q.stats.resetAt)}
	q.stats.enqueued, q.stats.dequeued, q.stats.highDepth, q.stats.resetAt = 0, 0, q.depth, now
	return st, nil
}

// localQueue finds a local queue, configured or defined at run time.
func (b *Backend) localQueue(qmgr, name string) (*queue, error) {
	qm, err := b.queueManager(qmgr, mq.VerbInquire, name)
	if err != nil {
		return nil, err
	}
	if q := qm.queue(name); q != nil {
		return q, nil
	}
	return nil, mq.NewError(mq.VerbInquire, name, mq.ReasonUnknownObjectName)
}
