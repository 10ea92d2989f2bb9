package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TTL states EnsureTable reports.
const (
	TTLEnabled        = "enabled"
	TTLAlreadyEnabled = "already enabled"
	TTLUnsupported    = "not supported by this endpoint"
)

// TableInfo says what EnsureTable found and did.
type TableInfo struct {
	Created bool   // the table did not exist and was created
	TTL     string // one of the TTL states
	// Indexes maps each listing index (TargetIndex, TenantIndex) to one of
	// the index states.
	Indexes map[string]string
}

// tableActiveTimeout bounds the wait for a new table to become ACTIVE.
const tableActiveTimeout = 5 * time.Minute

// EnsureTable creates the table (hash key pk, on-demand billing, the
// listing indexes) unless it exists, waits until it is ACTIVE, adds the
// listing indexes it lacks (waiting for each to become ACTIVE) and enables
// TTL on ttl unless it is enabled. Running it again, or from several
// processes at once, is harmless. Endpoints without the TTL API (dynalite)
// are reported in TableInfo.TTL, not as an error: DeleteExpired does TTL's
// work there; an endpoint that ignores an added index is reported in
// TableInfo.Indexes.
func (s *Store) EnsureTable(ctx context.Context) (TableInfo, error) {
	var info TableInfo
	_, err := s.client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:              &s.table,
		AttributeDefinitions:   tableAttributes(),
		KeySchema:              []types.KeySchemaElement{{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: allIndexes(),
		BillingMode:            types.BillingModePayPerRequest,
	})
	var inUse *types.ResourceInUseException
	switch {
	case err == nil:
		info.Created = true
	case errors.As(err, &inUse): // exists (or is being created by another process)
	default:
		return info, fmt.Errorf("create table %s: %w", s.table, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(s.client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 100*time.Millisecond, 5*time.Second
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: &s.table}, tableActiveTimeout); err != nil {
		return info, fmt.Errorf("wait for table %s: %w", s.table, err)
	}
	if info.Indexes, err = s.ensureIndexes(ctx, info.Created); err != nil {
		return info, fmt.Errorf("table %s: %w", s.table, err)
	}
	if info.TTL, err = s.ensureTTL(ctx); err != nil {
		return info, fmt.Errorf("table %s: %w", s.table, err)
	}
	return info, nil
}

func (s *Store) ensureTTL(ctx context.Context) (string, error) {
	out, err := s.client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &s.table})
	if unknownOperation(err) {
		return TTLUnsupported, nil
	}
	if err != nil {
		return "", fmt.Errorf("describe TTL: %w", err)
	}
	if d := out.TimeToLiveDescription; d != nil {
		switch d.TimeToLiveStatus {
		case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
			if name := aws.ToString(d.AttributeName); name != attrTTL {
				return "", fmt.Errorf("TTL is enabled on attribute %q, want %q", name, attrTTL)
			}
			return TTLAlreadyEnabled, nil
		}
	}
	_, err = s.client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: &s.table,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(attrTTL), Enabled: aws.Bool(true),
		},
	})
	var apiErr smithy.APIError
	switch {
	case err == nil:
		return TTLEnabled, nil
	case unknownOperation(err):
		return TTLUnsupported, nil
	case errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" &&
		strings.Contains(strings.ToLower(apiErr.ErrorMessage()), "already enabled"):
		return TTLAlreadyEnabled, nil // another process enabled it since we looked
	default:
		return "", fmt.Errorf("enable TTL on %s: %w", attrTTL, err)
	}
}

// alreadyExists: UpdateTable refused to create an index the table has
// (another process added it since we looked).
func alreadyExists(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" &&
		strings.Contains(strings.ToLower(apiErr.ErrorMessage()), "already exists")
}

func unknownOperation(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "UnknownOperationException"
}
