package result

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// Recent keeps the last events in memory for GET /results, bounded by a
// count and by their size: a CONSUME result lists every message it took,
// so a thousand of them could hold gigabytes. It is a Publisher, so it
// sits beside the real destination.
type Recent struct {
	mu       sync.Mutex
	events   []Event // oldest first
	bytes    int     // size of events
	max      int
	maxBytes int
}

// eventOverhead approximates an event's size beyond its variable parts.
const eventOverhead = 512

// RecentConfig is the results keys of the store GET /results reads.
type RecentConfig struct {
	Recent         int `yaml:"recent" desc:"Result events GET /results keeps in embedded mode"`
	RecentMaxBytes int `yaml:"recentMaxBytes" desc:"Bytes of result events GET /results keeps at most (oldest dropped first; a CONSUME lists every message it took)"`
}

// DefaultRecentConfig keeps the last 1000 events, 32 MiB at most.
func DefaultRecentConfig() RecentConfig { return RecentConfig{Recent: 1000, RecentMaxBytes: 32 << 20} }

// Validate checks results.recent and results.recentMaxBytes, each a
// *configcheck.FieldError.
func (c RecentConfig) Validate() error {
	var v configcheck.Errors
	v.NonNegative("results.recent", c.Recent)
	v.NonNegative("results.recentMaxBytes", c.RecentMaxBytes)
	return v.Err()
}

// NewRecent is the store c describes.
func (c RecentConfig) NewRecent() *Recent { return NewRecent(c.Recent, c.RecentMaxBytes) }

// NewRecent keeps up to n events (at least 1) holding at most maxBytes
// (≤ 0: no byte bound); the newest event is kept whatever its size.
func NewRecent(n, maxBytes int) *Recent {
	return &Recent{max: max(n, 1), maxBytes: maxBytes}
}

func size(e Event) int {
	return eventOverhead + len(e.Data.Result) + len(e.Data.RawBody)
}

// Publish implements Publisher.
func (r *Recent) Publish(_ context.Context, e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	r.bytes += size(e)
	drop := 0
	for len(r.events)-drop > 1 && (len(r.events)-drop > r.max || (r.maxBytes > 0 && r.bytes > r.maxBytes)) {
		r.bytes -= size(r.events[drop])
		drop++
	}
	if drop > 0 {
		// Copy down rather than reslice, so dropped events are freed.
		n := copy(r.events, r.events[drop:])
		clear(r.events[n:])
		r.events = r.events[:n]
	}
	return nil
}

// Filter selects events; empty fields match anything, except Tenant.
type Filter struct {
	// Tenant selects the events of one tenant: a named one, or "" for the
	// implicit tenant's. It always applies.
	Tenant         string
	IdempotencyKey string
	OperationType  string
	Status         Status
	// Target is a data.target ("QM1:DEV.QUEUE.1"), or a queue manager
	// ("QM1") matching every queue of it.
	Target string
	// Since and Until bound the event time, both inclusive.
	Since, Until time.Time
	Limit        int
}

func (f Filter) match(e Event) bool {
	return e.Data.Tenant == f.Tenant && (f.IdempotencyKey == "" || e.Data.IdempotencyKey == f.IdempotencyKey) &&
		(f.OperationType == "" || e.Data.OperationType == f.OperationType) &&
		(f.Status == "" || e.Data.Status == f.Status) && f.matchTarget(e.Data.Target) &&
		(f.Since.IsZero() || !e.Time.Before(f.Since)) && (f.Until.IsZero() || !e.Time.After(f.Until))
}

func (f Filter) matchTarget(target string) bool {
	if f.Target == "" || target == f.Target {
		return true
	}
	qm, _, _ := strings.Cut(target, ":")
	return !strings.Contains(f.Target, ":") && qm == f.Target
}

// Find returns matching events, newest first.
func (r *Recent) Find(f Filter) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []Event{}
	for i := len(r.events) - 1; i >= 0; i-- {
		if e := r.events[i]; f.match(e) {
			out = append(out, e)
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
	}
	return out
}
