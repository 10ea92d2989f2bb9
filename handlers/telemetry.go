package handlers

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/telemetry"
)

const tracerName = "github.com/mqprobe/mqprobe/handlers"

// unitOfWork is one batch of puts or gets up to its commit, as a span (a
// child of the command's) and as metrics.
type unitOfWork struct {
	ctx   context.Context
	span  trace.Span
	run   Run
	op    string // put, get, browse
	start time.Time
	n     int
}

// beginUnit starts the span of the next unit of work on run's queue.
func beginUnit(ctx context.Context, run Run, op string) *unitOfWork {
	kind, opType, name := trace.SpanKindConsumer, "receive", "receive "+run.Queue
	if op == "put" {
		kind, opType, name = trace.SpanKindProducer, "send", "send "+run.Queue
	}
	ctx, span := telemetry.Tracer(ctx, tracerName).Start(ctx, name, trace.WithSpanKind(kind),
		trace.WithAttributes(telemetry.AttrMessagingSystem.String(telemetry.SystemIBMMQ),
			telemetry.AttrMessagingOperationType.String(opType), telemetry.AttrMessagingOperationName.String(op),
			telemetry.AttrMessagingDestination.String(run.Queue), telemetry.AttrQueueManager.String(run.Target.QueueManager)))
	return &unitOfWork{ctx: ctx, span: span, run: run, op: op, start: time.Now()}
}

// traceParent is the W3C trace context the unit's messages carry.
func (u *unitOfWork) traceParent() string { return telemetry.TraceParent(u.ctx) }

// end closes the unit after its commit (or failure) and records it.
func (u *unitOfWork) end(err error) {
	u.span.SetAttributes(telemetry.AttrMessagingBatchCount.Int(u.n))
	failSpan(u.span, err)
	u.span.End()
	u.run.Metrics.MQ(u.ctx, u.op, u.n, time.Since(u.start))
}

// mqCall wraps one MQ call that moves no message (connect, inquire) in a
// span and a duration metric.
func mqCall(ctx context.Context, run Run, op string, fn func(ctx context.Context) error) error {
	ctx, span := telemetry.Tracer(ctx, tracerName).Start(ctx, op+" "+run.Target.QueueManager, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(telemetry.AttrMessagingSystem.String(telemetry.SystemIBMMQ), telemetry.AttrMessagingOperationName.String(op),
			telemetry.AttrQueueManager.String(run.Target.QueueManager), telemetry.AttrMessagingDestination.String(run.Queue)))
	defer span.End()
	start := time.Now()
	err := fn(ctx)
	run.Metrics.MQ(ctx, op, 0, time.Since(start))
	failSpan(span, err)
	return err
}

// failSpan records err on span with its MQ reason, when it has one.
func failSpan(span trace.Span, err error) {
	if err == nil {
		return
	}
	if e, ok := mq.AsError(err); ok {
		telemetry.Fail(span, err, telemetry.AttrErrorType.String(e.Code()), telemetry.AttrMQReason.Int(int(e.Reason)))
		return
	}
	telemetry.Fail(span, err)
}
