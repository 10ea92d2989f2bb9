package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// BenchmarkDepthCommands: DEPTH commands per second over HTTP through the
// daemon (executor included) at concurrency 1 and 16, with idempotency on
// each store (SQLite with synchronous NORMAL and FULL) and with it disabled. It is with the aws-mode tests because
// its DynamoDB store needs their dynalite.
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
		sqliteFullStore,
		{"postgres", func(_ *testing.B, c *config.IdempotencyConfig) { c.Store, c.Postgres.DSN = config.StorePostgres, dsn }},
		{"dynamodb", func(_ *testing.B, c *config.IdempotencyConfig) {
			c.Store, c.DynamoDB.Table = config.StoreDynamoDB, table
		}},
		noStore,
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
