package result

import (
	"context"
	"errors"
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
	mu sync.Mutex
	// ring holds the n events kept, the oldest at ring[head]: dropping the
	// oldest is O(1), where copying the others down cost each Publish a
	// copy of up to max events.
	ring     []Event
	head, n  int
	bytes    int // size of the events kept
	max      int
	maxBytes int
	// watchers receive the events published from now on.
	watchers map[*Watch]struct{}
}

// Bounds of the watches of new events (GET /results/stream).
const (
	// MaxWatches is how many watches may be open at once.
	MaxWatches = 32
	// watchBuffer is the events a watch holds for a slow reader; past it,
	// the watch ends (Lagged) rather than hold more or block publishing.
	watchBuffer = 256
)

// ErrTooManyWatches refuses a watch past MaxWatches.
var ErrTooManyWatches = errors.New("result: too many watches of new events open")

// Watch receives the events published after it began that its filter
// matches, on Events, until Close, or until its reader falls
// watchBuffer events behind: then Events is closed and Lagged reports it.
type Watch struct {
	Events <-chan Event
	events chan Event
	filter Filter
	r      *Recent
	lagged bool // under r.mu
}

// Watch begins a watch of the events f matches (Limit, Since and Until do
// not apply), or fails with ErrTooManyWatches.
func (r *Recent) Watch(f Filter) (*Watch, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.watchers) >= MaxWatches {
		return nil, ErrTooManyWatches
	}
	if r.watchers == nil {
		r.watchers = map[*Watch]struct{}{}
	}
	f.Limit, f.Since, f.Until = 0, time.Time{}, time.Time{}
	w := &Watch{events: make(chan Event, watchBuffer), filter: f, r: r}
	w.Events = w.events
	r.watchers[w] = struct{}{}
	return w, nil
}

// Close ends the watch; Events is closed.
func (w *Watch) Close() {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	if _, ok := w.r.watchers[w]; ok {
		delete(w.r.watchers, w)
		close(w.events)
	}
}

// Lagged reports whether the watch ended because its reader fell behind.
func (w *Watch) Lagged() bool {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.lagged
}

// notify hands e to the watches it matches; under r.mu.
func (r *Recent) notify(e Event) {
	for w := range r.watchers {
		if !w.filter.match(e) {
			continue
		}
		select {
		case w.events <- e:
		default:
			w.lagged = true
			delete(r.watchers, w)
			close(w.events)
		}
	}
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
	if r.n == len(r.ring) {
		if len(r.ring) < r.max {
			r.grow()
		} else {
			r.dropOldest()
		}
	}
	r.ring[(r.head+r.n)%len(r.ring)] = e
	r.n++
	r.bytes += size(e)
	r.notify(e)
	for r.n > 1 && r.maxBytes > 0 && r.bytes > r.maxBytes {
		r.dropOldest()
	}
	return nil
}

// event is the i-th oldest event kept.
func (r *Recent) event(i int) *Event { return &r.ring[(r.head+i)%len(r.ring)] }

// dropOldest frees the oldest event kept.
func (r *Recent) dropOldest() {
	r.bytes -= size(r.ring[r.head])
	r.ring[r.head] = Event{}
	r.head = (r.head + 1) % len(r.ring)
	r.n--
}

// grow doubles the ring, up to max events, oldest first from index 0.
func (r *Recent) grow() {
	ring := make([]Event, min(r.max, max(2*len(r.ring), 16)))
	for i := range r.n {
		ring[i] = *r.event(i)
	}
	r.ring, r.head = ring, 0
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
	for i := r.n - 1; i >= 0; i-- {
		if e := r.event(i); f.match(*e) {
			out = append(out, *e)
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
	}
	return out
}
