package embedded

import (
	"time"

	"sort"
	"sync"
	"sync/atomic"

	"github.com/mqprobe/mqprobe/internal/mq"
)

const priorityLevels = mq.MaxPriority + 1

// queue is a local queue: one FIFO per priority, searched from priority 9
// down, which is IBM MQ's MSGDLVSQ(PRIORITY) order.
type queue struct {
	qm           *queueManager
	name         string
	maxDepth     int
	maxMsgLength int
	// BOTHRESH and BOQNAME: only inquired (MQIQueue.Backout).
	backoutThreshold    int
	backoutRequeueQueue string

	mu     sync.Mutex
	levels [priorityLevels]level
	seq    uint64 // last position handed out
	// depth is CURDEPTH as IBM MQ counts it: incremented by every put (in
	// syncpoint or not) and by a backed-out get, decremented by every
	// destructive get, a backed-out put and an expiry purge.
	depth       int
	inputCount  int
	outputCount int
	exclusive   bool // an MQOO_INPUT_EXCLUSIVE handle is open
	waiters     int  // gets blocked on wake
	wake        chan struct{}
	defType     DefinitionType
	deleted     atomic.Bool // a run-time queue DeleteQueue removed
	stats       queueStats
}

func newQueue(qm *queueManager, cfg QueueConfig) *queue {
	return &queue{qm: qm, name: cfg.Name, maxDepth: cfg.MaxDepth, maxMsgLength: cfg.MaxMsgLength,
		backoutThreshold: cfg.BackoutThreshold, backoutRequeueQueue: cfg.BackoutRequeueQueue,
		wake: make(chan struct{}), stats: queueStats{resetAt: time.Now()}}
}

// level holds one priority's messages in seq order: msgs[head:] are live.
// Gets take from the front and puts append at the back, so both are O(1);
// selection, backout and browse use binary search on seq.
type level struct {
	msgs []*message
	head int
}

func (l *level) live() []*message { return l.msgs[l.head:] }

func (l *level) push(m *message) {
	if l.head > 0 && len(l.msgs) == cap(l.msgs) {
		l.compact()
	}
	l.msgs = append(l.msgs, m)
}

func (l *level) compact() {
	n := copy(l.msgs, l.msgs[l.head:])
	clear(l.msgs[n:])
	l.msgs = l.msgs[:n]
	l.head = 0
}

// removeAt removes the i-th live message.
func (l *level) removeAt(i int) {
	if i == 0 {
		l.msgs[l.head] = nil
		l.head++
		if l.head == len(l.msgs) {
			l.msgs, l.head = l.msgs[:0], 0
		}
		return
	}
	i += l.head
	copy(l.msgs[i:], l.msgs[i+1:])
	l.msgs[len(l.msgs)-1] = nil
	l.msgs = l.msgs[:len(l.msgs)-1]
}

// indexAfter is the index of the first live message with seq > s.
func (l *level) indexAfter(s uint64) int {
	live := l.live()
	return sort.Search(len(live), func(i int) bool { return live[i].seq > s })
}

// insert puts m back at its seq position (a backed-out get).
func (l *level) insert(m *message) {
	i := l.head + l.indexAfter(m.seq)
	l.msgs = append(l.msgs, nil)
	copy(l.msgs[i+1:], l.msgs[i:])
	l.msgs[i] = m
}

// remove takes m out by its seq (a backed-out put).
func (l *level) remove(m *message) bool {
	live := l.live()
	i := sort.Search(len(live), func(i int) bool { return live[i].seq >= m.seq })
	if i < len(live) && live[i] == m {
		l.removeAt(i)
		return true
	}
	return false
}

// position identifies a message's place in delivery order, for browse
// cursors.
type position struct {
	priority int32
	seq      uint64
}

// match is the selection of a get. A zero identifier matches anything.
type match struct {
	msgID, correlID mq.ID
	groupID         mq.ID
	matchSeq        bool // MQMO_MATCH_MSG_SEQ_NUMBER
	seq             int32
}

func (s match) matches(m *message) bool {
	if !(s.msgID.IsZero() || s.msgID == m.msgID) || !(s.correlID.IsZero() || s.correlID == m.correlID) {
		return false
	}
	if s.groupID.IsZero() && !s.matchSeq {
		return true
	}
	var d Descriptor // a port put: no group, sequence number 1
	if m.desc != nil {
		d = *m.desc
	}
	if !s.groupID.IsZero() && s.groupID != d.GroupID {
		return false
	}
	return !s.matchSeq || s.seq == d.msgSeqNumber()
}

// at returns the message under a browse cursor, if it is still there,
// committed and not expired. Callers hold q.mu.
func (q *queue) at(cursor *position, now int64) (lvl, idx int, m *message) {
	if cursor == nil {
		return 0, 0, nil
	}
	l := &q.levels[cursor.priority]
	live := l.live()
	i := sort.Search(len(live), func(i int) bool { return live[i].seq >= cursor.seq })
	if i == len(live) || live[i].seq != cursor.seq || live[i].uncommitted || live[i].expired(now) {
		return 0, 0, nil
	}
	return int(cursor.priority), i, live[i]
}

// find returns the first available message in delivery order that matches
// sel, starting after the cursor if one is given. Expired messages met on
// the way are discarded, as IBM MQ does lazily. Callers hold q.mu.
func (q *queue) find(sel match, after *position, now int64) (lvl, idx int, m *message) {
	top := priorityLevels - 1
	if after != nil {
		top = int(after.priority)
	}
	for p := top; p >= 0; p-- {
		l := &q.levels[p]
		i := 0
		if after != nil && p == int(after.priority) {
			i = l.indexAfter(after.seq)
		}
		for i < len(l.msgs)-l.head {
			msg := l.msgs[l.head+i]
			switch {
			case msg.uncommitted:
				i++
			case msg.expired(now):
				l.removeAt(i)
				q.depth--
				q.expired(msg)
				q.qm.discard(msg)
			case sel.matches(msg):
				return p, i, msg
			default:
				i++
			}
		}
	}
	return 0, 0, nil
}

// purgeExpired discards every expired committed message.
func (q *queue) purgeExpired(now int64) {
	for p := range q.levels {
		l := &q.levels[p]
		for i := 0; i < len(l.msgs)-l.head; {
			if m := l.msgs[l.head+i]; !m.uncommitted && m.expired(now) {
				l.removeAt(i)
				q.depth--
				q.expired(m)
				q.qm.discard(m)
				continue
			}
			i++
		}
	}
}

// appendLocked adds m behind the messages of its priority. Callers hold
// q.mu and wake getters once m is visible.
func (q *queue) appendLocked(m *message) {
	q.seq++
	m.seq = q.seq
	q.levels[m.priority].push(m)
	q.depth++
	q.stats.put(m, q.depth)
}

// appendCopyLocked enqueues a copy of m (an injected duplicate). The copy's
// body is charged whatever the limit: like MAXDEPTH, MaxBytes does not
// hold back a fault. Callers hold q.mu.
func (q *queue) appendCopyLocked(m *message) {
	q.qm.bodyBytes.Add(int64(len(m.payload)))
	c := m.clone()
	q.appendLocked(c)
	q.hardenLocked(c)
}

// hardenLocked journals m, now committed on q, when it is persistent and
// the queue manager keeps a journal. Callers hold q.mu.
func (q *queue) hardenLocked(m *message) {
	if q.qm.journal != nil && m.persistent && m.logID == 0 {
		q.qm.journal.logPut(q.name, m)
	}
}

// deliverLocked makes a put visible, applying its injected fault: a
// dropped message is discarded, a duplicated one enqueued twice. Callers
// hold q.mu.
func (q *queue) deliverLocked(m *message, f putFault) {
	if f == putDrop {
		q.qm.discard(m)
		return
	}
	q.appendLocked(m)
	q.hardenLocked(m)
	if f == putDup {
		q.appendCopyLocked(m)
	}
	q.wakeLocked()
}

// effectiveMaxDepth applies the fault-injected cap, if any.
func (q *queue) effectiveMaxDepth() int {
	if c := int(q.qm.backend.faults.depthCap.Load()); c > 0 {
		return c
	}
	return q.maxDepth
}

// wakeLocked wakes every blocked get so it looks again. Callers hold q.mu.
func (q *queue) wakeLocked() {
	if q.waiters > 0 {
		close(q.wake)
		q.wake = make(chan struct{})
		q.waiters = 0
	}
}

func (q *queue) wakeAll() {
	q.mu.Lock()
	q.wakeLocked()
	q.mu.Unlock()
}

// clear drops every message (fault-injected reset), giving their bodies
// back. Connections are broken first, so their units of work no longer
// refer to them; one made since might, so the messages go to the garbage
// collector rather than back to the pool.
func (q *queue) clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for p := range q.levels {
		for _, m := range q.levels[p].live() {
			q.qm.bodyBytes.Add(-int64(len(m.payload)))
			if m.logID != 0 {
				q.qm.journal.logDelete(m.logID)
			}
		}
		q.levels[p] = level{}
	}
	q.depth = 0
	q.stats.uncommitted = 0
	q.inputCount, q.outputCount, q.exclusive = 0, 0, false
	q.wakeLocked()
}
