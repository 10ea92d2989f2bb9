package daemontest

import (
	"sort"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The publisher's trace: a caller sends CallerTraceParent and expects every
// span of the command, the result event and the MQ messages in trace
// CallerTraceID.
const (
	CallerTraceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	CallerTraceParent = "00-" + CallerTraceID + "-00f067aa0ba902b7-01"
)

// Recording is a Start modifier handing every span the daemon ends to rec.
func Recording(rec *tracetest.SpanRecorder) func(*Setup) {
	return func(s *Setup) { s.Opts.SpanProcessors = []sdktrace.SpanProcessor{rec} }
}

// Tree renders spans as "parent > child" lines ("(caller) > name" for a
// span whose parent is not among them), sorted, so a test can compare the
// whole shape. A span outside trace traceID fails t.
func Tree(t *testing.T, spans []sdktrace.ReadOnlySpan, traceID string) []string {
	t.Helper()
	names := map[trace.SpanID]string{}
	for _, s := range spans {
		names[s.SpanContext().SpanID()] = s.Name()
	}
	var lines []string
	for _, s := range spans {
		if got := s.SpanContext().TraceID().String(); got != traceID {
			t.Errorf("span %q is in trace %s, want %s", s.Name(), got, traceID)
		}
		parent := names[s.Parent().SpanID()]
		if parent == "" {
			parent = "(caller)"
		}
		lines = append(lines, parent+" > "+s.Name())
	}
	sort.Strings(lines)
	return lines
}
