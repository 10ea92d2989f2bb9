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

// Benchmark measures a store through the engine: a new command's
// Begin+Complete and a duplicate's Begin→Replay, at concurrency 1 and 32.
// It reports operations per second and store round trips per operation.
func Benchmark(b *testing.B, factory Factory) {
	for _, conc := range []int{1, 32} {
		b.Run(fmt.Sprintf("new/c%d", conc), func(b *testing.B) {
			store, e := benchEngine(b, factory)
			prefix := uuid.NewString()
			run(b, store, conc, func(i int) error {
				res, err := e.Begin(context.Background(), request(fmt.Sprintf("%s-%d", prefix, i), hashA))
				if err != nil {
					return err
				}
				if res.Outcome != idempotency.Acquired {
					return fmt.Errorf("outcome %s, want acquired", res.Outcome)
				}
				_, err = e.Complete(context.Background(), res.Lease, idempotency.Response{Payload: payload, HTTPStatus: 201})
				return err
			})
		})
		b.Run(fmt.Sprintf("duplicate/c%d", conc), func(b *testing.B) {
			store, e := benchEngine(b, factory)
			const keys = 1024
			prefix := uuid.NewString()
			for i := range keys {
				res, err := e.Begin(context.Background(), request(fmt.Sprintf("%s-%d", prefix, i), hashA))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.Complete(context.Background(), res.Lease, idempotency.Response{Payload: payload}); err != nil {
					b.Fatal(err)
				}
			}
			run(b, store, conc, func(i int) error {
				res, err := e.Begin(context.Background(), request(fmt.Sprintf("%s-%d", prefix, i%keys), hashA))
				if err == nil && res.Outcome != idempotency.Replay {
					err = fmt.Errorf("outcome %s, want replay", res.Outcome)
				}
				return err
			})
		})
	}
}

func benchEngine(b *testing.B, factory Factory) (*Counting, *idempotency.Engine) {
	store := &Counting{Store: factory(b)}
	b.Cleanup(func() { store.Close() })
	e, err := idempotency.New(store, idempotency.Config{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return store, e
}

// run splits b.N operations over conc goroutines.
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
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(store.Calls()-before)/float64(b.N), "storecalls/op")
}
