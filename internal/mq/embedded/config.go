package embedded

import (
	"errors"
	"fmt"
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

// Config lists the queue managers; empty means QM1 with DefaultQueues.
type Config struct {
	QueueManagers []QueueManagerConfig
}

// QueueManagerConfig describes one queue manager.
type QueueManagerConfig struct {
	Name               string
	CommandLevel       int   // MQIA_COMMAND_LEVEL reported by inquire; default 940
	MaxMsgLength       int   // MAXMSGL of the queue manager; default 4 MiB
	MaxUncommittedMsgs int   // MAXUMSGS: puts+gets per unit of work; default 10000
	MaxBytes           int64 // bodies held by all its queues, uncommitted ones too; more fails 2056; default DefaultMaxBytes
	Queues             []QueueConfig
	Aliases            []AliasQueueConfig  // QALIAS definitions
	Remotes            []RemoteQueueConfig // QREMOTE definitions
}

// AliasQueueConfig describes an alias queue (DEFINE QALIAS): opened for
// put, get or browse it resolves to Target, a local queue or a remote
// definition of the same queue manager; opened for inquire it is itself.
type AliasQueueConfig struct {
	Name   string
	Target string // TARGET (BASE_Q_NAME)
}

// RemoteQueueConfig describes a remote queue definition (DEFINE QREMOTE).
// Opened for output it puts to TransmissionQueue, a local queue of the same
// queue manager (no channel moves messages on); it cannot be opened for
// input or browse (2045).
type RemoteQueueConfig struct {
	Name               string
	RemoteQueue        string // RNAME
	RemoteQueueManager string // RQMNAME
	TransmissionQueue  string // XMITQ; "" = the local queue named like RemoteQueueManager
}

// xmitq is the local queue a remote definition's messages go to.
func (r RemoteQueueConfig) xmitq() string {
	if r.TransmissionQueue != "" {
		return r.TransmissionQueue
	}
	return r.RemoteQueueManager
}

// QueueConfig describes one local queue.
type QueueConfig struct {
	Name         string
	MaxDepth     int // MAXDEPTH; default 5000
	MaxMsgLength int // MAXMSGL; default 4 MiB
}

func (c *Config) setDefaults() {
	if len(c.QueueManagers) == 0 {
		c.QueueManagers = []QueueManagerConfig{{Name: DefaultQueueManager}}
	}
	for i := range c.QueueManagers {
		c.QueueManagers[i].setDefaults()
	}
}

func (c *QueueManagerConfig) setDefaults() {
	if c.CommandLevel == 0 {
		c.CommandLevel = DefaultCommandLevel
	}
	if c.MaxMsgLength == 0 {
		c.MaxMsgLength = DefaultMaxMsgLength
	}
	if c.MaxUncommittedMsgs == 0 {
		c.MaxUncommittedMsgs = DefaultMaxUncommittedMsgs
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if len(c.Queues) == 0 {
		for _, name := range DefaultQueues {
			c.Queues = append(c.Queues, QueueConfig{Name: name})
		}
	}
	for i := range c.Queues {
		q := &c.Queues[i]
		if q.MaxDepth == 0 {
			q.MaxDepth = DefaultMaxDepth
		}
		if q.MaxMsgLength == 0 {
			q.MaxMsgLength = DefaultMaxMsgLength
		}
	}
}

// Validate reports every invalid setting, naming it under
// embedded.queueManagers.
func (c Config) Validate() error { return c.ValidateAt("embedded.queueManagers") }

// ValidateAt reports every invalid setting, naming it under key, the list
// of queue managers in the caller's configuration file.
func (c Config) ValidateAt(key string) error {
	var errs []error
	qmNames := map[string]bool{}
	for i, qm := range c.QueueManagers {
		at := fmt.Sprintf("%s[%d]", key, i)
		errs = append(errs, validateName(at+".name", qm.Name, 48))
		if qmNames[qm.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate queue manager %q", at, qm.Name))
		}
		qmNames[qm.Name] = true
		errs = append(errs,
			notNegative(at+".commandLevel", qm.CommandLevel),
			notNegative(at+".maxMsgLength", qm.MaxMsgLength),
			notNegative(at+".maxUncommittedMsgs", qm.MaxUncommittedMsgs),
			notNegative(at+".maxBytes", qm.MaxBytes))
		// Queue names share one namespace whatever the queue's type, as on
		// IBM MQ.
		qNames := map[string]bool{}
		unique := func(qat, name string) {
			errs = append(errs, validateName(qat+".name", name, 48))
			if qNames[name] {
				errs = append(errs, fmt.Errorf("%s.name: duplicate queue %q", qat, name))
			}
			qNames[name] = true
		}
		locals := map[string]bool{}
		for j, q := range qm.Queues {
			qat := fmt.Sprintf("%s.queues[%d]", at, j)
			unique(qat, q.Name)
			locals[q.Name] = true
			errs = append(errs,
				notNegative(qat+".maxDepth", q.MaxDepth),
				notNegative(qat+".maxMsgLength", q.MaxMsgLength))
		}
		remotes := map[string]bool{}
		for j, r := range qm.Remotes {
			rat := fmt.Sprintf("%s.remotes[%d]", at, j)
			unique(rat, r.Name)
			remotes[r.Name] = true
			errs = append(errs,
				validateName(rat+".remoteQueue", r.RemoteQueue, 48),
				validateName(rat+".remoteQueueManager", r.RemoteQueueManager, 48))
			if r.TransmissionQueue != "" {
				errs = append(errs, validateName(rat+".transmissionQueue", r.TransmissionQueue, 48))
			}
			if r.RemoteQueueManager != "" && !locals[r.xmitq()] {
				field := ".transmissionQueue"
				if r.TransmissionQueue == "" {
					field = ".remoteQueueManager" // the xmitq defaults to its name
				}
				errs = append(errs, fmt.Errorf("%s%s: transmission queue %q must be a local queue of queue manager %q", rat, field, r.xmitq(), qm.Name))
			}
		}
		for j, a := range qm.Aliases {
			aat := fmt.Sprintf("%s.aliases[%d]", at, j)
			unique(aat, a.Name)
			if !locals[a.Target] && !remotes[a.Target] {
				errs = append(errs, fmt.Errorf("%s.target: %q must name a local queue or a remote definition of queue manager %q", aat, a.Target, qm.Name))
			}
		}
	}
	return errors.Join(errs...)
}

func validateName(at, name string, maxLen int) error {
	if name == "" || len(name) > maxLen {
		return fmt.Errorf("%s: must be 1-%d characters (got %q)", at, maxLen, name)
	}
	for _, c := range name {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '/' || c == '_' || c == '%') {
			return fmt.Errorf("%s: %q may contain only A-Z a-z 0-9 . / _ %%", at, name)
		}
	}
	return nil
}

func notNegative[T int | int64](at string, v T) error {
	if v < 0 {
		return fmt.Errorf("%s: must not be negative (got %d)", at, v)
	}
	return nil
}
