package executor

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/telemetry"
)

// audit writes the one audit line per command and counts it:
// key, operation, tenant, target, outcome, attempt, whether the key was
// generated, and (from ctx) the trace id.
func (x *Executor) audit(ctx context.Context, j *job, out Outcome) {
	name := out.Kind.Name()
	c, _ := x.counts.LoadOrStore(name, new(int64))
	atomic.AddInt64(c.(*int64), 1)
	x.lastHour.add(time.Now(), j.tenant.Name, name)
	op := string(j.dec.Command.OperationType)
	if op == "" {
		op = string(j.in.Operation)
	}
	x.Metrics.Command(ctx, op, name, j.tenant.Label(), time.Since(j.started))
	attrs := []any{"key", j.key(), "operation", op, "outcome", name, "transport", j.in.Transport}
	attrs = append(attrs, "tenant", j.tenant.Label())
	if j.dec.KeyGenerated() {
		// Nothing dedupes this command: the same request again runs again.
		attrs = append(attrs, "key_generated", true)
	}
	if j.target.Queue != "" {
		attrs = append(attrs, "target", j.target.String())
	}
	if out.Event != nil && out.Event.Data.Attempt > 0 {
		attrs = append(attrs, "attempt", out.Event.Data.Attempt)
	}
	if out.Event != nil && out.Event.Data.Error != nil {
		attrs = append(attrs, "code", out.Event.Data.Error.Code)
	}
	level := slog.LevelInfo
	if out.Err != nil {
		attrs = append(attrs, "error", out.Err)
		level = slog.LevelWarn
	}
	x.Log.Log(ctx, level, "command", attrs...)
}

// annotate records the outcome on the command's span.
func (x *Executor) annotate(span trace.Span, j *job, out Outcome) {
	span.SetAttributes(attribute.String("mqprobe.outcome", out.Kind.Name()))
	if j.target.Queue != "" {
		span.SetAttributes(telemetry.AttrMessagingDestination.String(j.target.Queue),
			telemetry.AttrQueueManager.String(j.target.Target.QueueManager))
	}
	if out.Event != nil && out.Event.Data.Error != nil {
		e := out.Event.Data.Error
		span.SetAttributes(telemetry.AttrErrorType.String(e.Code))
		if e.Reason != 0 {
			span.SetAttributes(telemetry.AttrMQReason.Int(int(e.Reason)))
		}
		if out.Event.Data.Status == result.StatusFailed {
			span.SetStatus(codes.Error, e.Message)
		}
	}
	if out.Err != nil {
		span.RecordError(out.Err)
	}
}

func sourceName(s idempotency.Source) string {
	switch s {
	case idempotency.FromStore:
		return "store"
	case idempotency.FromSingleFlight:
		return "single_flight"
	case idempotency.FromLocalCache:
		return "local_cache"
	case idempotency.FromDisabled:
		return "disabled"
	}
	return "unknown"
}

// LastHourCounts returns how many of tenant's commands ("" for the
// implicit tenant) ended in each outcome in the last hour.
func (x *Executor) LastHourCounts(tenant string) map[string]int64 {
	return x.lastHour.count(time.Now(), tenant)
}

// Counts returns how many commands ended in each outcome.
func (x *Executor) Counts() map[string]int64 {
	out := map[string]int64{}
	x.counts.Range(func(k, v any) bool {
		out[k.(string)] = atomic.LoadInt64(v.(*int64))
		return true
	})
	return out
}
