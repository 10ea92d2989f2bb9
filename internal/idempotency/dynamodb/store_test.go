package dynamodb_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	store "github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
)

func TestConformanceDynamoDB(t *testing.T) {
	onEachBackend(t, func(t *testing.T, _ backend) { storetest.Run(t, factory) })
}

func BenchmarkDynamoDB(b *testing.B) { storetest.Benchmark(b, factory) }

func TestEnsureTableIsIdempotent(t *testing.T) {
	client := newClient(t)
	s := newStore(t, client) // first run: created
	for range 2 {
		info, err := s.EnsureTable(context.Background())
		if err != nil {
			t.Fatalf("ensure table again: %v", err)
		}
		if info.Created {
			t.Error("second EnsureTable reports creating the table")
		}
		// dynalite has no TTL API; real DynamoDB reports enabled / already enabled.
		if info.TTL != store.TTLUnsupported {
			t.Errorf("TTL = %q, want %q on dynalite", info.TTL, store.TTLUnsupported)
		}
	}
	out, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(s.Table())})
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	td := out.Table
	if len(td.KeySchema) != 1 || aws.ToString(td.KeySchema[0].AttributeName) != "pk" || td.KeySchema[0].KeyType != types.KeyTypeHash {
		t.Errorf("key schema %+v, want hash key pk", td.KeySchema)
	}
	if td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("billing mode %+v, want PAY_PER_REQUEST", td.BillingModeSummary)
	}
	if td.TableStatus != types.TableStatusActive {
		t.Errorf("status %s, want ACTIVE", td.TableStatus)
	}
}

func TestNewDefaultsToSeedTable(t *testing.T) {
	if got := store.New(newClient(t), "").Table(); got != "mq-probe-idempotency" {
		t.Errorf("default table %q, want mq-probe-idempotency", got)
	}
}

// TestItemAttributes reads the raw items and checks SPEC §5's names and types.
func TestItemAttributes(t *testing.T) {
	client := newClient(t)
	s := newStore(t, client)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	c := claim("key-"+uuid.NewString(), "f1c4b5a3", now)
	if _, ok, err := s.Begin(ctx, c); err != nil || !ok {
		t.Fatalf("Begin = %v, %v", ok, err)
	}
	raw := func() map[string]types.AttributeValue {
		t.Helper()
		out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Table()),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: c.PK}}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatalf("GetItem: %v", err)
		}
		return out.Item
	}
	expires := now.Add(24 * time.Hour)
	want := map[string]types.AttributeValue{
		"pk":             sAttr(c.PK),
		"operationType":  sAttr("PRODUCE"),
		"idempotencyKey": sAttr(c.IdempotencyKey),
		"status":         sAttr("IN_PROGRESS"),
		"requestHash":    sAttr("f1c4b5a3"),
		"httpStatus":     nAttr(0),
		"createdAt":      sAttr("2026-11-22T12:00:00.000Z"),
		"updatedAt":      sAttr("2026-11-22T12:00:00.000Z"),
		"expiresAt":      sAttr("2026-11-23T12:00:00.000Z"),
		"expiresAtMs":    nAttr(expires.UnixMilli()),
		"ttl":            nAttr(expires.Unix()),
		"leaseExpiresAt": nAttr(now.Add(30 * time.Second).UnixMilli()),
		"leaseToken":     sAttr(c.LeaseToken),
		"attempt":        nAttr(1),
		"target":         sAttr("QM1:DEV.QUEUE.1"),
		"traceId":        sAttr("4bf92f3577b34da6a3ce929d0e0e4736"),
		"durationMs":     nAttr(0),
		// The listing indexes' keys: the implicit tenant's stand-in.
		"listTenant": sAttr("_"),
		"listTarget": sAttr("QM1:DEV.QUEUE.1"),
		"listedAt":   sAttr("2026-11-22T12:00:00.000Z"),
	}
	assertItem(t, raw(), want)

	// A heartbeat leaves the index keys alone: no index write.
	beat := now.Add(time.Second)
	if _, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateHeartbeat, Now: beat,
		LeaseExpiresAt: beat.Add(30 * time.Second)}); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	want["updatedAt"], want["leaseExpiresAt"] = sAttr("2026-11-22T12:00:01.000Z"), nAttr(beat.Add(30*time.Second).UnixMilli())
	assertItem(t, raw(), want)

	later := now.Add(2500 * time.Millisecond)
	payload := `{"processedMessages":100,"elapsed":"PT2.5S"}`
	if _, err := s.Update(ctx, c.PK, c.LeaseToken, idempotency.Update{Kind: idempotency.UpdateComplete, Now: later,
		ResponsePayload: payload, HTTPStatus: 201, DurationMs: 2500}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want["status"], want["updatedAt"] = sAttr("COMPLETED"), sAttr("2026-11-22T12:00:02.500Z")
	want["listedAt"] = sAttr("2026-11-22T12:00:02.500Z") // completion moves it
	want["responsePayload"], want["httpStatus"], want["durationMs"] = sAttr(payload), nAttr(201), nAttr(2500)
	assertItem(t, raw(), want)
}

func sAttr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func nAttr(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func assertItem(t *testing.T, got, want map[string]types.AttributeValue) {
	t.Helper()
	for name, w := range want {
		if !sameValue(got[name], w) {
			t.Errorf("%s = %#v, want %#v", name, got[name], w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected attribute %s = %#v", name, got[name])
		}
	}
}

func sameValue(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	}
	return false
}

// TestRequestsPerCommand holds the store to its round-trip budget, counted
// on the wire. A new command is one PutItem (Begin) and one UpdateItem
// (Complete) everywhere. A duplicate is one PutItem whose failed condition
// returns the old item on DynamoDB (ReturnValuesOnConditionCheckFailure), so
// one request there; dynalite ignores that parameter, so Begin reads the old
// item with one consistent GetItem: two requests.
func TestRequestsPerCommand(t *testing.T) { onEachBackend(t, requestsPerCommand) }

func requestsPerCommand(t *testing.T, b backend) {
	var counter store.Counter
	s := newStore(t, newClient(t, counter.Register))
	e, err := idempotency.New(s, idempotency.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := idempotency.Request{OperationType: "PRODUCE", IdempotencyKey: "key-" + uuid.NewString(), RequestHash: "aaaa"}

	before := counter.Snapshot()
	res, err := e.Begin(ctx, req)
	if err != nil || res.Outcome != idempotency.Acquired {
		t.Fatalf("Begin = %v, %v", res.Outcome, err)
	}
	if _, err := e.Complete(ctx, res.Lease, idempotency.Response{Payload: `{"ok":true}`, HTTPStatus: 201}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	assertCounts(t, "new command", counter.Since(before), map[string]int{"PutItem": 1, "UpdateItem": 1})

	other, err := idempotency.New(s, idempotency.Config{}, nil) // another process: nothing cached
	if err != nil {
		t.Fatal(err)
	}
	before = counter.Snapshot()
	if res, err := other.Begin(ctx, req); err != nil || res.Outcome != idempotency.Replay {
		t.Fatalf("duplicate Begin = %v, %v", res.Outcome, err)
	}
	want := map[string]int{"PutItem": 1}
	if !b.allOld {
		want["GetItem"] = 1
	}
	assertCounts(t, "duplicate", counter.Since(before), want)
}

func assertCounts(t *testing.T, what string, got, want map[string]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: requests %v, want %v", what, got, want)
		return
	}
	for op, n := range want {
		if got[op] != n {
			t.Errorf("%s: requests %v, want %v", what, got, want)
			return
		}
	}
}

// TestDoubleTakeover races two stores (two processes) to take over one
// expired lease, many times: exactly one may win each time, with attempt 2.
func TestDoubleTakeover(t *testing.T) {
	var counter store.Counter // shared: counts both stores' requests
	client := newClient(t, counter.Register)
	a := newStore(t, client)
	b := store.New(newClient(t, counter.Register), a.Table())
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	casRaces := 0 // iterations where both reached the compare-and-set write
	for range 50 {
		key := "key-" + uuid.NewString()
		first := claim(key, "aaaa", now)
		if _, ok, err := a.Begin(ctx, first); err != nil || !ok {
			t.Fatalf("first Begin = %v, %v", ok, err)
		}
		later := now.Add(31 * time.Second) // the first holder's lease has run out
		before := counter.Snapshot()
		var (
			wg      sync.WaitGroup
			results [2]idempotency.Record
			won     [2]bool
		)
		for i, s := range []*store.Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rec, ok, err := s.Begin(ctx, claim(key, "aaaa", later))
				if err != nil {
					t.Errorf("takeover Begin: %v", err)
				}
				results[i], won[i] = rec, ok
			}()
		}
		wg.Wait()
		if won[0] == won[1] {
			t.Fatalf("takeovers won %v, want exactly one", won)
		}
		winner, loser := results[0], results[1]
		if won[1] {
			winner, loser = loser, winner
		}
		if winner.Attempt != 2 || !winner.CreatedAt.Equal(now) {
			t.Errorf("winner attempt %d createdAt %v, want 2 and %v", winner.Attempt, winner.CreatedAt, now)
		}
		// The loser's compare-and-set failed on the winner's write, so it
		// reports the winner's live lease (InProgress).
		if loser.LeaseToken != winner.LeaseToken || !loser.LeaseAlive(later) {
			t.Errorf("loser saw token %s (lease alive %v), want the winner's %s", loser.LeaseToken, loser.LeaseAlive(later), winner.LeaseToken)
		}
		if counter.Since(before)["PutItem"] == 4 {
			casRaces++
		}
		stored, _, err := a.Get(ctx, first.PK)
		if err != nil || stored.LeaseToken != winner.LeaseToken {
			t.Fatalf("stored token %s (%v), want the winner's", stored.LeaseToken, err)
		}
	}
	// Otherwise the test only proved step 1 serialises the contenders.
	if casRaces == 0 {
		t.Error("the two takeovers never met at the compare-and-set write")
	}
	t.Logf("%d of 50 races were decided by the compare-and-set write", casRaces)
}

// TestEnsureTableAddsTheListingIndexes: store init on a table made before
// the listing indexes adds them (moto, as DynamoDB), and says so when the
// endpoint ignores the addition (dynalite 4.0.0) rather than waiting for
// an index that never comes; List scans there.
func TestEnsureTableAddsTheListingIndexes(t *testing.T) {
	onEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		client := newClient(t)
		name := "mqprobe-test-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
		// The table as the code before the indexes made it.
		if _, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest}); err != nil {
			t.Fatalf("create the old table: %v", err)
		}
		if err := dynamodb.NewTableExistsWaiter(client).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
			t.Fatalf("wait for the old table: %v", err)
		}
		t.Cleanup(func() {
			if _, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
				t.Errorf("delete table %s: %v", name, err)
			}
		})
		s := store.New(client, name)
		now := time.Now()
		if _, ok, err := s.Begin(ctx, claim("before-init", "h", now)); err != nil || !ok {
			t.Fatalf("Begin = %v, %v", ok, err)
		}
		want := store.IndexAdded
		if b.name == "dynalite" {
			want = store.IndexUnsupported
		}
		for run, want := range []string{want, map[bool]string{true: store.IndexPresent, false: store.IndexUnsupported}[b.name != "dynalite"]} {
			info, err := s.EnsureTable(ctx)
			if err != nil {
				t.Fatalf("EnsureTable run %d: %v", run+1, err)
			}
			if info.Created {
				t.Errorf("run %d created the table", run+1)
			}
			for _, ix := range []string{store.TargetIndex, store.TenantIndex} {
				if info.Indexes[ix] != want {
					t.Errorf("run %d: %s %q, want %q", run+1, ix, info.Indexes[ix], want)
				}
			}
		}
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatalf("describe: %v", err)
		}
		active := 0
		for _, ix := range out.Table.GlobalSecondaryIndexes {
			if ix.IndexStatus == types.IndexStatusActive {
				active++
			}
		}
		if b.name == "dynalite" {
			// Records written now list all the same, by a scan.
			page, err := s.List(ctx, idempotency.ListQuery{QueueManager: "QM1", Queue: "DEV.QUEUE.1", Limit: 10})
			if err != nil || len(page.Records) != 1 || !page.Scanned {
				t.Errorf("List on the table without indexes = %d records, scanned %v, %v; want the record, scanned", len(page.Records), page.Scanned, err)
			}
			return
		}
		if active != 2 {
			t.Errorf("%d ACTIVE indexes after EnsureTable, want 2: %+v", active, out.Table.GlobalSecondaryIndexes)
		}
		// A record written from now on lists by its queue from the index.
		if _, ok, err := s.Begin(ctx, claim("after-init", "h", now.Add(time.Millisecond))); err != nil || !ok {
			t.Fatalf("Begin = %v, %v", ok, err)
		}
		page, err := s.List(ctx, idempotency.ListQuery{QueueManager: "QM1", Queue: "DEV.QUEUE.1", Limit: 10})
		if err != nil || page.Scanned || len(page.Records) == 0 || page.Records[0].IdempotencyKey != "after-init" {
			t.Errorf("List by queue after adding the indexes = %v, scanned %v, %v; want after-init first, from the index", page.Records, page.Scanned, err)
		}
	})
}

// TestListQueriesTheIndexOfItsFilter: a queue, or one tenant, is a Query
// of an index; only every tenant's records without a queue are scanned.
func TestListQueriesTheIndexOfItsFilter(t *testing.T) {
	s := newStore(t, newClient(t))
	for _, tc := range []struct {
		q       idempotency.ListQuery
		scanned bool
	}{
		{idempotency.ListQuery{AllTenants: true, QueueManager: "QM1", Queue: "DEV.QUEUE.1"}, false},
		{idempotency.ListQuery{Tenant: "team-a", QueueManager: "QM1", Queue: "DEV.QUEUE.1", Status: idempotency.StatusFailed}, false},
		{idempotency.ListQuery{}, false},
		{idempotency.ListQuery{Tenant: "team-a", Status: idempotency.StatusInProgress, QueueManager: "QM1", Since: time.Now().Add(-time.Hour)}, false},
		{idempotency.ListQuery{AllTenants: true}, true},
		{idempotency.ListQuery{AllTenants: true, QueueManager: "QM1"}, true},
	} {
		page, err := s.List(context.Background(), tc.q)
		if err != nil || page.Scanned != tc.scanned {
			t.Errorf("List(%+v): scanned %v, %v; want scanned %v", tc.q, page.Scanned, err, tc.scanned)
		}
	}
}
