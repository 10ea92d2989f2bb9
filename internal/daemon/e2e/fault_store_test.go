package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestFaultStoreDown stops the idempotency store — a private PostgreSQL, a
// private dynalite keeping its tables on disk — for 10 s in the middle of a
// stream of commands arriving over SQS, then starts it again on the same
// port with the same data. Nothing may run without a record, and every
// command must complete exactly once after the recovery.
func TestFaultStoreDown(t *testing.T) {
	ctx := context.Background()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		srv := startPrivate(t, "postgres")
		store, err := sqlstore.OpenPostgres(ctx, srv.Endpoint)
		if err != nil {
			t.Fatalf("open the private PostgreSQL: %v", err)
		}
		runStoreOutage(t, "store-postgres-down", srv, store, func(s *daemontest.Setup) {
			s.Cfg.Idempotency.Store = config.StorePostgres
			s.Cfg.Idempotency.Postgres.DSN = srv.Endpoint
		})
	})
	t.Run("dynamodb", func(t *testing.T) {
		t.Parallel()
		srv := startPrivate(t, "dynalite", "MQPROBE_DYNALITE_ON_DISK=1")
		awsCfg, err := awsbus.LoadConfig(ctx)
		if err != nil {
			t.Fatal(err)
		}
		client := awsdynamodb.NewFromConfig(awsCfg, func(o *awsdynamodb.Options) { o.BaseEndpoint = aws.String(srv.Endpoint) })
		table := uniqueName(t)
		store := dynamodb.New(client, table)
		if _, err := store.EnsureTable(ctx); err != nil {
			t.Fatalf("create table on the private dynalite: %v", err)
		}
		// The daemon's readiness checks its table at the configured
		// endpoint (DescribeTable), while this test hands it a store on the
		// private dynalite: the table is made at both.
		if _, err := dynamodb.New(ddbClient, table).EnsureTable(ctx); err != nil {
			t.Fatalf("create table %s at the daemon's DynamoDB endpoint: %v", table, err)
		}
		runStoreOutage(t, "store-dynamodb-down", srv, store, func(s *daemontest.Setup) {
			s.Cfg.Idempotency.Store = config.StoreDynamoDB
			s.Cfg.Idempotency.DynamoDB.Table = table
		})
	})
}

// runStoreOutage sends a stream of paced PRODUCEs over SQS to a daemon on
// store, takes srv down for 10 s in the middle of it, and counts.
func runStoreOutage(t *testing.T, name string, srv *testenv.Private, store idempotency.Store, useStore func(*daemontest.Setup)) {
	const (
		commands, count, txSize, rate = 200, 4, 2, 20
		concurrency                   = 4 // commands a daemon runs at once (sqs.maxMessages)
		sendEvery                     = 100 * time.Millisecond
		downAfter, downFor            = 5 * time.Second, 10 * time.Second
	)
	ctx := context.Background()
	// A command is nacked about once a second while the store is down: far
	// below the receive count that would move it to the dead-letter queue.
	env := newLocalAWS(t, 100)
	watched := &failureCountingStore{Store: store}
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) {
		useStore(s)
		s.Opts.Store = watched
		s.Cfg.SQS.MaxMessages = concurrency
	})
	results := newResultQueue(t, env.results)

	run := daemontest.FaultRun()
	keys := make([]string, commands)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s-%s-%03d", name, run, i)
	}
	sent := make(chan error, 1)
	go func() {
		pace := time.NewTicker(sendEvery) // a command every sendEvery
		defer pace.Stop()
		for _, key := range keys {
			if err := trySendCommand(env.commands, daemontest.FaultProduce(key, "DEV.QUEUE.1", count, txSize, rate), map[string]string{"Idempotency-Key": key}); err != nil {
				sent <- fmt.Errorf("send %s: %w", key, err)
				return
			}
			<-pace.C
		}
		sent <- nil
	}()

	time.Sleep(downAfter)
	if err := srv.Down(); err != nil {
		t.Fatalf("take the store down: %v", err)
	}
	downAt := time.Now()
	failuresAtDown := watched.failures.Load()
	// Commands claimed before the outage may finish their puts; nothing
	// else may put while no record can be written.
	depthAtDown := daemontest.QueueDepth(t, h.Backend, "DEV.QUEUE.1")
	time.Sleep(downFor)
	depthAtUp := daemontest.QueueDepth(t, h.Backend, "DEV.QUEUE.1")
	failedCalls := watched.failures.Load() - failuresAtDown
	if err := srv.Up(); err != nil {
		t.Fatalf("bring the store back: %v", err)
	}
	t.Logf("store down for %s; %d store calls failed meanwhile; DEV.QUEUE.1 grew from %d to %d",
		time.Since(downAt).Round(time.Millisecond), failedCalls, depthAtDown, depthAtUp)
	if failedCalls == 0 {
		t.Fatal("no store call failed while the store was down: the outage missed the stream")
	}
	if grew := depthAtUp - depthAtDown; grew > concurrency*count {
		t.Errorf("%d messages were put while the store was down, more than the %d that commands claimed before it could finish", grew, concurrency*count)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}

	isOurs := func(e receivedEvent) bool { return strings.HasPrefix(e.Data.IdempotencyKey, name+"-"+run+"-") }
	results.waitUntil(t, 2*time.Minute, func(evs []receivedEvent) (bool, string) {
		done := map[string]bool{}
		for _, e := range evs {
			if isOurs(e) && e.Data.Status != result.StatusInProgress {
				done[e.Data.IdempotencyKey] = true
			}
		}
		return len(done) >= commands, fmt.Sprintf("%d of %d commands have a result", len(done), commands)
	})
	waitSQSQueueDrained(t, env.commands, 30*time.Second)
	results.collectFor(t, time.Second) // anything published late

	puts := putsByKey(t, h.Backend, "DEV.QUEUE.1")
	got, problems := tally(keys, count, puts, eventsByKey(cloudEvents(results.received())))
	reportProblems(t, problems)
	// Every effect on MQ has its record, completed.
	for key := range puts {
		if key == "" {
			t.Errorf("%d messages on DEV.QUEUE.1 without a %s property", puts[key], daemontest.FaultKeyProperty)
			continue
		}
		rec, ok, err := store.Get(ctx, "PRODUCE#"+key)
		if err != nil || !ok || rec.Status != idempotency.StatusCompleted {
			t.Errorf("%d messages of %q on DEV.QUEUE.1, but its record is %+v (found %v, %v)", puts[key], key, rec, ok, err)
		}
	}
	if n := sqsQueueMessages(t, env.deadLetters); n != 0 {
		t.Errorf("%d commands in the dead-letter queue", n)
	}
	daemontest.ReportFault(t, name, got, daemontest.FaultFigures{Sent: commands, Executed: commands},
		"storeDownSeconds", downFor.Seconds(), "failedStoreCalls", failedCalls)
}
