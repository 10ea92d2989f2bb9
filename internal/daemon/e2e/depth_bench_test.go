package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// BenchmarkDepthCommands: DEPTH commands per second over HTTP through the
// daemon (executor included) on the embedded backend at concurrency 1 and
// 16, with idempotency on each store (SQLite with synchronous NORMAL and
// FULL) and with it disabled. SQLite FULL, the default, takes turns with a
// daemon without idempotency (alternateDepth) and reports the ratio too;
// the other stores run after one another. It is with the aws-mode tests
// because its DynamoDB store needs their dynalite.
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
	stores := []depthStore{
		// sqlite is synchronous=NORMAL, as before FULL became the default,
		// so its figures stay comparable across reports.
		{"sqlite", func(b *testing.B, c *config.IdempotencyConfig) {
			c.Store, c.SQLite.Path = config.StoreSQLite, b.TempDir()+"/bench.db"
			c.SQLite.Synchronous = sqlstore.SynchronousNormal
		}},
		{"postgres", func(_ *testing.B, c *config.IdempotencyConfig) { c.Store, c.Postgres.DSN = config.StorePostgres, dsn }},
		{"dynamodb", func(_ *testing.B, c *config.IdempotencyConfig) {
			c.Store, c.DynamoDB.Table = config.StoreDynamoDB, table
		}},
		noStore,
	}
	for _, conc := range []int{1, 16} {
		b.Run(fmt.Sprintf("%s/c%d", sqliteFullStore.name, conc), func(b *testing.B) {
			alternateDepth(b, conc, startDepthDaemon(b, sqliteFullStore, nil), startDepthDaemon(b, noStore, nil))
		})
	}
	for _, st := range stores {
		for _, conc := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/c%d", st.name, conc), func(b *testing.B) {
				h := daemontest.Start(b, func(s *daemontest.Setup) {
					st.set(b, &s.Cfg.Idempotency)
					s.Opts.Store = nil
				})
				depthClosedLoop(b, h.Base, conc)
			})
		}
	}
}

// depthStore is how a DEPTH benchmark's daemon keeps its records.
type depthStore struct {
	name string
	set  func(b *testing.B, c *config.IdempotencyConfig)
}

var (
	// sqliteFullStore is the default: SQLite with synchronous=FULL.
	sqliteFullStore = depthStore{"sqlite-full", func(b *testing.B, c *config.IdempotencyConfig) {
		c.Store, c.SQLite.Path = config.StoreSQLite, b.TempDir()+"/bench.db"
		c.SQLite.Synchronous = sqlstore.SynchronousFull
	}}
	noStore = depthStore{"disabled", func(_ *testing.B, c *config.IdempotencyConfig) { c.Enabled = new(false) }}
)

// depthLeg is how many DEPTH commands one daemon runs before the other
// takes its turn: about a second at this machine's slowest rates.
const depthLeg = 250

// alternateDepth has two daemons, with and without idempotency, take turns
// of depthLeg DEPTH commands at conc in flight, the first turn alternating
// from round to round, so that a machine whose load changes during the run
// weighs on both alike; each b.N is one round of two turns, after an
// untimed warm-up turn each. It reports with's cmds/s as "cmds/s", each
// daemon's as "<store>-cmds/s" and the connections it made per command,
// and ratio (with ÷ without).
func alternateDepth(b *testing.B, conc int, with, without *depthDaemon) {
	b.Helper()
	for _, d := range []*depthDaemon{with, without} { // warm the pools
		d.leg(b, conc)
		d.took, d.commands, d.connects = 0, 0, 0
	}
	b.ResetTimer()
	for round := range b.N {
		first, second := with, without
		if round%2 == 1 {
			first, second = without, with
		}
		first.leg(b, conc)
		second.leg(b, conc)
	}
	b.StopTimer()
	for _, d := range []*depthDaemon{with, without} {
		b.ReportMetric(d.rate(), d.store+"-cmds/s")
		b.ReportMetric(float64(d.connects)/float64(d.commands), d.store+"-connects/cmd")
	}
	b.ReportMetric(with.rate(), "cmds/s")
	b.ReportMetric(with.rate()/without.rate(), "ratio")
}

// depthDaemon is one of alternateDepth's daemons and what its turns have
// measured.
type depthDaemon struct {
	store    string
	base     string
	backend  *mqtest.CountingBackend
	took     time.Duration
	commands int
	connects int64
}

// startDepthDaemon starts a daemon keeping its records as st says, on the
// backend backend returns (nil: the harness's own embedded queue manager).
func startDepthDaemon(b *testing.B, st depthStore, backend func() mq.Backend) *depthDaemon {
	b.Helper()
	d := &depthDaemon{store: st.name}
	d.base = daemontest.Start(b, func(s *daemontest.Setup) {
		if backend != nil {
			s.Opts.Backend = backend()
		}
		d.backend = &mqtest.CountingBackend{Backend: s.Opts.Backend}
		s.Opts.Backend = d.backend
		st.set(b, &s.Cfg.Idempotency)
		s.Opts.Store = nil
	}).Base
	return d
}

// leg runs one turn of depthLeg commands, conc in flight.
func (d *depthDaemon) leg(b *testing.B, conc int) {
	b.Helper()
	before := d.backend.Connects.Load()
	took, err := daemontest.TimeClosedLoop(conc, depthLeg, postDepth(d.base))
	if err != nil {
		b.Fatalf("%s: %v", d.store, err)
	}
	d.took += took
	d.commands += depthLeg
	d.connects += d.backend.Connects.Load() - before
}

func (d *depthDaemon) rate() float64 { return float64(d.commands) / d.took.Seconds() }

// depthClosedLoop times b.N DEPTH commands posted to the daemon at base,
// conc in flight, and reports cmds/s.
func depthClosedLoop(b *testing.B, base string, conc int) {
	b.Helper()
	daemontest.ClosedLoop(b, conc, b.N, postDepth(base))
}

// postDepth returns an operation posting one DEPTH of QM1's DEV.QUEUE.1
// to the daemon at base, which fails unless the answer is 200.
func postDepth(base string) func() error {
	body := `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	return func() error {
		status, resp, err := daemontest.BenchPost(base, "/queue/depth", body)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("depth: %d %s", status, resp)
		}
		return err
	}
}
