package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// DefaultTable is the table mqprobe uses unless configured otherwise.
const DefaultTable = "mq-probe-idempotency"

// Store is an idempotency.Store on one DynamoDB table.
type Store struct {
	client *dynamodb.Client
	table  string
}

var _ idempotency.Store = (*Store)(nil)

// New returns a store on table (DefaultTable when empty). It makes no
// request; EnsureTable provisions the table.
func New(client *dynamodb.Client, table string) *Store {
	if table == "" {
		table = DefaultTable
	}
	return &Store{client: client, table: table}
}

// Table is the name of the store's table.
func (s *Store) Table() string { return s.table }

// Get implements idempotency.Store.
func (s *Store) Get(ctx context.Context, pk string) (idempotency.Record, bool, error) {
	out, err := s.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(pk), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return idempotency.Record{}, false, fmt.Errorf("get %s: %w", pk, err)
	}
	if len(out.Item) == 0 {
		return idempotency.Record{}, false, nil
	}
	rec, err := decode(out.Item)
	if err != nil {
		return idempotency.Record{}, false, fmt.Errorf("get %s: %w", pk, err)
	}
	return rec, true, nil
}

// DeleteExpired implements idempotency.Store. On AWS native TTL removes
// expired items (lazily); this tidies emulators and is what the cleanup job
// calls. Each delete is conditioned on the item still being expired, so a
// record re-claimed since the scan is kept and concurrent runs count each
// item once.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	e := newExpr()
	nowMs := e.val(num(now.UnixMilli()))
	expired := e.name(attrExpiresAtMs) + " <= " + nowMs
	pages := dynamodb.NewScanPaginator(s.client, &dynamodb.ScanInput{
		TableName: &s.table, ConsistentRead: aws.Bool(true),
		FilterExpression: &expired, ProjectionExpression: aws.String(e.name(attrPK)),
		ExpressionAttributeNames: e.names, ExpressionAttributeValues: e.values,
	})
	var n int64
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return n, fmt.Errorf("delete expired: scan %s: %w", s.table, err)
		}
		for _, item := range page.Items {
			deleted, err := s.deleteExpired(ctx, item, now)
			if err != nil {
				return n, err
			}
			if deleted {
				n++
			}
		}
	}
	return n, nil
}

func (s *Store) deleteExpired(ctx context.Context, item map[string]types.AttributeValue, now time.Time) (bool, error) {
	pk := (&decoder{item: item}).str(attrPK)
	e := newExpr()
	cond := e.name(attrExpiresAtMs) + " <= " + e.val(num(now.UnixMilli()))
	_, err := s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &s.table, Key: key(pk),
		ConditionExpression: &cond, ExpressionAttributeNames: e.names, ExpressionAttributeValues: e.values,
	})
	if _, failed := conditionFailed(err); failed {
		return false, nil // re-claimed or deleted by another run meanwhile
	}
	if err != nil {
		return false, fmt.Errorf("delete expired: delete %s: %w", pk, err)
	}
	return true, nil
}

// Close implements idempotency.Store; the client holds nothing to release.
func (s *Store) Close() error { return nil }

// conditionFailed reports whether err is a failed condition, with the
// exception (whose Item is the old item when asked for and supported).
func conditionFailed(err error) (*types.ConditionalCheckFailedException, bool) {
	var ccf *types.ConditionalCheckFailedException
	return ccf, errors.As(err, &ccf)
}
