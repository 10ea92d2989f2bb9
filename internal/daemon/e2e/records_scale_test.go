package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// The scale of TestListingByQueueAtScale: scaleRecords records, one in
// scaleQueueEvery of them the queue listed.
const (
	scaleRecords    = 100_000
	scaleQueueEvery = 50 // 2,000 records of the listed queue
	scalePages      = 5
	scalePageSize   = 100
	scaleQueue      = "QM1:DEV.QUEUE.1"
	batchWriteItems = 25 // BatchWriteItem's most
	bulkWriters     = 4
)

// TestListingByQueueAtScale: over 100,000 records in DynamoDB (loaded by a
// bulk writer, BatchWriteItem, not one command each), a listing by queue
// returns full pages, newest first, each in at most 2 requests counted on
// the wire (a Query of target-index and a BatchGetItem), and the capacity
// those requests consumed (ReturnConsumedCapacity) is reported.
//
// Each emulator is a private one, started for the test and stopped after
// it (or with the test process): 100,000 records would slow down every
// other test sharing an emulator, and outlive a test killed by its timeout.
// Loading dominates the run time: 3 minutes in all on a 2-core machine
// (dynalite 1, moto 2), 6 while other work keeps it busy.
func TestListingByQueueAtScale(t *testing.T) {
	for _, emulator := range []string{"dynalite", "moto"} {
		t.Run(emulator, func(t *testing.T) {
			p, err := testenv.StartPrivate(emulator)
			if err != nil {
				t.Fatalf("private %s: %v", emulator, err)
			}
			t.Cleanup(p.Stop)
			listingByQueueAtScale(t, emulator, p.Endpoint)
		})
	}
}

func listingByQueueAtScale(t *testing.T, emulator, endpoint string) {
	ctx := context.Background()
	started := time.Now()
	loader := scaleClient(t, endpoint, nil)
	table := "mqprobe-scale-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	if _, err := dynamodb.New(loader, table).EnsureTable(ctx); err != nil {
		t.Fatalf("store init: %v", err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	queued := bulkLoad(t, loader, table, now)
	loaded := time.Since(started)

	wire := testenv.CountCalls(t, endpoint)
	var capacity consumedCapacity
	s := dynamodb.New(scaleClient(t, wire.URL, &capacity), table)
	q := idempotency.ListQuery{QueueManager: "QM1", Queue: "DEV.QUEUE.1", LiveAt: now, Limit: scalePageSize}
	var listed []idempotency.Record
	for page := range scalePages {
		wire.Reset()
		capacity.reset()
		got, err := s.List(ctx, q)
		if err != nil {
			t.Fatalf("page %d: %v", page+1, err)
		}
		calls := wire.Reset()
		requests := 0
		for _, n := range calls {
			requests += n
		}
		units := capacity.reset()
		t.Logf("%s page %d: %d records in %d requests %v, %.1f read capacity units consumed",
			emulator, page+1, len(got.Records), requests, calls, units)
		if got.Scanned || len(got.Records) != scalePageSize || got.Next == "" {
			t.Fatalf("page %d: %d records, scanned %v, next %q; want a full page of %d from the index and a cursor",
				page+1, len(got.Records), got.Scanned, got.Next, scalePageSize)
		}
		if requests > 2 || calls["Query"] != 1 || calls["BatchGetItem"] != 1 {
			t.Errorf("page %d took %v; want one Query and one BatchGetItem", page+1, calls)
		}
		if units <= 0 {
			t.Errorf("page %d: no consumed capacity reported (ReturnConsumedCapacity)", page+1)
		}
		listed = append(listed, got.Records...)
		q.After = got.Next
	}
	// Exactly the queue's newest records, newest first.
	want := queued[len(queued)-len(listed):]
	slices.Reverse(want)
	for i, rec := range listed {
		if rec.PK != want[i] {
			t.Fatalf("record %d listed is %s (updated %s), want %s: not the queue's newest first", i, rec.PK, rec.UpdatedAt, want[i])
		}
	}
	t.Logf("%s: %d records loaded in %s; %d pages listed; the whole test took %s",
		emulator, scaleRecords, loaded.Round(time.Millisecond), scalePages, time.Since(started).Round(time.Millisecond))
}

// scaleClient is a DynamoDB client of endpoint; with capacity set it adds
// up the capacity that Query and BatchGetItem report consuming.
func scaleClient(t *testing.T, endpoint string, capacity *consumedCapacity) *awsdynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		t.Fatal(err)
	}
	return awsdynamodb.NewFromConfig(cfg, func(o *awsdynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		if capacity != nil {
			o.APIOptions = append(o.APIOptions, capacity.middleware)
		}
	})
}

// consumedCapacity sums the ConsumedCapacity of the responses it sees.
type consumedCapacity struct {
	mu    sync.Mutex
	units float64
}

func (c *consumedCapacity) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("consumedCapacity",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			var consumed []ddbtypes.ConsumedCapacity
			switch r := out.Result.(type) {
			case *awsdynamodb.QueryOutput:
				if r.ConsumedCapacity != nil {
					consumed = append(consumed, *r.ConsumedCapacity)
				}
			case *awsdynamodb.BatchGetItemOutput:
				consumed = r.ConsumedCapacity
			}
			c.mu.Lock()
			for _, cc := range consumed {
				c.units += aws.ToFloat64(cc.CapacityUnits)
			}
			c.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

// reset returns the units summed since the last reset.
func (c *consumedCapacity) reset() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.units
	c.units = 0
	return u
}

// bulkLoad writes scaleRecords COMPLETED records as the store writes them,
// a second apart (28 hours) and ending at now, with BatchWriteItem; it returns the pks
// of the listed queue's records, oldest first. The other records are spread
// over 199 other queues of ten queue managers and three tenants.
func bulkLoad(t *testing.T, client *awsdynamodb.Client, table string, now time.Time) []string {
	t.Helper()
	first := now.Add(-scaleRecords * time.Second)
	var queued []string
	items := make([]map[string]ddbtypes.AttributeValue, 0, scaleRecords)
	for i := range scaleRecords {
		at := first.Add(time.Duration(i+1) * time.Second)
		key := fmt.Sprintf("scale-%06d", i)
		rec := idempotency.Record{OperationType: "DEPTH", IdempotencyKey: key, Status: idempotency.StatusCompleted,
			RequestHash: "h", ResponsePayload: `{"status":"COMPLETED","result":{"currentDepth":7}}`, HTTPStatus: 200,
			CreatedAt: at, UpdatedAt: at, ExpiresAt: now.Add(24 * time.Hour), LeaseExpiresAt: at, LeaseToken: "t-" + key,
			Attempt: 1, DurationMs: 12}
		switch {
		case i%scaleQueueEvery == 0:
			rec.Target = scaleQueue
		default:
			rec.Target = fmt.Sprintf("QM%d:APP.QUEUE.%d", i%10, i%199)
			rec.Tenant = []string{"", "team-a", "team-b"}[i%3]
		}
		rec.PK = idempotency.PK(rec.OperationType, rec.Tenant, key)
		if rec.Target == scaleQueue {
			queued = append(queued, rec.PK)
		}
		items = append(items, dynamodb.Item(rec))
	}
	var g errgroup.Group
	g.SetLimit(bulkWriters)
	for batch := range slices.Chunk(items, batchWriteItems) {
		g.Go(func() error { return writeBatch(client, table, batch) })
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("bulk load: %v", err)
	}
	return queued
}

// writeBatch puts items with one BatchWriteItem, again for what it leaves
// unprocessed.
func writeBatch(client *awsdynamodb.Client, table string, items []map[string]ddbtypes.AttributeValue) error {
	var writes []ddbtypes.WriteRequest
	for _, item := range items {
		writes = append(writes, ddbtypes.WriteRequest{PutRequest: &ddbtypes.PutRequest{Item: item}})
	}
	req := map[string][]ddbtypes.WriteRequest{table: writes}
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt == 10 {
			return fmt.Errorf("%d writes still unprocessed after %d BatchWriteItem requests", len(req[table]), attempt)
		}
		out, err := client.BatchWriteItem(context.Background(), &awsdynamodb.BatchWriteItemInput{RequestItems: req})
		if err != nil {
			return fmt.Errorf("BatchWriteItem: %w", err)
		}
		req = out.UnprocessedItems
	}
	return nil
}
