// Package telemetry owns mqprobe's OpenTelemetry: the tracer and meter
// providers configured from the standard OTEL_* variables (no exporter
// unless asked for), the Prometheus registry behind GET /metrics, the
// instruments every component records into, W3C trace-context helpers,
// and the slog handler that stamps log lines with trace and span ids.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/contrib/exporters/autoexport"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
)

// Config names the process in every span and metric.
type Config struct {
	ServiceName    string // default "mqprobe"
	ServiceVersion string
	InstanceID     string
	// SpanProcessors are added to the tracer provider (tests record spans).
	SpanProcessors []sdktrace.SpanProcessor
}

// Telemetry is one process's providers and instruments.
type Telemetry struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Metrics        *Metrics
	recordsSpans   bool
	registry       *prometheus.Registry
	shutdown       []func(context.Context) error
}

// Setup builds the providers. Traces go to the exporter OTEL_TRACES_EXPORTER
// names (otlp, console, none), or to OTLP when only an OTEL_EXPORTER_OTLP_*
// endpoint is set, and nowhere by default; trace context is propagated
// either way (with no exporter and no SpanProcessors, spans are not
// recorded at all). Metrics are always served by MetricsHandler, and also
// exported where OTEL_METRICS_EXPORTER says (otlp, console).
func Setup(ctx context.Context, cfg Config) (*Telemetry, error) {
	if cfg.ServiceName == "" {
		cfg.ServiceName = "mqprobe"
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override ours.
	res, err := resource.New(ctx, resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(cfg.ServiceName), semconv.ServiceVersion(cfg.ServiceVersion),
			semconv.ServiceInstanceID(cfg.InstanceID)),
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	t := &Telemetry{registry: prometheus.NewRegistry()}

	exporter, err := spanExporter(ctx)
	if err != nil {
		return nil, err
	}
	if exporter == nil && len(cfg.SpanProcessors) == 0 {
		// Nobody reads spans: record none, propagate trace context only.
		t.TracerProvider = newPropagatingProvider()
	} else {
		tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
		if exporter != nil {
			tpOpts = append(tpOpts, sdktrace.WithBatcher(exporter))
		}
		for _, sp := range cfg.SpanProcessors {
			tpOpts = append(tpOpts, sdktrace.WithSpanProcessor(sp))
		}
		tp := sdktrace.NewTracerProvider(tpOpts...)
		t.TracerProvider = tp
		t.shutdown = append(t.shutdown, tp.Shutdown)
		t.recordsSpans = true
	}

	t.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	promExporter, err := otelprom.New(otelprom.WithRegisterer(t.registry), otelprom.WithoutScopeInfo(),
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes))
	if err != nil {
		return nil, fmt.Errorf("telemetry prometheus exporter: %w", err)
	}
	mpOpts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(promExporter)}
	if reader, err := metricReader(ctx); err != nil {
		return nil, err
	} else if reader != nil {
		mpOpts = append(mpOpts, sdkmetric.WithReader(reader))
	}
	mp := sdkmetric.NewMeterProvider(mpOpts...)
	t.MeterProvider = mp
	t.shutdown = append(t.shutdown, mp.Shutdown)
	if t.Metrics, err = newMetrics(mp); err != nil {
		return nil, err
	}
	return t, nil
}

// spanExporter is the exporter the OTEL_* variables ask for, or nil.
func spanExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	if os.Getenv("OTEL_TRACES_EXPORTER") == "" && os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" &&
		os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, nil
	}
	exp, err := autoexport.NewSpanExporter(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTEL_TRACES_EXPORTER: %w", err)
	}
	if autoexport.IsNoneSpanExporter(exp) {
		return nil, nil
	}
	return exp, nil
}

// metricReader is the extra reader OTEL_METRICS_EXPORTER asks for, or nil;
// "prometheus" is already served at /metrics.
func metricReader(ctx context.Context) (sdkmetric.Reader, error) {
	switch os.Getenv("OTEL_METRICS_EXPORTER") {
	case "", "none", "prometheus":
		return nil, nil
	}
	r, err := autoexport.NewMetricReader(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTEL_METRICS_EXPORTER: %w", err)
	}
	return r, nil
}

// RecordsSpans reports whether spans are recorded (an exporter or a span
// processor reads them); otherwise spans only carry trace context.
func (t *Telemetry) RecordsSpans() bool { return t.recordsSpans }

// MetricsHandler serves the Prometheus text format: every series.
func (t *Telemetry) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(t.registry, promhttp.HandlerOpts{})
}

// TenantLabel is the metric label naming the tenant a series counts for.
const TenantLabel = "tenant"

// TenantMetricsHandler serves, in the Prometheus text format, only the
// series labelled tenant=name: one tenant's own commands. Series of other
// tenants and daemon-wide ones (load, pools, the store, the runtime) are
// left out, since they tell what the others run.
func (t *Telemetry) TenantMetricsHandler(name string) http.Handler {
	return promhttp.HandlerFor(prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		families, err := t.registry.Gather()
		return seriesOf(families, name), err
	}), promhttp.HandlerOpts{})
}

// seriesOf keeps, of families, the series labelled tenant=name, dropping
// families left empty.
func seriesOf(families []*dto.MetricFamily, name string) []*dto.MetricFamily {
	var kept []*dto.MetricFamily
	for _, f := range families {
		var own []*dto.Metric
		for _, m := range f.GetMetric() {
			if slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
				return l.GetName() == TenantLabel && l.GetValue() == name
			}) {
				own = append(own, m)
			}
		}
		if len(own) > 0 {
			f.Metric = own
			kept = append(kept, f)
		}
	}
	return kept
}

// Tracer returns a tracer of this process's provider.
func (t *Telemetry) Tracer(name string) trace.Tracer { return t.TracerProvider.Tracer(name) }

// Shutdown flushes and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}
