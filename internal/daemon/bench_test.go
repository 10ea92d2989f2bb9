package daemon_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// benchClient keeps an idle connection per concurrent sender (the default
// transport keeps two per host): reconnecting is not what is measured.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 2 * time.Minute}

// benchPost posts body and returns the status and response body.
func benchPost(base, path, body string, headers ...string) (int, []byte, error) {
	return benchPostContext(context.Background(), base, path, body, headers...)
}

// benchPostContext is benchPost giving up when ctx ends.
func benchPostContext(ctx context.Context, base, path, body string, headers ...string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := benchClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// closedLoop runs n operations with conc of them in flight at a time and
// reports cmds/s. The first error stops it and fails b.
func closedLoop(b *testing.B, conc, n int, op func() error) {
	b.Helper()
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		failed atomic.Value
	)
	b.ResetTimer()
	began := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := op(); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "cmds/s")
}

// open connects to QM1 directly, bypassing the daemon, and opens queue.
func open(b testing.TB, backend mq.Backend, queue string, opts mq.OpenOption) (mq.Conn, mq.Queue) {
	ctx := context.Background()
	conn, err := backend.Connect(ctx, mq.Target{QueueManager: "QM1"})
	if err != nil {
		b.Fatal(err)
	}
	q, err := conn.OpenQueue(ctx, queue, opts)
	if err != nil {
		conn.Close()
		b.Fatal(err)
	}
	return conn, q
}

// bareProduce puts n 2 KiB non-persistent messages committing every 100:
// the loop PRODUCE is measured against. Connecting and opening are not
// timed.
func bareProduce(b *testing.B, backend mq.Backend, queue string, n int) time.Duration {
	ctx := context.Background()
	conn, q := open(b, backend, queue, mq.OpenOutput)
	defer conn.Close()
	defer q.Close()
	msg := &mq.Message{Payload: make([]byte, 2048)}
	start := time.Now()
	for i := 1; i <= n; i++ {
		msg.MsgID = mq.ID{}
		if _, err := q.Put(ctx, msg, mq.PutOptions{Syncpoint: true}); err != nil {
			b.Fatal(err)
		}
		if i%100 == 0 {
			if err := conn.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := conn.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// drain empties queue.
func drain(b *testing.B, backend mq.Backend, queue string) {
	ctx := context.Background()
	conn, q := open(b, backend, queue, mq.OpenInputShared)
	defer conn.Close()
	defer q.Close()
	msg := &mq.Message{}
	for {
		err := q.Get(ctx, msg, mq.GetOptions{})
		if mq.IsReason(err, mq.ReasonNoMsgAvailable) {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// overheadCase is a backend BenchmarkProduceOverhead measures: PRODUCE
// commands of count messages, commands of them per round, each queue
// holding count messages.
type overheadCase struct {
	name            string
	count, commands int
	backend         func(b *testing.B) mq.Backend
}

// overheadCases lists the backends of this build; -tags ibmmq adds the
// IBM MQ client (ibmmq_bench_test.go).
var overheadCases = []overheadCase{{
	name: "embedded", count: 100_000, commands: 1,
	backend: func(b *testing.B) mq.Backend {
		backend, err := embedded.New(embedded.Config{QueueManagers: []embedded.QueueManagerConfig{{
			Name: "QM1", Queues: []embedded.QueueConfig{{Name: "DEV.QUEUE.1", MaxDepth: 100_000}, {Name: "DEV.QUEUE.2", MaxDepth: 100_000}}}}})
		if err != nil {
			b.Fatal(err)
		}
		return backend
	},
}}

// BenchmarkProduceOverhead: PRODUCE of 2 KiB non-persistent messages
// committed every 100, over HTTP through the whole daemon on its embedded
// default store (SQLite: claim, checkpoint every commit, completion),
// against the bare put loop on the same backend, alternating in the same
// run. ratio = PRODUCE msgs/s ÷ bare msgs/s (SPEC goal ≥ 0.90).
func BenchmarkProduceOverhead(b *testing.B) {
	for _, oc := range overheadCases {
		b.Run(oc.name, func(b *testing.B) {
			backend := oc.backend(b)
			h := start(b, func(s *setup) {
				s.opts.Backend = backend
				s.cfg.Idempotency.Store = config.StoreSQLite
				s.cfg.Idempotency.SQLite.Path = b.TempDir() + "/bench.db"
				s.opts.Store = nil
			})
			body := fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048,"transaction":{"enabled":true,"txSize":100}}}`, target, oc.count)
			var seq atomic.Int64
			round := func() (bare, produce time.Duration) {
				for range oc.commands {
					// Each leg starts from empty queues, so neither pays
					// for the other's messages.
					drain(b, backend, "DEV.QUEUE.1")
					bare += bareProduce(b, backend, "DEV.QUEUE.2", oc.count)
					drain(b, backend, "DEV.QUEUE.2")
					startAt := time.Now()
					status, resp, err := benchPost(h.base, "/messages/produce", body, "Idempotency-Key", fmt.Sprint("overhead-", seq.Add(1)))
					produce += time.Since(startAt)
					if err != nil || status != http.StatusCreated {
						b.Fatalf("produce: %d %s %v", status, resp, err)
					}
				}
				return bare, produce
			}
			round() // warm the heap, the pool and the queue manager's buffers
			var bareTotal, produceTotal time.Duration
			b.ResetTimer()
			for range b.N {
				bare, produce := round()
				bareTotal += bare
				produceTotal += produce
			}
			b.StopTimer()
			msgs := float64(oc.count * oc.commands * b.N)
			b.ReportMetric(msgs/bareTotal.Seconds(), "bare-msgs/s")
			b.ReportMetric(msgs/produceTotal.Seconds(), "produce-msgs/s")
			b.ReportMetric(bareTotal.Seconds()/produceTotal.Seconds(), "ratio")
		})
	}
}

// BenchmarkDepthCommands: DEPTH commands per second over HTTP through the
// daemon (executor included) at concurrency 1 and 16, with idempotency on
// each store and with it disabled.
func BenchmarkDepthCommands(b *testing.B) {
	dsn, stopPostgres, err := testenv.Postgres()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stopPostgres)
	table := uniqueName(b) + "-table"
	if _, err := dynamodb.New(ddbClient, table).EnsureTable(context.Background()); err != nil {
		b.Fatalf("create table: %v", err)
	}
	stores := []struct {
		name string
		set  func(b *testing.B, c *config.IdempotencyConfig)
	}{
		{"sqlite", func(b *testing.B, c *config.IdempotencyConfig) {
			c.Store, c.SQLite.Path = config.StoreSQLite, b.TempDir()+"/bench.db"
		}},
		{"postgres", func(_ *testing.B, c *config.IdempotencyConfig) { c.Store, c.Postgres.DSN = config.StorePostgres, dsn }},
		{"dynamodb", func(_ *testing.B, c *config.IdempotencyConfig) {
			c.Store, c.DynamoDB.Table = config.StoreDynamoDB, table
		}},
		{"disabled", func(_ *testing.B, c *config.IdempotencyConfig) { c.Enabled = false }},
	}
	body := `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	for _, st := range stores {
		for _, conc := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/c%d", st.name, conc), func(b *testing.B) {
				h := start(b, func(s *setup) {
					st.set(b, &s.cfg.Idempotency)
					s.opts.Store = nil
				})
				closedLoop(b, conc, b.N, func() error {
					status, resp, err := benchPost(h.base, "/queue/depth", body)
					if err == nil && status != http.StatusOK {
						err = fmt.Errorf("depth: %d %s", status, resp)
					}
					return err
				})
			})
		}
	}
}
