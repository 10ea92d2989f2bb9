package dynamodb

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// Attribute names: the record's plus expiresAtMs (see the package comment).
const (
	attrPK              = "pk"
	attrOperationType   = "operationType"
	attrTenant          = "tenant"
	attrIdempotencyKey  = "idempotencyKey"
	attrStatus          = "status"
	attrRequestHash     = "requestHash"
	attrResponsePayload = "responsePayload"
	attrHTTPStatus      = "httpStatus"
	attrCreatedAt       = "createdAt"
	attrUpdatedAt       = "updatedAt"
	attrExpiresAt       = "expiresAt"
	attrExpiresAtMs     = "expiresAtMs"
	attrTTL             = "ttl"
	attrLeaseExpiresAt  = "leaseExpiresAt"
	attrLeaseToken      = "leaseToken"
	attrLeaseHolder     = "leaseHolder"
	attrAttempt         = "attempt"
	attrTarget          = "target"
	attrTraceID         = "traceId"
	attrDurationMs      = "durationMs"
	attrErrorMessage    = "errorMessage"
	attrProgress        = "progress"

	// The keys of the listing indexes (index.go), written at claim and
	// completion only.
	attrListTenant = "listTenant"
	attrListTarget = "listTarget"
	attrListedAt   = "listedAt"
)

// standIn is the index key of the implicit tenant and of a command without
// a target: an item without an index's key is left out of the index, and
// the default deployment's listing would scan. No tenant name or target
// ("QM1:...") is "_".
const standIn = "_"

func orStandIn(s string) string {
	if s == "" {
		return standIn
	}
	return s
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func key(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(pk)}
}

// Item is the item the store writes for r: what a tool loading records in
// bulk (BatchWriteItem) puts so that they list as the store's own.
func Item(r idempotency.Record) map[string]types.AttributeValue { return encode(r) }

// encode maps r to an item. Optional strings are left out when empty, as the
// record's JSON form does, so an item never holds meaningless attributes.
// The listing indexes' keys are never left out (standIn).
func encode(r idempotency.Record) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		attrPK:             str(r.PK),
		attrOperationType:  str(r.OperationType),
		attrIdempotencyKey: str(r.IdempotencyKey),
		attrStatus:         str(string(r.Status)),
		attrRequestHash:    str(r.RequestHash),
		attrHTTPStatus:     num(int64(r.HTTPStatus)),
		attrCreatedAt:      str(idempotency.FormatTime(r.CreatedAt)),
		attrUpdatedAt:      str(idempotency.FormatTime(r.UpdatedAt)),
		attrExpiresAt:      str(idempotency.FormatTime(r.ExpiresAt)),
		attrExpiresAtMs:    num(r.ExpiresAt.UnixMilli()),
		attrTTL:            num(r.TTL()),
		attrLeaseExpiresAt: num(r.LeaseExpiresAt.UnixMilli()),
		attrAttempt:        num(int64(r.Attempt)),
		attrDurationMs:     num(r.DurationMs),
		attrListTenant:     str(orStandIn(r.Tenant)),
		attrListTarget:     str(orStandIn(r.Target)),
		attrListedAt:       str(idempotency.FormatTime(r.UpdatedAt)),
	}
	for name, v := range map[string]string{
		attrResponsePayload: r.ResponsePayload, attrLeaseToken: r.LeaseToken, attrTarget: r.Target,
		attrTraceID: r.TraceID, attrErrorMessage: r.ErrorMessage, attrProgress: r.Progress, attrTenant: r.Tenant,
		attrLeaseHolder: r.LeaseHolder,
	} {
		if v != "" {
			item[name] = str(v)
		}
	}
	return item
}

// decode maps an item written by encode (or updated by Update) to a record.
func decode(item map[string]types.AttributeValue) (idempotency.Record, error) {
	d := decoder{item: item}
	r := idempotency.Record{
		PK: d.str(attrPK), OperationType: d.str(attrOperationType), Tenant: d.str(attrTenant), IdempotencyKey: d.str(attrIdempotencyKey),
		Status: idempotency.Status(d.str(attrStatus)), RequestHash: d.str(attrRequestHash),
		ResponsePayload: d.str(attrResponsePayload), HTTPStatus: int(d.num(attrHTTPStatus)),
		CreatedAt: d.time(attrCreatedAt), UpdatedAt: d.time(attrUpdatedAt), ExpiresAt: d.time(attrExpiresAt),
		LeaseExpiresAt: time.UnixMilli(d.num(attrLeaseExpiresAt)).UTC(), LeaseToken: d.str(attrLeaseToken),
		LeaseHolder: d.str(attrLeaseHolder),
		Attempt:     int(d.num(attrAttempt)), Target: d.str(attrTarget), TraceID: d.str(attrTraceID),
		DurationMs: d.num(attrDurationMs), ErrorMessage: d.str(attrErrorMessage), Progress: d.str(attrProgress),
	}
	if d.err != nil {
		return idempotency.Record{}, fmt.Errorf("item %s: %w", r.PK, d.err)
	}
	return r, nil
}

// decoder reads attributes, keeping the first error. Absent attributes read
// as zero values; the timestamps, which every item has, fail to parse instead.
type decoder struct {
	item map[string]types.AttributeValue
	err  error
}

func (d *decoder) str(name string) string {
	switch v := d.item[name].(type) {
	case nil:
		return ""
	case *types.AttributeValueMemberS:
		return v.Value
	default:
		d.fail(fmt.Errorf("%s: want S, got %T", name, v))
		return ""
	}
}

func (d *decoder) num(name string) int64 {
	switch v := d.item[name].(type) {
	case nil:
		return 0
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil {
			d.fail(fmt.Errorf("%s: %w", name, err))
		}
		return n
	default:
		d.fail(fmt.Errorf("%s: want N, got %T", name, v))
		return 0
	}
}

func (d *decoder) time(name string) time.Time {
	t, err := idempotency.ParseTime(d.str(name))
	if err != nil {
		d.fail(fmt.Errorf("%s: %w", name, err))
	}
	return t
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}
