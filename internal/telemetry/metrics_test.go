package telemetry

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func newTestMetrics(t testing.TB) (*Metrics, *sdkmetric.ManualReader) {
	reader := sdkmetric.NewManualReader()
	m, err := newMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	return m, reader
}

// TestCachedAttributeSetsKeepEachCombination: the attribute sets kept per
// label combination count each combination apart, with its own labels.
func TestCachedAttributeSetsKeepEachCombination(t *testing.T) {
	m, reader := newTestMetrics(t)
	ctx := context.Background()
	for range 2 {
		m.Command(ctx, "DEPTH", "completed", "team-a", time.Millisecond)
		m.Command(ctx, "DEPTH", "completed", "team-b", time.Millisecond)
		m.Command(ctx, "DEPTH", "failed", "team-a", time.Millisecond)
	}
	m.QueueDepth(ctx, "QM1", "DEV.QUEUE.1", 3)
	m.QueueDepth(ctx, "QM1", "DEV.QUEUE.2", 5)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	var commands, depths []string
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			switch data := md.Data.(type) {
			case metricdata.Sum[int64]:
				if md.Name == "mqprobe.commands" {
					for _, p := range data.DataPoints {
						op, _ := p.Attributes.Value("operation")
						outcome, _ := p.Attributes.Value("outcome")
						tenant, _ := p.Attributes.Value("tenant")
						commands = append(commands, fmt.Sprintf("%s/%s/%s=%d", op.AsString(), outcome.AsString(), tenant.AsString(), p.Value))
					}
				}
			case metricdata.Gauge[int64]:
				if md.Name == "mqprobe.queue.depth" {
					for _, p := range data.DataPoints {
						q, _ := p.Attributes.Value("queue")
						depths = append(depths, fmt.Sprintf("%s=%d", q.AsString(), p.Value))
					}
				}
			}
		}
	}
	slices.Sort(commands)
	slices.Sort(depths)
	if want := []string{"DEPTH/completed/team-a=2", "DEPTH/completed/team-b=2", "DEPTH/failed/team-a=2"}; !slices.Equal(commands, want) {
		t.Errorf("commands %v, want %v", commands, want)
	}
	if want := []string{"DEV.QUEUE.1=3", "DEV.QUEUE.2=5"}; !slices.Equal(depths, want) {
		t.Errorf("queue depths %v, want %v", depths, want)
	}
}

// BenchmarkMetricsPerCommand: what a DEPTH command records.
func BenchmarkMetricsPerCommand(b *testing.B) {
	m, _ := newTestMetrics(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m.Idempotency(ctx, "acquired")
		m.MQ(ctx, "inquire", 0, time.Millisecond)
		m.QueueDepth(ctx, "QM1", "DEV.QUEUE.1", 3)
		m.Command(ctx, "DEPTH", "completed", "default", time.Millisecond)
	}
}
