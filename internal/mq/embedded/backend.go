package embedded

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Backend is an in-process set of queue managers behind the mq port. It is
// safe for concurrent use.
type Backend struct {
	qmgrs     map[string]*queueManager
	defaultQM *queueManager
	faults    Faults

	mu    sync.Mutex
	conns map[*conn]struct{} // live connections, for BreakConnections
}

var (
	_ mq.Backend      = (*Backend)(nil)
	_ mq.ProcessBound = (*Backend)(nil)
)

// queueManager is immutable after New apart from its queues' contents and
// the storage they hold.
type queueManager struct {
	backend        *Backend
	name           string
	commandLevel   int
	maxMsgLength   int
	maxUncommitted int
	maxBytes       int64
	queues         map[string]*queue
	aliases        map[string]string             // alias name → TARGET
	remotes        map[string]*RemoteQueueConfig // remote definition name → definition
	identifier     string                        // QMID: name_creation time in hex, as IBM MQ makes it
	idPrefix       [16]byte                      // "AMQ " + name, as in IBM-generated MsgIds
	idSeq          atomic.Uint64
	bodyBytes      atomic.Int64 // held against maxBytes, see storage.go
}

// New builds the queue managers cfg describes (QM1 with the DEV queues when
// cfg is empty).
func New(cfg Config) (*Backend, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("embedded queue manager config: %w", err)
	}
	b := &Backend{qmgrs: make(map[string]*queueManager), conns: make(map[*conn]struct{})}
	b.faults.backend = b
	for _, qc := range cfg.QueueManagers {
		qm := &queueManager{
			backend:        b,
			name:           qc.Name,
			commandLevel:   qc.CommandLevel,
			maxMsgLength:   qc.MaxMsgLength,
			maxUncommitted: qc.MaxUncommittedMsgs,
			maxBytes:       qc.MaxBytes,
			queues:         make(map[string]*queue, len(qc.Queues)),
			aliases:        make(map[string]string, len(qc.Aliases)),
			remotes:        make(map[string]*RemoteQueueConfig, len(qc.Remotes)),
			identifier:     fmt.Sprintf("%s_%08x", qc.Name, time.Now().Unix()),
		}
		copy(qm.idPrefix[:], "AMQ "+qc.Name+"            ")
		qm.idSeq.Store(uint64(time.Now().UnixNano())) // distinct ids across restarts
		for _, q := range qc.Queues {
			qm.queues[q.Name] = newQueue(qm, q)
		}
		for _, a := range qc.Aliases {
			qm.aliases[a.Name] = a.Target
		}
		for _, r := range qc.Remotes {
			qm.remotes[r.Name] = &r
		}
		b.qmgrs[qc.Name] = qm
		if b.defaultQM == nil {
			b.defaultQM = qm
		}
	}
	return b, nil
}

// NewDefault returns QM1 with DEV.QUEUE.1-3 and DEV.DEAD.LETTER.QUEUE.
func NewDefault() *Backend {
	b, err := New(Config{})
	if err != nil {
		panic("embedded: default config is invalid: " + err.Error())
	}
	return b
}

// Connect connects to t.QueueManager ("" is the first configured one).
// Channel, connName, TLS and credentials are accepted and not checked.
func (b *Backend) Connect(ctx context.Context, t mq.Target) (mq.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mq: %s %s: %w", mq.VerbConnect, t.QueueManager, err)
	}
	if rc := mq.Reason(b.faults.refuse.Load()); rc != 0 {
		return nil, mq.NewError(mq.VerbConnect, t.QueueManager, rc)
	}
	qm := b.defaultQM
	if t.QueueManager != "" {
		qm = b.qmgrs[t.QueueManager]
	}
	if qm == nil {
		// A name no queue manager here has is a mistake in the command or
		// profile, not an outage: permanent, at once, naming what exists.
		e := mq.NewError(mq.VerbConnect, t.QueueManager, mq.ReasonQMgrNameError)
		e.Err = fmt.Errorf("the embedded backend has no queue manager %q; it has %s", t.QueueManager, strings.Join(b.queueManagerNames(), ", "))
		return nil, e
	}
	c := &conn{qm: qm, handles: make(map[*handle]struct{})}
	b.mu.Lock()
	b.conns[c] = struct{}{}
	b.mu.Unlock()
	return c, nil
}

// MessagesOutliveProcess is false: the queue managers live in this
// process's memory and their messages end with it.
func (b *Backend) MessagesOutliveProcess() bool { return false }

// queueManagerNames lists the configured queue managers, sorted.
func (b *Backend) queueManagerNames() []string {
	return slices.Sorted(maps.Keys(b.qmgrs))
}

// maxNamesListed bounds the queue names an error lists.
const maxNamesListed = 20

// queueNames lists the queues an application can open here (local, alias
// and remote definitions), sorted, at most maxNamesListed of them.
func (qm *queueManager) queueNames() string {
	names := slices.Collect(maps.Keys(qm.queues))
	names = append(names, slices.Collect(maps.Keys(qm.aliases))...)
	names = append(names, slices.Collect(maps.Keys(qm.remotes))...)
	slices.Sort(names)
	if n := len(names); n > maxNamesListed {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamesListed], ", "), n-maxNamesListed)
	}
	return strings.Join(names, ", ")
}

// Faults returns the fault-injection hooks, for tests.
func (b *Backend) Faults() *Faults { return &b.faults }

func (b *Backend) forget(c *conn) {
	b.mu.Lock()
	delete(b.conns, c)
	b.mu.Unlock()
}

// breakConnections breaks every live connection as a lost network would:
// the queue manager backs out their units of work and closes their handles,
// and their next call fails with MQRC_CONNECTION_BROKEN.
func (b *Backend) breakConnections() {
	b.mu.Lock()
	conns := make([]*conn, 0, len(b.conns))
	for c := range b.conns {
		conns = append(conns, c)
	}
	clear(b.conns)
	b.mu.Unlock()
	for _, c := range conns {
		c.mu.Lock()
		c.endLocked(stateBroken)
		c.mu.Unlock()
	}
	// Blocked gets wake up, see the broken connection and fail.
	for _, qm := range b.qmgrs {
		for _, q := range qm.queues {
			q.wakeAll()
		}
	}
}

// newMsgID makes a MsgId the way IBM MQ does: "AMQ ", the queue manager
// name, then a unique suffix.
func (qm *queueManager) newMsgID() mq.ID {
	var id mq.ID
	copy(id[:16], qm.idPrefix[:])
	binary.BigEndian.PutUint64(id[16:], qm.idSeq.Add(1))
	return id
}
