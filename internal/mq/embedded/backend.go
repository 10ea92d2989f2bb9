package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
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

	onExpiry atomic.Pointer[expiryObserver] // see OnExpiry
}

var (
	_ mq.Backend      = (*Backend)(nil)
	_ mq.ProcessBound = (*Backend)(nil)
)

// queueManager is immutable after New apart from its queues' contents, the
// storage they hold and the queues defined at run time (dynamic.go).
type queueManager struct {
	backend        *Backend
	name           string
	commandLevel   int
	maxDepth       int // of a queue defined at run time
	maxMsgLength   int
	maxUncommitted int
	maxBytes       int64
	queues         map[string]*queue
	aliases        map[string]string             // alias name → TARGET
	remotes        map[string]*RemoteQueueConfig // remote definition name → definition
	identifier     string                        // QMID: name_creation time (nanoseconds, hex), unique to each creation as IBM MQ's is
	idPrefix       [16]byte                      // "AMQ " + name, as in IBM-generated MsgIds
	idSeq          atomic.Uint64
	bodyBytes      atomic.Int64 // held against maxBytes, see storage.go
	journal        *journal     // committed persistent messages on disk; nil keeps them in memory only

	dynMu   sync.RWMutex
	dynamic map[string]*queue // local queues defined at run time
}

// New builds the queue managers cfg describes (QM1 with the DEV queues when
// cfg is empty). Their messages live in memory only.
func New(cfg Config) (*Backend, error) { return build(cfg, "") }

// NewDurable builds the queue managers cfg describes with their committed
// persistent messages kept in dataDir (created when missing; one journal
// per queue manager, see journal.go), and recovers the messages a previous
// backend on dataDir committed. Non-persistent messages live in memory
// only, as on IBM MQ. Close it to release the files.
func NewDurable(cfg Config, dataDir string) (*Backend, error) {
	if dataDir == "" {
		return nil, fmt.Errorf("embedded queue manager: no data directory")
	}
	return build(cfg, dataDir)
}

func build(cfg Config, dataDir string) (*Backend, error) {
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
			maxDepth:       qc.MaxDepth,
			maxMsgLength:   qc.MaxMsgLength,
			maxUncommitted: qc.MaxUncommittedMsgs,
			maxBytes:       qc.MaxBytes,
			queues:         make(map[string]*queue, len(qc.Queues)),
			aliases:        make(map[string]string, len(qc.Aliases)),
			remotes:        make(map[string]*RemoteQueueConfig, len(qc.Remotes)),
			dynamic:        make(map[string]*queue),
			identifier:     fmt.Sprintf("%s_%x", qc.Name, time.Now().UnixNano()),
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
		if dataDir != "" {
			if err := qm.recover(journalFile(dataDir, qc.Name)); err != nil {
				b.Close()
				return nil, fmt.Errorf("embedded queue manager %s: %w", qc.Name, err)
			}
		}
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

// recover opens the queue manager's journal at path and puts the messages
// it holds back on their queues. Those of a queue no longer configured
// stay in the journal, for when it is defined again.
func (qm *queueManager) recover(path string) error {
	j, msgs, err := openJournal(path)
	if err != nil {
		return err
	}
	if qm.identifier, err = keepIdentifier(filepath.Join(filepath.Dir(path), "qmid"), qm.identifier); err != nil {
		j.close()
		return err
	}
	qm.journal = j
	for _, rec := range msgs {
		q := qm.queues[rec.queue]
		if q == nil {
			continue
		}
		rec.m.logID = rec.id
		qm.bodyBytes.Add(int64(len(rec.m.payload)))
		q.mu.Lock()
		q.appendLocked(rec.m)
		q.mu.Unlock()
	}
	return nil
}

// keepIdentifier returns the QMID stored at path, storing fresh there
// first when there is none: a queue manager keeps its QMID across restarts,
// as IBM MQ's does (a reconnecting MQCNO_RECONNECT_Q_MGR client compares it).
func keepIdentifier(path, fresh string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
		return string(b), nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("queue manager identifier: %w", err)
	}
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, []byte(fresh), 0o640)
	if err == nil {
		err = syncFile(tmp)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		return "", fmt.Errorf("queue manager identifier: %w", err)
	}
	return fresh, nil
}

// Close closes the journals of a backend made by NewDurable, after which
// it keeps nothing more on disk; it does nothing for one made by New.
func (b *Backend) Close() error {
	var errs []error
	for _, qm := range b.qmgrs {
		if qm.journal != nil {
			errs = append(errs, qm.journal.close())
		}
	}
	return errors.Join(errs...)
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
		qm.eachQueue((*queue).wakeAll)
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
