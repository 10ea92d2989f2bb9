package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// maxReadRequests bounds the Scan or Query requests of one List call, so a
// filter that matches little returns a short page (with Next set) rather
// than reading the whole table or index in one call.
const maxReadRequests = 16

// maxBatchGet is the most keys one BatchGetItem reads.
const maxBatchGet = 100

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

// List implements idempotency.Store. It Queries the listing index that
// fits q (index.go), newest first, and reads the page's records with a
// BatchGetItem: a filter by queue (target-index) or of one
// tenant (tenant-index) reads only its matches, so a page of up to 100
// records is two requests. Other filters — every tenant's records without
// a queue — are a consistent Scan with a FilterExpression, in the table's
// hash order, which reads (and bills) every item matching or not: the page
// says so (Scanned). Both bound one call to maxReadRequests reads; a page
// may be short only then (or when a record changes between the index read
// and the record read). After and Next are cursors of the index or scan.
func (s *Store) List(ctx context.Context, q idempotency.ListQuery) (idempotency.ListPage, error) {
	ix := pickIndex(q)
	if q.After != "" && cursorIndex(q.After) == "" {
		ix = listIndex{} // continues a scan
	}
	start, err := decodeCursor(q.After, ix)
	if err != nil {
		return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
	}
	if ix.name == "" {
		page, err := s.scan(ctx, q, start)
		page.Scanned = true
		return page, err
	}
	if empty(q) {
		return idempotency.ListPage{}, nil
	}
	page, err := s.query(ctx, q, ix, start)
	if missingIndex(err) && q.After == "" {
		// A table made before the indexes, on an endpoint that cannot add
		// them (store init says so): scan.
		page, err = s.scan(ctx, q, nil)
		page.Scanned = true
	}
	return page, err
}

// listIndex is the index List queries and its hash key's value; name ""
// means a scan.
type listIndex struct {
	name, hash, value string
}

// pickIndex chooses the index whose hash key q fixes: a queue, else a
// tenant; none when q lists every tenant without a queue.
func pickIndex(q idempotency.ListQuery) listIndex {
	switch {
	case q.QueueManager != "" && q.Queue != "":
		return listIndex{TargetIndex, attrListTarget, idempotency.TargetPrefix(q.QueueManager) + q.Queue}
	case !q.AllTenants:
		return listIndex{TenantIndex, attrListTenant, orStandIn(q.Tenant)}
	default:
		return listIndex{}
	}
}

// filters are q's conditions on what the index projects (or the table
// holds, for a scan) beside the index's hash key.
func filters(e *expr, q idempotency.ListQuery, ix listIndex) []string {
	var conds []string
	if q.Status != "" {
		conds = append(conds, e.name(attrStatus)+" = "+e.val(str(string(q.Status))))
	}
	if q.OperationType != "" {
		conds = append(conds, e.name(attrOperationType)+" = "+e.val(str(q.OperationType)))
	}
	// An index holds the stand-in keys; the table's own attributes are
	// read by a scan, which lists records written before the indexes too.
	tenantAttr, targetAttr := attrListTenant, attrListTarget
	if ix.name == "" {
		tenantAttr, targetAttr = attrTenant, attrTarget
	}
	switch {
	case q.AllTenants || ix.hash == attrListTenant:
	case ix.name == "" && q.Tenant == "":
		// encode leaves out the implicit tenant's empty name.
		conds = append(conds, "attribute_not_exists("+e.name(attrTenant)+")")
	default:
		conds = append(conds, e.name(tenantAttr)+" = "+e.val(str(orStandIn(q.Tenant))))
	}
	switch prefix := idempotency.TargetPrefix(q.QueueManager); {
	case q.QueueManager == "" || ix.hash == attrListTarget:
	case q.Queue != "":
		conds = append(conds, e.name(targetAttr)+" = "+e.val(str(prefix+q.Queue)))
	default:
		conds = append(conds, "begins_with("+e.name(targetAttr)+", "+e.val(str(prefix))+")")
	}
	if !q.LiveAt.IsZero() {
		conds = append(conds, e.name(attrExpiresAtMs)+" > "+e.val(num(q.LiveAt.UnixMilli())))
	}
	if ix.name == "" {
		// The table holds updatedAt; FormatTime's fixed-width UTC text
		// orders as the instants do.
		for _, c := range []struct {
			at time.Time
			op string
		}{{q.UpdatedBefore, "<"}, {q.Since, ">="}, {q.Until, "<"}} {
			if !c.at.IsZero() {
				conds = append(conds, e.name(attrUpdatedAt)+" "+c.op+" "+e.val(str(idempotency.FormatTime(c.at))))
			}
		}
	}
	return conds
}

// empty: q's time range holds no instant (olderThan reaches back past
// since), which no key condition can say.
func empty(q idempotency.ListQuery) bool {
	before := q.Until
	if !q.UpdatedBefore.IsZero() && (before.IsZero() || q.UpdatedBefore.Before(before)) {
		before = q.UpdatedBefore
	}
	return !q.Since.IsZero() && !before.IsZero() && !q.Since.Before(before)
}

// keyCondition is the index's hash key and the time range on listedAt:
// since to until, and before UpdatedBefore (a record's listedAt is never
// after its updatedAt, so no match is left out; List drops the records a
// heartbeat kept updating).
func keyCondition(e *expr, q idempotency.ListQuery, ix listIndex) string {
	cond := e.name(ix.hash) + " = " + e.val(str(ix.value))
	before := q.Until
	if !q.UpdatedBefore.IsZero() && (before.IsZero() || q.UpdatedBefore.Before(before)) {
		before = q.UpdatedBefore
	}
	at := func() string { return e.name(attrListedAt) } // named only when used
	switch {
	case !q.Since.IsZero() && !before.IsZero():
		// listedAt has millisecond precision: "before" is "at most a
		// millisecond earlier".
		cond += " AND " + at() + " BETWEEN " + e.val(str(idempotency.FormatTime(q.Since))) +
			" AND " + e.val(str(idempotency.FormatTime(before.Add(-time.Millisecond))))
	case !q.Since.IsZero():
		cond += " AND " + at() + " >= " + e.val(str(idempotency.FormatTime(q.Since)))
	case !before.IsZero():
		cond += " AND " + at() + " < " + e.val(str(idempotency.FormatTime(before)))
	}
	return cond
}

// query pages through the index newest first until the page is full, the
// index ends or maxReadRequests Queries were made, then reads the records.
func (s *Store) query(ctx context.Context, q idempotency.ListQuery, ix listIndex, start map[string]types.AttributeValue) (idempotency.ListPage, error) {
	e := newExpr()
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(ix.name),
		KeyConditionExpression: aws.String(keyCondition(e, q, ix)), ScanIndexForward: aws.Bool(false),
		ProjectionExpression: aws.String(e.name(attrPK)), ExclusiveStartKey: start,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if conds := filters(e, q, ix); len(conds) > 0 {
		in.FilterExpression = aws.String(strings.Join(conds, " AND "))
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = e.names, e.values
	size := q.PageSize()
	var (
		pks  []string
		last map[string]types.AttributeValue
	)
	for range maxReadRequests {
		// Limit counts items read, not matched: asking for no more than the
		// page still needs makes LastEvaluatedKey where the next page starts.
		in.Limit = aws.Int32(int32(size - len(pks)))
		out, err := s.client.Query(ctx, in)
		if err != nil {
			return idempotency.ListPage{}, fmt.Errorf("list: query %s of %s: %w", ix.name, s.table, err)
		}
		for _, item := range out.Items {
			pks = append(pks, lastKey(item))
		}
		last = out.LastEvaluatedKey
		if len(last) == 0 || len(pks) >= size {
			break
		}
		in.ExclusiveStartKey = last
	}
	records, err := s.getAll(ctx, pks)
	if err != nil {
		return idempotency.ListPage{}, fmt.Errorf("list: %w", err)
	}
	var page idempotency.ListPage
	for _, pk := range pks {
		// Gone, or changed, since the index read (or a heartbeat kept it
		// updated past UpdatedBefore, Since or Until): left out.
		if rec, ok := records[pk]; ok && q.Matches(rec) {
			page.Records = append(page.Records, rec)
		}
	}
	page.Next = encodeCursor(ix.name, last)
	return page, nil
}

// getAll reads the records at pks with BatchGetItems of up to maxBatchGet
// keys, retrying the keys DynamoDB leaves unprocessed a bounded number of
// times. The reads are eventually consistent, as the index Query before
// them is: a consistent read would double their cost (a unit per record
// instead of half) for a listing that is a moment behind either way.
func (s *Store) getAll(ctx context.Context, pks []string) (map[string]idempotency.Record, error) {
	records := make(map[string]idempotency.Record, len(pks))
	for chunk := range slices.Chunk(pks, maxBatchGet) {
		keys := make([]map[string]types.AttributeValue, 0, len(chunk))
		for _, pk := range chunk {
			keys = append(keys, key(pk))
		}
		req := map[string]types.KeysAndAttributes{s.table: {Keys: keys}}
		for attempt := 0; len(req) > 0; attempt++ {
			if attempt == maxReadRequests {
				return nil, fmt.Errorf("batch get from %s: keys still unprocessed after %d requests", s.table, attempt)
			}
			out, err := s.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req,
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return nil, fmt.Errorf("batch get from %s: %w", s.table, err)
			}
			for _, item := range out.Responses[s.table] {
				rec, err := decode(item)
				if err != nil {
					return nil, err
				}
				records[rec.PK] = rec
			}
			req = out.UnprocessedKeys
		}
	}
	return records, nil
}

// scan is List without an index: a consistent Scan with a FilterExpression.
func (s *Store) scan(ctx context.Context, q idempotency.ListQuery, start map[string]types.AttributeValue) (idempotency.ListPage, error) {
	e := newExpr()
	in := &dynamodb.ScanInput{TableName: &s.table, ConsistentRead: aws.Bool(true), ExclusiveStartKey: start,
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	if conds := filters(e, q, listIndex{}); len(conds) > 0 {
		in.FilterExpression = aws.String(strings.Join(conds, " AND "))
		in.ExpressionAttributeNames = e.names
		if len(e.values) > 0 {
			in.ExpressionAttributeValues = e.values
		}
	}
	size := q.PageSize()
	var (
		page idempotency.ListPage
		last map[string]types.AttributeValue
	)
	for range maxReadRequests {
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
		last = out.LastEvaluatedKey
		if len(last) == 0 || len(page.Records) >= size {
			break
		}
		in.ExclusiveStartKey = last
	}
	page.Next = encodeCursor("", last)
	return page, nil
}

// cursor is List's After and Next: the index (or "" for the scan) and its
// LastEvaluatedKey, every attribute of which is a string.
type cursor struct {
	Index string            `json:"i,omitempty"`
	Key   map[string]string `json:"k"`
}

func encodeCursor(index string, last map[string]types.AttributeValue) string {
	if len(last) == 0 {
		return ""
	}
	c := cursor{Index: index, Key: map[string]string{}}
	for name, v := range last {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			c.Key[name] = s.Value
		}
	}
	out, _ := json.Marshal(c) // a struct of strings always marshals
	return string(out)
}

// cursorIndex is the index of a cursor, "" for a scan's (or garbage, which
// decodeCursor then refuses).
func cursorIndex(after string) string {
	var c cursor
	_ = json.Unmarshal([]byte(after), &c) //nolint:errcheck // garbage is refused by decodeCursor
	return c.Index
}

// decodeCursor reads After for ix: the keys of ix's LastEvaluatedKey (pk,
// and an index's hash and range keys), anything else failing with
// idempotency.ErrInvalidCursor.
func decodeCursor(after string, ix listIndex) (map[string]types.AttributeValue, error) {
	if after == "" {
		return nil, nil
	}
	var c cursor
	if err := json.Unmarshal([]byte(after), &c); err != nil || c.Index != ix.name {
		return nil, idempotency.ErrInvalidCursor
	}
	want := []string{attrPK}
	if ix.name != "" {
		want = append(want, ix.hash, attrListedAt)
	}
	if len(c.Key) != len(want) {
		return nil, idempotency.ErrInvalidCursor
	}
	start := map[string]types.AttributeValue{}
	for _, name := range want {
		v, ok := c.Key[name]
		if !ok || v == "" {
			return nil, idempotency.ErrInvalidCursor
		}
		start[name] = str(v)
	}
	if ix.name != "" && c.Key[ix.hash] != ix.value {
		return nil, idempotency.ErrInvalidCursor // a cursor of another listing
	}
	return start, nil
}

// missingIndex: the table has no such index (made before the listing
// indexes, on an endpoint that cannot add them).
func missingIndex(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationException" &&
		strings.Contains(strings.ToLower(apiErr.ErrorMessage()), "does not have the specified index")
}

func lastKey(k map[string]types.AttributeValue) string {
	if v, ok := k[attrPK].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}
