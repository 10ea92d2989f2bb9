package dynamodb

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// maxScanRequests bounds the Scan requests of one List call, so a filter
// that matches little returns a short page (with Next set) rather than
// reading the whole table in one call.
const maxScanRequests = 16

// Delete implements idempotency.Store with one DeleteItem whose condition
// carries the Deletion's.
func (s *Store) Delete(ctx context.Context, d idempotency.Deletion) (bool, error) {
	e := newExpr()
	cond := "attribute_exists(" + e.name(attrPK) + ")"
	if !d.Force {
		cond += " AND " + e.name(attrLeaseToken) + " = " + e.val(str(d.LeaseToken)) +
			" AND (" + e.name(attrStatus) + " <> " + e.val(str(string(idempotency.StatusInProgress))) +
			" OR " + e.name(attrLeaseExpiresAt) + " <= " + e.val(num(d.Now.UnixMilli())) + ")"
	}
	in := &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(d.PK), ConditionExpression: &cond,
		ExpressionAttributeNames: e.names}
	if len(e.values) > 0 {
		in.ExpressionAttributeValues = e.values
	}
	_, err := s.client.DeleteItem(ctx, in)
	if _, failed := conditionFailed(err); failed {
		return false, nil // absent, claimed again or renewed since the caller read it
	}
	if err != nil {
		return false, fmt.Errorf("delete %s: %w", d.PK, err)
	}
	return true, nil
}

// List implements idempotency.Store with a consistent Scan and a
// FilterExpression: it reads the table (DynamoDB bills every item the scan
// reads, matching or not), which suits an operator's occasional look, not a
// hot path. After and Next are the pk of the scan's LastEvaluatedKey, so
// the order is the table's hash order and a page may be short.
func (s *Store) List(ctx context.Context, q idempotency.ListQuery) (idempotency.ListPage, error) {
	e := newExpr()
	var conds []string
	if q.Status != "" {
		conds = append(conds, e.name(attrStatus)+" = "+e.val(str(string(q.Status))))
	}
	if q.OperationType != "" {
		conds = append(conds, e.name(attrOperationType)+" = "+e.val(str(q.OperationType)))
	}
	switch {
	case q.AllTenants:
	case q.Tenant == "":
		// encode leaves out the implicit tenant's empty name.
		conds = append(conds, "attribute_not_exists("+e.name(attrTenant)+")")
	default:
		conds = append(conds, e.name(attrTenant)+" = "+e.val(str(q.Tenant)))
	}
	if !q.UpdatedBefore.IsZero() {
		// FormatTime's fixed-width UTC text orders as the instants do.
		conds = append(conds, e.name(attrUpdatedAt)+" < "+e.val(str(idempotency.FormatTime(q.UpdatedBefore))))
	}
	if !q.LiveAt.IsZero() {
		conds = append(conds, e.name(attrExpiresAtMs)+" > "+e.val(num(q.LiveAt.UnixMilli())))
	}
	in := &dynamodb.ScanInput{TableName: &s.table, ConsistentRead: aws.Bool(true)}
	if len(conds) > 0 {
		in.FilterExpression = aws.String(strings.Join(conds, " AND "))
		in.ExpressionAttributeNames = e.names
		if len(e.values) > 0 {
			in.ExpressionAttributeValues = e.values
		}
	}
	if q.After != "" {
		in.ExclusiveStartKey = key(q.After)
	}
	size := q.PageSize()
	var page idempotency.ListPage
	for range maxScanRequests {
		// Scan's Limit counts items read, not matched: asking for no more
		// than the page still needs means every match read is returned, so
		// LastEvaluatedKey is exactly where the next page starts.
		in.Limit = aws.Int32(int32(size - len(page.Records)))
		out, err := s.client.Scan(ctx, in)
		if err != nil {
			return idempotency.ListPage{}, fmt.Errorf("list: scan %s: %w", s.table, err)
		}
		for _, item := range out.Items {
			rec, err := decode(item)
			if err != nil {
				return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
			}
			page.Records = append(page.Records, rec)
		}
		page.Next = lastKey(out.LastEvaluatedKey)
		if page.Next == "" || len(page.Records) >= size {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return page, nil
}

func lastKey(k map[string]types.AttributeValue) string {
	if v, ok := k[attrPK].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
