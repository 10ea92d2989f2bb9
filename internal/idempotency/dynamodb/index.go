package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// The listing indexes List queries, newest first (range key listedAt, the
// instant of the record's claim or completion):
//   - TargetIndex, hash listTarget: the commands against one queue
//     ("QM1:DEV.QUEUE.1"), the seed's target-index;
//   - TenantIndex, hash listTenant: one tenant's records, what
//     GET /idempotency lists, by status, operation or queue manager too.
//
// Both project (INCLUDE) only what List's filters read and what changes at
// claim and completion alone: status, operation type, the other index's
// key and expiresAtMs (moved by a heartbeat only for a command outliving
// its TTL). So a page's matches are found in the index, full, and a
// heartbeat or checkpoint — which rewrites updatedAt, the lease and the
// progress — writes no index item; an ALL projection would copy every
// heartbeat into both indexes. The records themselves (responses,
// checkpoints) are read with one BatchGetItem per page.
const (
	TargetIndex = "target-index"
	TenantIndex = "tenant-index"
)

// listIndexes are the indexes EnsureTable creates, in the order it adds
// them to an existing table.
var listIndexes = []struct{ name, hash, other string }{
	{TargetIndex, attrListTarget, attrListTenant},
	{TenantIndex, attrListTenant, attrListTarget},
}

func indexDefinition(name, hash, other string) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{
		IndexName: aws.String(name),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrListedAt), KeyType: types.KeyTypeRange},
		},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude,
			NonKeyAttributes: []string{other, attrStatus, attrOperationType, attrExpiresAtMs}},
	}
}

// tableAttributes defines the table's and the indexes' key attributes.
func tableAttributes() []types.AttributeDefinition {
	var defs []types.AttributeDefinition
	for _, a := range []string{attrPK, attrListTarget, attrListTenant, attrListedAt} {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	return defs
}

func allIndexes() []types.GlobalSecondaryIndex {
	var out []types.GlobalSecondaryIndex
	for _, ix := range listIndexes {
		out = append(out, indexDefinition(ix.name, ix.hash, ix.other))
	}
	return out
}

// Index states EnsureTable reports in TableInfo.Indexes.
const (
	IndexCreated     = "created with the table"
	IndexPresent     = "present"
	IndexAdded       = "added"
	IndexUnsupported = "not created: this endpoint accepted UpdateTable but ignored the index (dynalite); List scans without it"
)

// indexActiveTimeout bounds the wait for an added index to become ACTIVE:
// DynamoDB backfills it from every item of the table first, which on a
// large table takes a while (docs/deployment.md).
const indexActiveTimeout = 2 * time.Hour

// ensureIndexes adds the listing indexes the table lacks, one UpdateTable
// each (DynamoDB creates one index per call), waiting for each to become
// ACTIVE, and reports every index's state.
func (s *Store) ensureIndexes(ctx context.Context, created bool) (map[string]string, error) {
	states := map[string]string{}
	if created {
		for _, ix := range listIndexes {
			states[ix.name] = IndexCreated
		}
		return states, nil
	}
	for _, ix := range listIndexes {
		status, err := s.indexStatus(ctx, ix.name)
		if err != nil {
			return states, err
		}
		if status == "" {
			err := s.addIndex(ctx, ix.name, ix.hash, ix.other)
			var inUse *types.ResourceInUseException
			if err != nil && !errors.As(err, &inUse) && !alreadyExists(err) { // another process adds it: wait for it
				return states, fmt.Errorf("add index %s: %w", ix.name, err)
			}
			if status, err = s.indexStatus(ctx, ix.name); err != nil {
				return states, err
			}
			if status == "" {
				states[ix.name] = IndexUnsupported
				continue
			}
			states[ix.name] = IndexAdded
		} else {
			states[ix.name] = IndexPresent
		}
		if err := s.waitIndexActive(ctx, ix.name, status); err != nil {
			return states, err
		}
	}
	return states, nil
}

// addIndex asks for one index with UpdateTable. A provisioned table's index
// gets the table's throughput; an on-demand table's none, except on an
// endpoint that insists on one (dynalite 4.0.0, which then ignores the
// index: ensureIndexes notices).
func (s *Store) addIndex(ctx context.Context, name, hash, other string) error {
	out, err := s.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &s.table})
	if err != nil {
		return fmt.Errorf("describe table %s: %w", s.table, err)
	}
	def := indexDefinition(name, hash, other)
	create := &types.CreateGlobalSecondaryIndexAction{IndexName: def.IndexName, KeySchema: def.KeySchema, Projection: def.Projection}
	if t := out.Table; (t.BillingModeSummary == nil || t.BillingModeSummary.BillingMode == types.BillingModeProvisioned) &&
		t.ProvisionedThroughput != nil && aws.ToInt64(t.ProvisionedThroughput.ReadCapacityUnits) > 0 {
		create.ProvisionedThroughput = &types.ProvisionedThroughput{
			ReadCapacityUnits: t.ProvisionedThroughput.ReadCapacityUnits, WriteCapacityUnits: t.ProvisionedThroughput.WriteCapacityUnits}
	}
	update := func() error {
		_, err := s.client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &s.table, AttributeDefinitions: tableAttributes(),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: create}}})
		return err
	}
	err = update()
	var apiErr smithy.APIError
	if create.ProvisionedThroughput == nil && errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" &&
		strings.Contains(apiErr.ErrorMessage(), "provisionedThroughput") {
		create.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
		err = update()
	}
	return err
}

// indexStatus is the status of the table's index name, "" when it has none.
func (s *Store) indexStatus(ctx context.Context, name string) (types.IndexStatus, error) {
	out, err := s.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &s.table})
	if err != nil {
		return "", fmt.Errorf("describe table %s: %w", s.table, err)
	}
	i := slices.IndexFunc(out.Table.GlobalSecondaryIndexes, func(d types.GlobalSecondaryIndexDescription) bool {
		return aws.ToString(d.IndexName) == name
	})
	if i < 0 {
		return "", nil
	}
	return out.Table.GlobalSecondaryIndexes[i].IndexStatus, nil
}

// waitIndexActive polls the index's status until it is ACTIVE.
func (s *Store) waitIndexActive(ctx context.Context, name string, status types.IndexStatus) error {
	ctx, cancel := context.WithTimeout(ctx, indexActiveTimeout)
	defer cancel()
	delay := 100 * time.Millisecond
	for status != types.IndexStatusActive {
		if status == types.IndexStatusDeleting {
			return fmt.Errorf("index %s of %s is being deleted", name, s.table)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for index %s of %s to become ACTIVE (status %s): %w", name, s.table, status, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 10*time.Second)
		var err error
		if status, err = s.indexStatus(ctx, name); err != nil {
			return err
		}
		if status == "" {
			return fmt.Errorf("index %s of %s vanished while being created", name, s.table)
		}
	}
	return nil
}
