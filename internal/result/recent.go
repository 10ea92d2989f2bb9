package result

import (
	"context"
	"sync"
)

// Recent keeps the last events in memory for GET /results. It is a
// Publisher, so it sits beside the real destination.
type Recent struct {
	mu     sync.Mutex
	events []Event // ring
	next   int
	full   bool
}

// NewRecent keeps up to n events.
func NewRecent(n int) *Recent {
	return &Recent{events: make([]Event, max(n, 1))}
}

// Publish implements Publisher.
func (r *Recent) Publish(_ context.Context, e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[r.next] = e
	r.next = (r.next + 1) % len(r.events)
	if r.next == 0 {
		r.full = true
	}
	return nil
}

// Filter selects events; empty fields match anything.
type Filter struct {
	IdempotencyKey string
	OperationType  string
	Status         Status
	Limit          int
}

func (f Filter) match(e Event) bool {
	return (f.IdempotencyKey == "" || e.Data.IdempotencyKey == f.IdempotencyKey) &&
		(f.OperationType == "" || e.Data.OperationType == f.OperationType) &&
		(f.Status == "" || e.Data.Status == f.Status)
}

// Find returns matching events, newest first.
func (r *Recent) Find(f Filter) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.next
	if r.full {
		n = len(r.events)
	}
	out := []Event{}
	for i := 1; i <= n; i++ {
		e := r.events[(r.next-i+len(r.events))%len(r.events)]
		if f.match(e) {
			out = append(out, e)
			if f.Limit > 0 && len(out) == f.Limit {
				break
			}
		}
	}
	return out
}
