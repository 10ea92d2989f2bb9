package executor

import (
	"sync"
	"time"
)

// outcomeWindow counts outcomes per tenant in one-minute buckets over the
// last hour, for GET /status: the ring holds one bucket per minute, and a
// bucket left from an earlier hour is cleared before it is reused.
type outcomeWindow struct {
	mu      sync.Mutex
	buckets [60]outcomeBucket
}

type outcomeBucket struct {
	minute int64 // Unix minute the counts belong to
	counts map[outcomeKey]int64
}

// outcomeKey is one tenant's ("" for the implicit one) outcome.
type outcomeKey struct{ tenant, outcome string }

func (w *outcomeWindow) add(now time.Time, tenant, outcome string) {
	minute := now.Unix() / 60
	w.mu.Lock()
	defer w.mu.Unlock()
	b := &w.buckets[minute%int64(len(w.buckets))]
	if b.minute != minute || b.counts == nil {
		*b = outcomeBucket{minute: minute, counts: map[outcomeKey]int64{}}
	}
	b.counts[outcomeKey{tenant, outcome}]++
}

// count returns tenant's outcomes of the hour up to now, by outcome name.
func (w *outcomeWindow) count(now time.Time, tenant string) map[string]int64 {
	minute := now.Unix() / 60
	out := map[string]int64{}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.buckets {
		if b.minute <= minute-int64(len(w.buckets)) || b.minute > minute {
			continue
		}
		for k, n := range b.counts {
			if k.tenant == tenant {
				out[k.outcome] += n
			}
		}
	}
	return out
}
