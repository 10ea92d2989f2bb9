package embedded

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// Defaults, as on a fresh IBM MQ developer queue manager.
const (
	DefaultQueueManager       = "QM1"
	DefaultMaxDepth           = 5000
	DefaultMaxMsgLength       = 4 * 1024 * 1024
	DefaultMaxUncommittedMsgs = 10000
	DefaultCommandLevel       = 940
)

// DefaultMaxBytes bounds the message bodies a queue manager holds, 128 MiB:
// MAXDEPTH and MAXMSGL alone would let each default queue hold 5000 × 4 MiB
// (about 20 GB) in the daemon's memory. Bodies sit in buffers at most a
// quarter plus 512 bytes larger than they are, and each message costs a few
// hundred bytes of bookkeeping besides, so the default queue manager (4
// queues of MAXDEPTH 5000) holds under 190 MiB of bodies and bookkeeping.
// Message properties are not counted.
const DefaultMaxBytes int64 = 128 * 1024 * 1024

// DefaultQueues are the queues every queue manager without configured queues
// gets.
var DefaultQueues = []string{"DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE"}

// Config lists the queue managers; empty means QM1 with DefaultQueues. It
// is the one queue-manager schema: the daemon's mq.embedded section and the
// simulator's file (configs/mqserver.yaml) are both this (yaml and desc
// tags: see internal/config).
type Config struct {
	QueueManagers []QueueManagerConfig `yaml:"queueManagers"`
}

// QueueManagerConfig describes one queue manager. MaxDepth and MaxMsgLength
// are also the limits of each of its queues that sets none.
type QueueManagerConfig struct {
	Name   string `yaml:"name" desc:"Embedded queue manager name"`
	Queues Queues `yaml:"queues" type:"[]string" desc:"Local queues of this queue manager"`
	// MaxDepth is MAXDEPTH of each queue that sets none; default 5000.
	MaxDepth int `yaml:"maxDepth" desc:"MAXDEPTH of each of its queues"`
	// MaxMsgLength is MAXMSGL of the queue manager, and of each queue that
	// sets none; default 4 MiB.
	MaxMsgLength int `yaml:"maxMsgLength" desc:"MAXMSGL of the queue manager and its queues, in bytes"`
	// MaxBytes bounds the bodies held by all its queues, uncommitted ones
	// too; more fails 2056; default DefaultMaxBytes.
	MaxBytes int64 `yaml:"maxBytes" desc:"Most bytes of message bodies held across its queues, uncommitted ones included, which bounds its memory; a put over it fails with 2056 (MQRC_Q_SPACE_NOT_AVAILABLE). At least maxMsgLength"`
	// MaxUncommittedMsgs is MAXUMSGS: puts+gets per unit of work; default 10000.
	MaxUncommittedMsgs int                 `yaml:"maxUncommittedMsgs" desc:"MAXUMSGS: most puts and gets in one unit of work; one more fails with 2024 (MQRC_SYNCPOINT_LIMIT_REACHED)"`
	Aliases            []AliasQueueConfig  `yaml:"aliases" desc:"Alias queues (DEFINE QALIAS): put, get and browse reach the target; DEPTH reports the alias and its target"`
	Remotes            []RemoteQueueConfig `yaml:"remotes" desc:"Remote queue definitions (DEFINE QREMOTE): puts wait on the transmission queue (no channel moves them on); they cannot be read"`
	// CommandLevel is MQIA_COMMAND_LEVEL reported by inquire; 0 means
	// DefaultCommandLevel.
	CommandLevel int `yaml:"commandLevel,omitempty" default:"940" desc:"MQIA_COMMAND_LEVEL that an inquire of the queue manager reports"`
}

// AliasQueueConfig describes an alias queue (DEFINE QALIAS): opened for
// put, get or browse it resolves to Target, a local queue or a remote
// definition of the same queue manager; opened for inquire it is itself.
type AliasQueueConfig struct {
	Name   string `yaml:"name" desc:"Alias queue name"`
	Target string `yaml:"target" desc:"TARGET: a local queue or remote definition of the same queue manager"`
}

// RemoteQueueConfig describes a remote queue definition (DEFINE QREMOTE).
// Opened for output it puts to TransmissionQueue, a local queue of the same
// queue manager (no channel moves messages on); it cannot be opened for
// input or browse (2045).
type RemoteQueueConfig struct {
	Name               string `yaml:"name" desc:"Remote queue definition name"`
	RemoteQueue        string `yaml:"remoteQueue" desc:"RNAME: the queue's name on the remote queue manager"`
	RemoteQueueManager string `yaml:"remoteQueueManager" desc:"RQMNAME: the remote queue manager"`
	TransmissionQueue  string `yaml:"transmissionQueue" desc:"XMITQ: a local queue of the same queue manager (empty = the one named like remoteQueueManager)"`
}

// xmitq is the local queue a remote definition's messages go to.
func (r RemoteQueueConfig) xmitq() string {
	if r.TransmissionQueue != "" {
		return r.TransmissionQueue
	}
	return r.RemoteQueueManager
}

// QueueConfig describes one local queue; a limit left 0 is its queue
// manager's.
type QueueConfig struct {
	Name         string
	MaxDepth     int // MAXDEPTH
	MaxMsgLength int // MAXMSGL
	// BOTHRESH and BOQNAME, for applications to inquire: as on IBM MQ, the
	// queue manager itself requeues nothing.
	BackoutThreshold    int
	BackoutRequeueQueue string
}

// DefaultQueueManagerConfig is QM1 with DefaultQueues and every limit at
// its default.
func DefaultQueueManagerConfig() QueueManagerConfig {
	qm := QueueManagerConfig{Name: DefaultQueueManager, Queues: QueueNames(DefaultQueues...)}
	qm.SetDefaults()
	return qm
}

func (c *Config) setDefaults() {
	if len(c.QueueManagers) == 0 {
		c.QueueManagers = []QueueManagerConfig{{Name: DefaultQueueManager}}
	}
	for i := range c.QueueManagers {
		qm := &c.QueueManagers[i]
		qm.SetDefaults()
		qm.CommandLevel = cmp.Or(qm.CommandLevel, DefaultCommandLevel)
		if len(qm.Queues) == 0 {
			qm.Queues = QueueNames(DefaultQueues...)
		}
		// Copied: the caller's queues stay as it wrote them.
		qm.Queues = slices.Clone(qm.Queues)
		for j := range qm.Queues {
			q := &qm.Queues[j]
			q.MaxDepth = cmp.Or(q.MaxDepth, qm.MaxDepth)
			q.MaxMsgLength = cmp.Or(q.MaxMsgLength, qm.MaxMsgLength)
		}
	}
}

// SetDefaults fills the queue manager's own limits left 0; its queues keep
// theirs (0 = the queue manager's).
func (c *QueueManagerConfig) SetDefaults() {
	c.MaxDepth = cmp.Or(c.MaxDepth, DefaultMaxDepth)
	c.MaxMsgLength = cmp.Or(c.MaxMsgLength, DefaultMaxMsgLength)
	c.MaxUncommittedMsgs = cmp.Or(c.MaxUncommittedMsgs, DefaultMaxUncommittedMsgs)
	c.MaxBytes = cmp.Or(c.MaxBytes, DefaultMaxBytes)
}

// IBM MQ's limits, so that bad values fail at start and not at the first
// command.
const (
	maxNameLength       = 48
	maxMsgLengthLimit   = 104857600 // 100 MiB, the largest MAXMSGL
	maxDepthLimit       = 999999999 // the largest MAXDEPTH
	maxBackoutThreshold = 999999999 // the largest BOTHRESH
	maxUncommittedMsgs  = 999999999 // the largest MAXUMSGS
)

// Validate reports every invalid setting, a limit left 0 counting as its
// default, naming it under embedded.queueManagers.
func (c Config) Validate() error { return c.ValidateAt("embedded.queueManagers") }

// ValidateAt reports every invalid setting, each a
// *configcheck.FieldError naming it under key, the list of queue managers
// in the caller's configuration file.
func (c Config) ValidateAt(key string) error {
	var v configcheck.Errors
	seenQM := map[string]bool{}
	for i, qm := range c.QueueManagers {
		at := fmt.Sprintf("%s[%d]", key, i)
		if v.MQName(at+".name", qm.Name, maxNameLength) {
			if seenQM[qm.Name] {
				v.Fail(at+".name", "duplicate queue manager %q", qm.Name)
			}
			seenQM[qm.Name] = true
		}
		qm.SetDefaults()
		qm.validate(&v, at)
	}
	return v.Err()
}

func (qm QueueManagerConfig) validate(v *configcheck.Errors, at string) {
	// Local queues, aliases and remote definitions share one namespace, as
	// on IBM MQ.
	seen := map[string]bool{}
	unique := func(k, name string) {
		if v.MQName(k, name, maxNameLength) {
			if seen[name] {
				v.Fail(k, "duplicate queue %q", name)
			}
			seen[name] = true
		}
	}
	locals := map[string]bool{}
	for j, q := range qm.Queues {
		qat := fmt.Sprintf("%s.queues[%d]", at, j)
		unique(qat, q.Name)
		locals[q.Name] = true
		if q.MaxDepth != 0 {
			v.Between(qat+".maxDepth", q.MaxDepth, 1, maxDepthLimit)
		}
		if q.MaxMsgLength != 0 {
			v.Between(qat+".maxMsgLength", q.MaxMsgLength, 1, maxMsgLengthLimit)
		}
		v.Between(qat+".backoutThreshold", q.BackoutThreshold, 0, maxBackoutThreshold)
		if q.BackoutRequeueQueue != "" {
			v.MQName(qat+".backoutRequeueQueue", q.BackoutRequeueQueue, maxNameLength)
		}
	}
	remotes := map[string]bool{}
	for j, r := range qm.Remotes {
		rat := fmt.Sprintf("%s.remotes[%d]", at, j)
		unique(rat+".name", r.Name)
		remotes[r.Name] = true
		v.MQName(rat+".remoteQueue", r.RemoteQueue, maxNameLength)
		if v.MQName(rat+".remoteQueueManager", r.RemoteQueueManager, maxNameLength) && !locals[r.xmitq()] {
			field := rat + ".transmissionQueue"
			if r.TransmissionQueue == "" {
				field = rat + ".remoteQueueManager" // the xmitq defaults to its name
			}
			v.Fail(field, "transmission queue %q must be a local queue of queue manager %q", r.xmitq(), qm.Name)
		}
	}
	for j, a := range qm.Aliases {
		aat := fmt.Sprintf("%s.aliases[%d]", at, j)
		unique(aat+".name", a.Name)
		if !locals[a.Target] && !remotes[a.Target] {
			v.Fail(aat+".target", "%q must name a local queue or a remote definition of queue manager %q", a.Target, qm.Name)
		}
	}
	v.Between(at+".maxUncommittedMsgs", qm.MaxUncommittedMsgs, 1, maxUncommittedMsgs)
	v.Between(at+".maxDepth", qm.MaxDepth, 1, maxDepthLimit)
	v.Between(at+".maxMsgLength", qm.MaxMsgLength, 1, maxMsgLengthLimit)
	v.NonNegative(at+".commandLevel", qm.CommandLevel)
	if qm.MaxBytes < 0 {
		v.Fail(at+".maxBytes", "must not be negative (got %d)", qm.MaxBytes)
	}
}
