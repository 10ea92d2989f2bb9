package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// TracedStore wraps an idempotency store so each call is a client span,
// a child of whatever span the caller's context carries.
func TracedStore(s idempotency.Store, system string) idempotency.Store {
	return &tracedStore{Store: s, system: system}
}

type tracedStore struct {
	idempotency.Store
	system string // db.system.name: sqlite, postgresql, dynamodb, memory
}

func (t *tracedStore) start(ctx context.Context, op, pk string) (context.Context, trace.Span) {
	return Tracer(ctx, "github.com/mqprobe/mqprobe/internal/idempotency").Start(ctx, "idempotency.store "+op,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", t.system), attribute.String("db.operation.name", op),
			attribute.String("mqprobe.idempotency.pk", pk)))
}

func (t *tracedStore) Begin(ctx context.Context, c idempotency.Claim) (idempotency.Record, bool, error) {
	ctx, span := t.start(ctx, "begin", c.PK)
	defer span.End()
	rec, acquired, err := t.Store.Begin(ctx, c)
	span.SetAttributes(attribute.Bool("mqprobe.idempotency.written", acquired))
	Fail(span, err)
	return rec, acquired, err
}

func (t *tracedStore) Update(ctx context.Context, pk, token string, u idempotency.Update) (idempotency.Record, error) {
	ctx, span := t.start(ctx, updateName(u.Kind), pk)
	defer span.End()
	rec, err := t.Store.Update(ctx, pk, token, u)
	Fail(span, err)
	return rec, err
}

func (t *tracedStore) Get(ctx context.Context, pk string) (idempotency.Record, bool, error) {
	ctx, span := t.start(ctx, "get", pk)
	defer span.End()
	rec, ok, err := t.Store.Get(ctx, pk)
	Fail(span, err)
	return rec, ok, err
}

func (t *tracedStore) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	ctx, span := t.start(ctx, "delete_expired", "")
	defer span.End()
	n, err := t.Store.DeleteExpired(ctx, now)
	span.SetAttributes(attribute.Int64("mqprobe.idempotency.deleted", n))
	Fail(span, err)
	return n, err
}

func (t *tracedStore) Delete(ctx context.Context, d idempotency.Deletion) (bool, error) {
	ctx, span := t.start(ctx, "delete", d.PK)
	defer span.End()
	deleted, err := t.Store.Delete(ctx, d)
	span.SetAttributes(attribute.Bool("mqprobe.idempotency.evicted", deleted))
	Fail(span, err)
	return deleted, err
}

func (t *tracedStore) List(ctx context.Context, q idempotency.ListQuery) (idempotency.ListPage, error) {
	ctx, span := t.start(ctx, "list", "")
	defer span.End()
	page, err := t.Store.List(ctx, q)
	span.SetAttributes(attribute.Int("mqprobe.idempotency.listed", len(page.Records)))
	Fail(span, err)
	return page, err
}

func updateName(k idempotency.UpdateKind) string {
	switch k {
	case idempotency.UpdateHeartbeat:
		return "heartbeat"
	case idempotency.UpdateComplete:
		return "complete"
	case idempotency.UpdateFail:
		return "fail"
	case idempotency.UpdateRelease:
		return "release"
	}
	return "update"
}
