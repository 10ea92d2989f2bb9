package e2e_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
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
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestFaultStoreDownAtCompletion cuts the daemon's connection to its
// idempotency store (through a TCP proxy) 1 s into a paced PRODUCE of 40
// messages (20/s) arriving over SQS, and restores it 11 s later, past the
// lease: the puts finish while the store is away, so the outcome is known
// but cannot be recorded. The daemon keeps it, keeps the message unacked
// and retries until the store answers; then the record is COMPLETED, one
// result is published, and the same command sent again replays. The queue
// holds the 40 messages once. On DynamoDB (dynalite and moto) and
// PostgreSQL.
func TestFaultStoreDownAtCompletion(t *testing.T) {
	onEachEmulator(t, func(t *testing.T, e *awsEmulator) {
		env := newLocalAWS(t, 100)
		proxy, store := proxiedDynamoDB(t, env)
		runStoreBlip(t, "store-down-at-completion-"+e.name, env, proxy, store, nil, nil)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn, stop, err := testenv.Postgres()
		if err != nil {
			t.Fatalf("PostgreSQL: %v", err)
		}
		t.Cleanup(stop)
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("PostgreSQL DSN: %v", err)
		}
		proxy := startProxy(t, u.Host)
		u.Host = proxy.Addr()
		store, err := sqlstore.OpenPostgres(context.Background(), u.String())
		if err != nil {
			t.Fatalf("open PostgreSQL through the proxy: %v", err)
		}
		t.Cleanup(func() { store.Close() })
		env := newLocalAWS(t, 100)
		runStoreBlip(t, "store-down-at-completion-postgres", env, proxy, store, func(s *daemontest.Setup) {
			s.Cfg.Idempotency.Store = config.StorePostgres
			s.Cfg.Idempotency.Postgres.DSN = u.String()
		}, nil)
	})
}

// proxiedDynamoDB is a store on env's table reached through a proxy to
// the current emulator's DynamoDB.
func proxiedDynamoDB(t *testing.T, env *localAWS) (*testenv.Proxy, idempotency.Store) {
	t.Helper()
	endpoint, err := url.Parse(current.dynamodb)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startProxy(t, endpoint.Host)
	awsCfg, err := awsbus.LoadConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	client := awsdynamodb.NewFromConfig(awsCfg, func(o *awsdynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint.Scheme + "://" + proxy.Addr())
	})
	return proxy, dynamodb.New(client, env.table)
}

// startProxy starts a proxy to target, closed when the test ends.
func startProxy(t *testing.T, target string) *testenv.Proxy {
	t.Helper()
	p, err := testenv.StartProxy(target)
	if err != nil {
		t.Fatalf("proxy to %s: %v", target, err)
	}
	t.Cleanup(p.Close)
	return p
}

// runStoreBlip runs the blip on a daemon changed by setup, counting the
// puts through mqBackend (nil: the daemon's embedded queue manager). On a
// queue manager whose messages outlive the daemon (IBM MQ) the PRODUCE
// checkpoints every commit, so the cut stops it at a checkpoint: it fails
// resumable, its progress recorded, and the redelivery resumes it.
func runStoreBlip(t *testing.T, name string, env *localAWS, proxy *testenv.Proxy, store idempotency.Store, setup func(*daemontest.Setup), mqBackend mq.Backend) {
	const (
		count, txSize, rate = 40, 5, 20
		cutAfter, cutFor    = time.Second, 11 * time.Second
		lease               = 4 * time.Second
	)
	// The daemon's log, shown if the test fails: which attempt put what.
	var daemonLog testenv.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s", daemonLog.String())
		}
	})
	h := daemontest.Start(t, inAWSMode(env), func(s *daemontest.Setup) {
		s.Opts.Log = slog.New(slog.NewTextHandler(&daemonLog, &slog.HandlerOptions{Level: slog.LevelDebug}))
		if setup != nil {
			setup(s)
		}
		s.Cfg.Idempotency.Lease = lease
		s.Opts.Store = &storetest.Counting{Store: store}
	})
	if mqBackend == nil {
		mqBackend = h.Backend
	}
	results := newResultQueue(t, env.results)
	key := name + "-" + daemontest.FaultRun()
	cmd := daemontest.FaultProduce(key, "DEV.QUEUE.1", count, txSize, rate)
	sendCommand(t, env.commands, cmd, map[string]string{"Idempotency-Key": key})

	// The command starts within a receive wait (1 s); cut once it is putting.
	testenv.Eventually(t, 30*time.Second, "a put by the PRODUCE", func() bool { return putsByKey(t, mqBackend, "DEV.QUEUE.1")[key] > 0 })
	time.Sleep(cutAfter)
	proxy.Cut()
	cutAt := time.Now()
	time.Sleep(cutFor)
	putDuringCut := putsByKey(t, mqBackend, "DEV.QUEUE.1")[key]
	proxy.Restore()
	t.Logf("store cut for %s; %d of %d messages put by then", time.Since(cutAt).Round(time.Millisecond), putDuringCut, count)

	isFinal := func(e receivedEvent) bool { return e.Data.Status != result.StatusInProgress }
	results.waitUntil(t, 2*time.Minute, func(evs []receivedEvent) (bool, string) {
		for _, e := range evs {
			if e.Data.IdempotencyKey == key && isFinal(e) {
				return true, ""
			}
		}
		return false, "no result yet"
	})
	// The same command again replays.
	sendCommand(t, env.commands, cmd, map[string]string{"Idempotency-Key": key})
	results.waitUntil(t, time.Minute, func(evs []receivedEvent) (bool, string) {
		n := 0
		for _, e := range evs {
			if e.Data.IdempotencyKey == key && isFinal(e) {
				n++
			}
		}
		return n >= 2, fmt.Sprintf("%d final results", n)
	})
	waitSQSQueueDrained(t, env.commands, 30*time.Second)
	results.collectFor(t, 2*time.Second)

	var executed, replays int
	for _, e := range results.of(key) {
		switch {
		case !isFinal(e):
		case e.Data.Replay:
			replays++
		case e.Data.Status == result.StatusCompleted:
			executed++
		default:
			t.Errorf("result %s attempt %d: %+v", e.Data.Status, e.Data.Attempt, e.Data.Error)
		}
	}
	puts := putsByKey(t, mqBackend, "DEV.QUEUE.1")[key]
	rec, ok, err := store.Get(context.Background(), "PRODUCE#"+key)
	resumed := mqBackend != mq.Backend(h.Backend) // a checkpointing PRODUCE may be resumed by attempt 2
	if err != nil || !ok || rec.Status != idempotency.StatusCompleted || (rec.Attempt != 1 && !resumed) {
		t.Errorf("record %s attempt %d (found %v, %v), want COMPLETED by attempt 1", rec.Status, rec.Attempt, ok, err)
	}
	if puts != count || executed != 1 || replays != 1 {
		t.Errorf("%d messages on DEV.QUEUE.1, %d completed results, %d replays; want %d, 1, 1", puts, executed, replays, count)
	}
	got := daemontest.FaultFigures{Sent: 2, Executed: executed, Duplicated: min(max(puts-count, 0), 1), Lost: min(max(count-puts, 0), 1)}
	daemontest.ReportFault(t, name, got, daemontest.FaultFigures{Sent: 2, Executed: 1},
		"storeDownSeconds", cutFor.Seconds(), "messagesOnQueue", puts, "extraMessages", puts-count, "replays", replays, "attempts", rec.Attempt)
}
