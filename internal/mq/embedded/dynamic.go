package embedded

import (
	"maps"
	"slices"
	"strings"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// Queues defined at run time: an MQI server's own system queues (its
// command queue) and the temporary dynamic queues MQOPEN of a model queue
// creates. The daemon's mq port never defines any, so its queue managers
// keep exactly their configured queues.

// Reason codes of run-time queue definitions.
const (
	reasonQDeleted           mq.Reason = 2052 // MQRC_Q_DELETED: the handle's dynamic queue is gone
	reasonObjectAlreadyExist mq.Reason = 2100 // MQRC_OBJECT_ALREADY_EXISTS
)

// DefinitionType is DEFTYPE of a local queue.
type DefinitionType int

// Definition types.
const (
	// Predefined (MQQDT_PREDEFINED): configured, or a system queue an MQI
	// server defines for itself.
	Predefined DefinitionType = iota
	// TemporaryDynamic (MQQDT_TEMPORARY_DYNAMIC): made by MQOPEN of a
	// model queue, gone when the handle that made it closes.
	TemporaryDynamic
)

// DefineQueue defines a local queue of the queue manager qmgr ("" for the
// default) at run time. A queue that sets no limits gets the queue
// manager's. The name shares the namespace of local, alias and remote
// queues: one already in use fails with MQRC_OBJECT_ALREADY_EXISTS (2100).
func (b *Backend) DefineQueue(qmgr string, cfg QueueConfig, defType DefinitionType) error {
	qm, err := b.queueManager(qmgr, mq.VerbOpen, cfg.Name)
	if err != nil {
		return err
	}
	if cfg.MaxDepth == 0 {
		cfg.MaxDepth = qm.maxDepth
	}
	if cfg.MaxMsgLength == 0 {
		cfg.MaxMsgLength = qm.maxMsgLength
	}
	qm.dynMu.Lock()
	defer qm.dynMu.Unlock()
	_, alias := qm.aliases[cfg.Name]
	if qm.queues[cfg.Name] != nil || qm.dynamic[cfg.Name] != nil || alias || qm.remotes[cfg.Name] != nil {
		return mq.NewError(mq.VerbOpen, cfg.Name, reasonObjectAlreadyExist)
	}
	q := newQueue(qm, cfg)
	q.defType = defType
	qm.dynamic[cfg.Name] = q
	return nil
}

// DeleteQueue deletes a queue DefineQueue defined, with its messages, as
// IBM MQ deletes a temporary dynamic queue when the handle that created it
// closes: other handles to it fail from then on with MQRC_Q_DELETED (2052),
// and gets waiting on it wake to that. A configured queue, or a name not
// defined, is MQRC_UNKNOWN_OBJECT_NAME (2085).
func (b *Backend) DeleteQueue(qmgr, name string) error {
	qm, err := b.queueManager(qmgr, mq.VerbClose, name)
	if err != nil {
		return err
	}
	qm.dynMu.Lock()
	q := qm.dynamic[name]
	delete(qm.dynamic, name)
	qm.dynMu.Unlock()
	if q == nil {
		return mq.NewError(mq.VerbClose, name, mq.ReasonUnknownObjectName)
	}
	q.deleted.Store(true)
	q.clear() // gives the bodies back; units of work still holding its messages see deleted
	return nil
}

// QueueDefinition is one queue of a queue manager as DISPLAY QUEUE shows
// its definition.
type QueueDefinition struct {
	Name           string
	Type           mq.QueueType
	DefinitionType DefinitionType // local queues
	MaxDepth       int            // local queues
	MaxMsgLength   int            // local queues
	Target         string         // an alias's TARGET
	// A remote definition's RNAME, RQMNAME and XMITQ (XMITQ as
	// configured: "" names the queue named like RemoteQueueManager).
	RemoteQueue, RemoteQueueManager, TransmissionQueue string
}

// QueueDefinitions lists the queues of queue manager qmgr ("" the
// default): local (configured and defined at run time), alias and remote,
// sorted by name.
func (b *Backend) QueueDefinitions(qmgr string) ([]QueueDefinition, error) {
	qm, err := b.queueManager(qmgr, mq.VerbInquire, qmgr)
	if err != nil {
		return nil, err
	}
	var defs []QueueDefinition
	qm.eachQueue(func(q *queue) {
		defs = append(defs, QueueDefinition{Name: q.name, Type: mq.QueueLocal, DefinitionType: q.defType,
			MaxDepth: q.effectiveMaxDepth(), MaxMsgLength: q.maxMsgLength})
	})
	for name, target := range qm.aliases {
		defs = append(defs, QueueDefinition{Name: name, Type: mq.QueueAlias, Target: target})
	}
	for name, r := range qm.remotes {
		defs = append(defs, QueueDefinition{Name: name, Type: mq.QueueRemote, RemoteQueue: r.RemoteQueue,
			RemoteQueueManager: r.RemoteQueueManager, TransmissionQueue: r.TransmissionQueue})
	}
	slices.SortFunc(defs, func(a, b QueueDefinition) int { return strings.Compare(a.Name, b.Name) })
	return defs, nil
}

// QueueManagerNames lists the queue managers, sorted.
func (b *Backend) QueueManagerNames() []string { return b.queueManagerNames() }

// queueManager is the queue manager name ("" the default), or
// MQRC_Q_MGR_NAME_ERROR.
func (b *Backend) queueManager(name string, verb mq.Verb, object string) (*queueManager, error) {
	qm := b.defaultQM
	if name != "" {
		qm = b.qmgrs[name]
	}
	if qm == nil {
		return nil, mq.NewError(verb, object, mq.ReasonQMgrNameError)
	}
	return qm, nil
}

// queue returns the local queue name, configured or defined at run time;
// nil when there is none.
func (qm *queueManager) queue(name string) *queue {
	if q := qm.queues[name]; q != nil {
		return q
	}
	qm.dynMu.RLock()
	defer qm.dynMu.RUnlock()
	return qm.dynamic[name]
}

// eachQueue calls fn for every local queue, configured and defined at run
// time. fn must not define or delete queues.
func (qm *queueManager) eachQueue(fn func(*queue)) {
	for _, q := range qm.queues {
		fn(q)
	}
	qm.dynMu.RLock()
	dynamic := slices.Collect(maps.Values(qm.dynamic))
	qm.dynMu.RUnlock()
	for _, q := range dynamic {
		fn(q)
	}
}
