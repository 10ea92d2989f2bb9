package dynamodb

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Begin implements idempotency.Store.
//
// A PutItem replaces the whole item, and a takeover or retry must carry the
// old attempt+1, createdAt and progress (Claim.Successor), which no condition
// expression can compute. So Begin is one conditional write in the common
// case and a compare-and-set otherwise:
//
//  1. PutItem the fresh record if the item is absent or expired. A new
//     command is decided here, in one write. When the condition fails,
//     DynamoDB returns the old item (ALL_OLD); emulators that ignore that
//     (dynalite) cost one consistent GetItem.
//  2. If Claim.Acquirable(old) is false, old is the answer (a duplicate: one
//     request on DynamoDB, two on dynalite).
//  3. Otherwise PutItem Claim.Successor(old), conditioned on the item still
//     being acquirable by this claim AND still having old's leaseToken,
//     attempt, expiresAtMs and progress: exactly what Successor derives from
//     (createdAt and attempt are written only by Begin, which always writes a
//     new token). If that fails the freshest item is returned, not acquired;
//     the engine classifies it and retries when it is still acquirable.
//
// Races. Every write is conditional on one item, and DynamoDB applies the
// writes of one item one at a time, each seeing the previous. Two claims on
// an absent or expired item: both run step 1, exactly one condition holds;
// the loser sees the winner's live lease. Two takeovers of one expired lease
// or FAILED record: both read token T0 and run step 3 conditioned on
// leaseToken = T0; the first write installs its own fresh token, so the
// second condition fails and it reports the winner's record (lease alive:
// InProgress). A holder's heartbeat or completion racing a takeover either
// lands first (then the takeover's acquirability check fails, or the
// successor would differ and the pinned fields fail it) or second (then its
// leaseToken condition fails: lease lost). A cleanup deleting the item
// between the steps makes step 3 fail and the read report nothing, and the
// engine retries from step 1.
func (s *Store) Begin(ctx context.Context, c idempotency.Claim) (idempotency.Record, bool, error) {
	e := newExpr()
	cond := fmt.Sprintf("attribute_not_exists(%s) OR %s <= %s",
		e.name(attrPK), e.name(attrExpiresAtMs), e.val(num(c.Now.UnixMilli())))
	rec, acquired, old, err := s.put(ctx, c.Record(), cond, e)
	if err != nil || acquired {
		return rec, acquired, err
	}
	if old.PK == "" || !c.Acquirable(old) {
		return old, false, nil
	}
	return s.takeOver(ctx, c, old)
}

// takeOver writes c's successor of old if the item still is old, as far as
// the successor depends on it.
func (s *Store) takeOver(ctx context.Context, c idempotency.Claim, old idempotency.Record) (idempotency.Record, bool, error) {
	e := newExpr()
	now := e.val(num(c.Now.UnixMilli()))
	progress := "attribute_not_exists(" + e.name(attrProgress) + ")"
	if old.Progress != "" {
		progress = e.name(attrProgress) + " = " + e.val(str(old.Progress))
	}
	cond := fmt.Sprintf("(%s <= %s OR (%s = %s AND (%s = %s OR (%s = %s AND %s <= %s))))"+
		" AND %s = %s AND %s = %s AND %s = %s AND %s",
		e.name(attrExpiresAtMs), now,
		e.name(attrRequestHash), e.val(str(c.RequestHash)),
		e.name(attrStatus), e.val(str(string(idempotency.StatusFailed))),
		e.name(attrStatus), e.val(str(string(idempotency.StatusInProgress))),
		e.name(attrLeaseExpiresAt), now,
		e.name(attrLeaseToken), e.val(str(old.LeaseToken)),
		e.name(attrAttempt), e.val(num(int64(old.Attempt))),
		e.name(attrExpiresAtMs), e.val(num(old.ExpiresAt.UnixMilli())),
		progress)
	rec, acquired, fresh, err := s.put(ctx, c.Successor(old), cond, e)
	if err != nil || acquired {
		return rec, acquired, err
	}
	return fresh, false, nil
}

// put writes rec if cond holds. It returns the written record (as stored)
// and true, or false and the item that failed the condition (zero when it
// has gone).
func (s *Store) put(ctx context.Context, rec idempotency.Record, cond string, e *expr) (written idempotency.Record, acquired bool, old idempotency.Record, err error) {
	item := encode(rec)
	_, err = s.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: item, ConditionExpression: &cond,
		ExpressionAttributeNames: e.names, ExpressionAttributeValues: e.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		// Decoded from the item so the caller sees what a read would see
		// (instants at millisecond precision).
		written, err = decode(item)
		return written, err == nil, old, err
	}
	ccf, failed := conditionFailed(err)
	if !failed {
		return written, false, old, fmt.Errorf("put %s: %w", rec.PK, s.classify(err))
	}
	if len(ccf.Item) == 0 {
		old, _, err = s.Get(ctx, rec.PK)
		return written, false, old, err
	}
	if old, err = decode(ccf.Item); err != nil {
		return written, false, old, fmt.Errorf("put %s: %w", rec.PK, err)
	}
	return written, false, old, nil
}
