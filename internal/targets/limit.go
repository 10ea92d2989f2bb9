package targets

import (
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Rate is a token bucket: PerSecond commands a second on average, Burst at
// once. A zero PerSecond is unlimited.
type Rate struct {
	PerSecond float64
	Burst     int
}

// Reservation is a token taken for a command. Cancel gives it back when the
// command turns out not to run (a replay, a conflict).
type Reservation struct {
	b *bucket
}

// Cancel returns the token.
func (r Reservation) Cancel() {
	if r.b != nil {
		r.b.give()
	}
}

// Reserve takes a token for a command to res. When none is free it returns
// ok false and how long until one is; nothing is taken then.
func (r *Resolver) Reserve(res Resolved) (tok Reservation, retryAfter time.Duration, ok bool) {
	if res.rate.PerSecond <= 0 {
		return Reservation{}, 0, true
	}
	b := r.limiters.get(res.limitKey, res.rate)
	if wait, ok := b.take(time.Now()); !ok {
		return Reservation{}, wait, false
	}
	return Reservation{b: b}, 0, true
}

// bucket is one target's token bucket. golang.org/x/time/rate is not used:
// its Cancel gives back nothing once a reservation's time has passed, and a
// replay is only known after the store round trip.
type bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func (b *bucket) take(now time.Time) (wait time.Duration, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return time.Duration((1 - b.tokens) / b.rate * float64(time.Second)), false
}

func (b *bucket) give() {
	b.mu.Lock()
	b.tokens = min(b.burst, b.tokens+1)
	b.mu.Unlock()
}

// maxLimiters bounds the buckets kept for inline targets; an evicted bucket
// starts full again, which only errs towards admitting.
const maxLimiters = 4096

type limiters struct {
	mu    sync.Mutex
	cache *lru.Cache[string, *bucket]
}

func newLimiters() *limiters {
	c, _ := lru.New[string, *bucket](maxLimiters) // fails only for a size ≤ 0
	return &limiters{cache: c}
}

func (l *limiters) get(key string, r Rate) *bucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.cache.Get(key); ok {
		return b
	}
	burst := float64(max(r.Burst, 1))
	b := &bucket{rate: r.PerSecond, burst: burst, tokens: burst, last: time.Now()}
	l.cache.Add(key, b)
	return b
}
