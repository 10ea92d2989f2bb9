package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Benchmark measures a store through the engine and counts its round trips
// per command (the "roundtrips/cmd" metric, from Counting, not estimated):
//   - new: a fresh command's Begin and Complete (goal: 2 round trips);
//   - duplicate: a copy of a completed command, replayed from the store (1);
//   - inflight-duplicate: a copy arriving while this process still runs the
//     command, answered by the single-flight (0);
//   - cached-duplicate: a copy of a completed command replayed from the
//     local LRU, idempotency.localCacheSize > 0 (0).
//
// new and duplicate also run at concurrency 32. Every case reports cmds/s.
func Benchmark(b *testing.B, factory Factory) {
	for _, conc := range []int{1, 32} {
		b.Run(fmt.Sprintf("new/c%d", conc), func(b *testing.B) {
			store, e := benchEngine(b, factory, 0)
			prefix := uuid.NewString()
			run(b, store, conc, func(i int) error {
				res, err := begin(e, fmt.Sprintf("%s-%d", prefix, i), idempotency.Acquired)
				if err != nil {
					return err
				}
				_, err = e.Complete(context.Background(), res.Lease, idempotency.Response{Payload: payload, HTTPStatus: 201})
				return err
			})
		})
		b.Run(fmt.Sprintf("duplicate/c%d", conc), func(b *testing.B) {
			store, e := benchEngine(b, factory, 0)
			keys := completedKeys(b, e)
			run(b, store, conc, func(i int) error {
				_, err := begin(e, keys[i%len(keys)], idempotency.Replay)
				return err
			})
		})
	}
	b.Run("inflight-duplicate/c1", func(b *testing.B) {
		store, e := benchEngine(b, factory, 0)
		keys := make([]string, 64)
		prefix := uuid.NewString()
		for i := range keys {
			keys[i] = fmt.Sprintf("%s-%d", prefix, i)
			if _, err := begin(e, keys[i], idempotency.Acquired); err != nil { // held: never completed
				b.Fatal(err)
			}
		}
		run(b, store, 1, func(i int) error {
			res, err := begin(e, keys[i%len(keys)], idempotency.InProgress)
			if err == nil && res.Source != idempotency.FromSingleFlight {
				err = fmt.Errorf("in-flight duplicate answered by %v, want the single-flight", res.Source)
			}
			return err
		})
	})
	b.Run("cached-duplicate/c1", func(b *testing.B) {
		store, e := benchEngine(b, factory, 1024)
		keys := completedKeys(b, e)
		for _, k := range keys { // the first replay of each comes from the store and fills the cache
			if _, err := begin(e, k, idempotency.Replay); err != nil {
				b.Fatal(err)
			}
		}
		run(b, store, 1, func(i int) error {
			res, err := begin(e, keys[i%len(keys)], idempotency.Replay)
			if err == nil && res.Source != idempotency.FromLocalCache {
				err = fmt.Errorf("cached duplicate answered by %v, want the local cache", res.Source)
			}
			return err
		})
	})
}

func benchEngine(b *testing.B, factory Factory, localCache int) (*Counting, *idempotency.Engine) {
	store := &Counting{Store: factory(b)}
	b.Cleanup(func() { store.Close() })
	e, err := idempotency.New(store, idempotency.Config{LocalCacheSize: localCache}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return store, e
}

// begin claims key and checks the outcome.
func begin(e *idempotency.Engine, key string, want idempotency.Outcome) (idempotency.Result, error) {
	res, err := e.Begin(context.Background(), request(key, hashA))
	if err == nil && res.Outcome != want {
		err = fmt.Errorf("Begin(%s) = %s, want %s", key, res.Outcome, want)
	}
	return res, err
}

// completedKeys runs 512 commands to completion and returns their keys.
func completedKeys(b *testing.B, e *idempotency.Engine) []string {
	keys := make([]string, 512)
	prefix := uuid.NewString()
	for i := range keys {
		keys[i] = fmt.Sprintf("%s-%d", prefix, i)
		res, err := begin(e, keys[i], idempotency.Acquired)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Complete(context.Background(), res.Lease, idempotency.Response{Payload: payload}); err != nil {
			b.Fatal(err)
		}
	}
	return keys
}

// run splits b.N commands over conc goroutines and reports cmds/s and the
// store round trips per command.
func run(b *testing.B, store *Counting, conc int, op func(i int) error) {
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		failed atomic.Value
	)
	before := store.Calls()
	b.ResetTimer()
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				if err := op(i); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "cmds/s")
	b.ReportMetric(float64(store.Calls()-before)/float64(b.N), "roundtrips/cmd")
}
