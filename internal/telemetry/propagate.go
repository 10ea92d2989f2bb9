package telemetry

import (
	"context"
	"encoding/binary"
	"math/rand/v2"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// propagatingProvider is the tracer provider when no span is exported:
// its spans record nothing (no sampler, no attributes kept, no processor
// called) yet each has a valid span context, so trace context still flows
// to messages, result events and records. A span continues its parent's
// trace with the parent's flags; a span without a parent starts a new
// trace marked sampled, the decision the SDK's default sampler makes, so
// what downstream services record does not depend on whether this process
// exports.
type propagatingProvider struct {
	embedded.TracerProvider
	tracer *propagatingTracer
}

func newPropagatingProvider() *propagatingProvider {
	p := &propagatingProvider{}
	p.tracer = &propagatingTracer{provider: p}
	return p
}

// Tracer implements trace.TracerProvider; every name shares one tracer.
func (p *propagatingProvider) Tracer(string, ...trace.TracerOption) trace.Tracer { return p.tracer }

type propagatingTracer struct {
	embedded.Tracer
	provider *propagatingProvider
}

// Start implements trace.Tracer; of the options only WithNewRoot matters.
func (t *propagatingTracer) Start(ctx context.Context, _ string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	parent := trace.SpanContextFromContext(ctx)
	if len(opts) > 0 {
		if cfg := trace.NewSpanStartConfig(opts...); cfg.NewRoot() {
			parent = trace.SpanContext{}
		}
	}
	cfg := trace.SpanContextConfig{SpanID: newSpanID(), TraceFlags: trace.FlagsSampled}
	if parent.IsValid() {
		cfg.TraceID, cfg.TraceFlags, cfg.TraceState = parent.TraceID(), parent.TraceFlags(), parent.TraceState()
	} else {
		binary.BigEndian.PutUint64(cfg.TraceID[:8], rand.Uint64())
		binary.BigEndian.PutUint64(cfg.TraceID[8:], rand.Uint64()|1) // never all zero
	}
	span := &propagatingSpan{sc: trace.NewSpanContext(cfg), provider: t.provider}
	return trace.ContextWithSpan(ctx, span), span
}

func newSpanID() (id trace.SpanID) {
	binary.BigEndian.PutUint64(id[:], rand.Uint64()|1)
	return id
}

// propagatingSpan carries a span context and records nothing.
type propagatingSpan struct {
	embedded.Span
	sc       trace.SpanContext
	provider *propagatingProvider
}

func (s *propagatingSpan) SpanContext() trace.SpanContext          { return s.sc }
func (s *propagatingSpan) IsRecording() bool                       { return false }
func (s *propagatingSpan) TracerProvider() trace.TracerProvider    { return s.provider }
func (s *propagatingSpan) End(...trace.SpanEndOption)              {}
func (s *propagatingSpan) AddEvent(string, ...trace.EventOption)   {}
func (s *propagatingSpan) AddLink(trace.Link)                      {}
func (s *propagatingSpan) RecordError(error, ...trace.EventOption) {}
func (s *propagatingSpan) SetStatus(codes.Code, string)            {}
func (s *propagatingSpan) SetName(string)                          {}
func (s *propagatingSpan) SetAttributes(...attribute.KeyValue)     {}
