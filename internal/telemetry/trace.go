package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

var w3c = propagation.TraceContext{}

// Propagator is the W3C trace-context propagator mqprobe uses everywhere.
func Propagator() propagation.TextMapPropagator { return w3c }

// TraceParent is the W3C traceparent of the span in ctx, or "".
func TraceParent(ctx context.Context) string {
	carrier := propagation.MapCarrier{}
	w3c.Inject(ctx, carrier)
	return carrier.Get("traceparent")
}

// WithTraceParent returns ctx carrying the remote span context in
// traceparent, for the next span to continue; an invalid value is ignored.
func WithTraceParent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return w3c.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
}

// Tracer returns a tracer from the provider of the span in ctx, so
// components below the executor need no provider of their own.
func Tracer(ctx context.Context, name string) trace.Tracer {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(name)
}

// Fail marks span failed with err and, for MQ errors, their reason.
func Fail(span trace.Span, err error, attrs ...attribute.KeyValue) {
	if err == nil {
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	span.SetAttributes(attrs...)
}

// Messaging attribute keys of the OpenTelemetry semantic conventions and
// mqprobe's own.
const (
	AttrMessagingSystem        = attribute.Key("messaging.system")
	AttrMessagingOperationType = attribute.Key("messaging.operation.type")
	AttrMessagingOperationName = attribute.Key("messaging.operation.name")
	AttrMessagingDestination   = attribute.Key("messaging.destination.name")
	AttrMessagingMessageID     = attribute.Key("messaging.message.id")
	AttrMessagingBatchCount    = attribute.Key("messaging.batch.message_count")
	AttrErrorType              = attribute.Key("error.type")
	AttrOperation              = attribute.Key("mqprobe.operation")
	AttrTenant                 = attribute.Key("mqprobe.tenant")
	AttrIdempotencyOutcome     = attribute.Key("mqprobe.idempotency.outcome")
	AttrIdempotencyKey         = attribute.Key("mqprobe.idempotency.key")
	AttrAttempt                = attribute.Key("mqprobe.attempt")
	AttrQueueManager           = attribute.Key("mqprobe.mq.queue_manager")
	AttrMQReason               = attribute.Key("mqprobe.mq.reason")
)

// SystemIBMMQ is messaging.system for IBM MQ.
const SystemIBMMQ = "ibm_mq"
