// Package inflight tracks the commands this process is executing and how
// far each has got. Handlers move a command's Counters with single atomic
// stores, so tracking costs a put loop no lock and no allocation; readers
// (the HTTP API's GET /commands/{op}/{key} and /status) take snapshots.
package inflight

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Counters is one command's live progress, cumulative over its attempts:
// Total messages asked for (0 when unbounded or not counted), Done put or
// got so far (the messages an earlier attempt committed included), and
// Committed of them committed and checkpointed. A nil *Counters ignores
// every update, so handlers need not check.
type Counters struct {
	total     atomic.Int64
	done      atomic.Int64
	committed atomic.Int64
	// resumedFrom is Done when this attempt started, for its rate.
	resumedFrom atomic.Int64
}

// Start sets the total and where this attempt starts: from messages an
// earlier attempt committed.
func (c *Counters) Start(total, from int64) {
	if c == nil {
		return
	}
	c.total.Store(total)
	c.resumedFrom.Store(from)
	c.done.Store(from)
	c.committed.Store(from)
}

// SetDone records that n messages are put or got so far.
func (c *Counters) SetDone(n int64) {
	if c != nil {
		c.done.Store(n)
	}
}

// SetCommitted records that n messages are committed and checkpointed.
func (c *Counters) SetCommitted(n int64) {
	if c != nil {
		c.committed.Store(n)
	}
}

// Values returns the counters as last stored.
func (c *Counters) Values() (total, done, committed int64) {
	if c == nil {
		return 0, 0, 0
	}
	return c.total.Load(), c.done.Load(), c.committed.Load()
}

// Command is one command executing in this process.
type Command struct {
	OperationType string
	Tenant        string // "" for the implicit tenant
	Key           string
	Attempt       int
	StartedAt     time.Time
	Counters      Counters
}

// Snapshot is a Command as it stands at one instant.
type Snapshot struct {
	OperationType  string    `json:"operationType"`
	Tenant         string    `json:"tenant,omitempty"`
	IdempotencyKey string    `json:"idempotencyKey"`
	Attempt        int       `json:"attempt"`
	StartedAt      time.Time `json:"startedAt"`
	// Total is omitted when the command is unbounded or counts nothing.
	Total     int64 `json:"total,omitempty"`
	Done      int64 `json:"done"`
	Committed int64 `json:"committed"`
	// RatePerSec is this attempt's messages per second; omitted until it
	// has done some.
	RatePerSec float64 `json:"ratePerSec,omitempty"`
}

// Snapshot reads c at now.
func (c *Command) Snapshot(now time.Time) Snapshot {
	total, done, committed := c.Counters.Values()
	s := Snapshot{OperationType: c.OperationType, Tenant: c.Tenant, IdempotencyKey: c.Key, Attempt: c.Attempt,
		StartedAt: c.StartedAt, Total: total, Done: done, Committed: min(committed, done)}
	if elapsed := now.Sub(c.StartedAt).Seconds(); elapsed > 0 {
		if n := done - c.Counters.resumedFrom.Load(); n > 0 {
			s.RatePerSec = math.Round(float64(n)/elapsed*10) / 10
		}
	}
	return s
}

// Registry is the commands this process is executing, by operation type,
// tenant and key. The zero value is ready to use.
type Registry struct {
	mu sync.Mutex
	// commands holds each registration apart: with idempotency disabled
	// two commands with one key may run at once, each removing only itself.
	commands map[commandID][]*Command
	n        int
}

type commandID struct{ op, tenant, key string }

// Add registers cmd until the returned remove is called; the caller calls
// it when the command ends, however it ends (defer it). Commands
// registered under the same operation type, tenant and key are kept side
// by side, and each remove removes only its own command.
func (r *Registry) Add(cmd *Command) (remove func()) {
	id := commandID{cmd.OperationType, cmd.Tenant, cmd.Key}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.commands == nil {
		r.commands = map[commandID][]*Command{}
	}
	r.commands[id] = append(r.commands[id], cmd)
	r.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			cmds := r.commands[id]
			if i := slices.Index(cmds, cmd); i >= 0 {
				cmds = slices.Delete(cmds, i, i+1)
				r.n--
			}
			if len(cmds) == 0 {
				delete(r.commands, id)
			} else {
				r.commands[id] = cmds
			}
		})
	}
}

// Get returns the command of an operation type, tenant and key if this
// process is executing it; of several, the one registered last.
func (r *Registry) Get(op, tenant, key string) (*Command, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cmds := r.commands[commandID{op, tenant, key}]
	if len(cmds) == 0 {
		return nil, false
	}
	return cmds[len(cmds)-1], true
}

// Len is how many commands are executing.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// List returns snapshots of a tenant's commands ("" for the implicit
// tenant), at most limit of them, the longest-running first, and how many
// more it left out.
func (r *Registry) List(tenant string, limit int, now time.Time) (snapshots []Snapshot, more int) {
	r.mu.Lock()
	cmds := make([]*Command, 0, r.n)
	for id, registered := range r.commands {
		if id.tenant == tenant {
			cmds = append(cmds, registered...)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(cmds, func(a, b *Command) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.Key, b.Key))
	})
	if len(cmds) > limit {
		more = len(cmds) - max(limit, 0)
		cmds = cmds[:max(limit, 0)]
	}
	snapshots = make([]Snapshot, len(cmds))
	for i, c := range cmds {
		snapshots[i] = c.Snapshot(now)
	}
	return snapshots, more
}
