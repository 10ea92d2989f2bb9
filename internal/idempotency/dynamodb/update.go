package dynamodb

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Update implements idempotency.Store: one UpdateItem setting what
// idempotency.Update.Apply sets, fenced by the lease token.
func (s *Store) Update(ctx context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	e := newExpr()
	var set, remove []string
	assign := func(attr string, v types.AttributeValue) {
		set = append(set, e.name(attr)+" = "+e.val(v))
	}
	// Empty strings are removed, matching encode.
	assignStr := func(attr, v string) {
		if v == "" {
			remove = append(remove, e.name(attr))
			return
		}
		assign(attr, str(v))
	}
	assign(attrUpdatedAt, str(idempotency.FormatTime(u.Now)))
	if !u.ExpiresAt.IsZero() {
		assign(attrExpiresAt, str(idempotency.FormatTime(u.ExpiresAt)))
		assign(attrExpiresAtMs, num(u.ExpiresAt.UnixMilli()))
		assign(attrTTL, num(u.ExpiresAt.Unix()))
	}
	switch u.Kind {
	case idempotency.UpdateHeartbeat, idempotency.UpdateRelease:
		assign(attrLeaseExpiresAt, num(u.LeaseExpiresAt.UnixMilli()))
		if u.Progress != nil {
			assignStr(attrProgress, *u.Progress)
		}
	case idempotency.UpdateComplete:
		// The listing indexes order by the claim and the completion only:
		// a heartbeat rewriting an index key would write every index
		// again, and make a busy target a hot index partition.
		assign(attrListedAt, str(idempotency.FormatTime(u.Now)))
		assign(attrStatus, str(string(idempotency.StatusCompleted)))
		assignStr(attrResponsePayload, u.ResponsePayload)
		assign(attrHTTPStatus, num(int64(u.HTTPStatus)))
		assign(attrDurationMs, num(u.DurationMs))
	case idempotency.UpdateFail:
		assign(attrListedAt, str(idempotency.FormatTime(u.Now)))
		assign(attrStatus, str(string(idempotency.StatusFailed)))
		assignStr(attrErrorMessage, u.ErrorMessage)
		assignStr(attrResponsePayload, u.ResponsePayload)
		assign(attrHTTPStatus, num(int64(u.HTTPStatus)))
		assign(attrDurationMs, num(u.DurationMs))
	default:
		return idempotency.Record{}, fmt.Errorf("update %s: unknown kind %d", pk, u.Kind)
	}
	update := "SET " + strings.Join(set, ", ")
	if len(remove) > 0 {
		update += " REMOVE " + strings.Join(remove, ", ")
	}
	// An absent item fails this too: its attributes do not exist.
	cond := fmt.Sprintf("%s = %s AND %s = %s", e.name(attrLeaseToken), e.val(str(token)),
		e.name(attrStatus), e.val(str(string(idempotency.StatusInProgress))))
	out, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: key(pk), UpdateExpression: &update, ConditionExpression: &cond,
		ExpressionAttributeNames: e.names, ExpressionAttributeValues: e.values,
		ReturnValues: types.ReturnValueAllNew,
	})
	if _, failed := conditionFailed(err); failed {
		return idempotency.Record{}, idempotency.ErrLeaseLost
	}
	if err != nil {
		return idempotency.Record{}, fmt.Errorf("update %s: %w", pk, s.classify(err))
	}
	rec, err := decode(out.Attributes)
	if err != nil {
		return idempotency.Record{}, fmt.Errorf("update %s: %w", pk, err)
	}
	return rec, nil
}
