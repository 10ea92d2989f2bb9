package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metrics are mqprobe's instruments. The Prometheus names they appear
// under at /metrics are in each field's comment. Methods on a nil *Metrics
// do nothing, so components run without telemetry in unit tests.
type Metrics struct {
	commands        metric.Int64Counter       // mqprobe_commands_total{operation,outcome,tenant}
	idempotency     metric.Int64Counter       // mqprobe_idempotency_outcomes_total{outcome}
	mqMessages      metric.Int64Counter       // mqprobe_mq_messages_total{operation}
	mqDuration      metric.Float64Histogram   // mqprobe_mq_operation_duration_seconds{operation}
	commandDuration metric.Float64Histogram   // mqprobe_command_duration_seconds{operation,outcome,tenant}
	queueDepth      metric.Int64Gauge         // mqprobe_queue_depth{queue_manager,queue}
	queueOldestAge  metric.Float64Gauge       // mqprobe_queue_oldest_message_age_seconds{queue_manager,queue}
	queueHealth     metric.Int64Gauge         // mqprobe_queue_health{queue_manager,queue}
	probeRoundTrip  metric.Float64Histogram   // mqprobe_probe_round_trip_seconds{queue_manager,queue}
	probeSuccess    metric.Int64Gauge         // mqprobe_probe_success{queue_manager,queue}
	responderReqs   metric.Int64Counter       // mqprobe_responder_requests_total{responder,outcome}
	responderTime   metric.Float64Histogram   // mqprobe_responder_service_seconds{responder}
	responderConns  metric.Int64UpDownCounter // mqprobe_responder_workers{responder}

	commandAttrs attrSets[[3]string] // operation, outcome, tenant
	outcomeAttrs attrSets[string]
	mqAttrs      attrSets[string]
	queueAttrs   attrSets[[2]string] // queue manager, queue
	// responders are few and named in the configuration.
	responderAttrs attrSets[[2]string] // responder, outcome ("" for none)
}

// maxAttrSets bounds each attrSets: past it, label combinations are built
// per call rather than kept.
const maxAttrSets = 4096

// attrSets keeps the attribute set of each label combination once built:
// building one sorts and allocates on every call, and a process sees few
// combinations (operations, outcomes, tenants, the queues commands name).
type attrSets[K comparable] struct {
	mu   sync.RWMutex
	sets map[K]metric.MeasurementOption
}

// get returns the option carrying the attributes of k, which build lists.
func (c *attrSets[K]) get(k K, build func() []attribute.KeyValue) metric.MeasurementOption {
	c.mu.RLock()
	opt, ok := c.sets[k]
	c.mu.RUnlock()
	if ok {
		return opt
	}
	opt = metric.WithAttributeSet(attribute.NewSet(build()...))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sets == nil {
		c.sets = map[K]metric.MeasurementOption{}
	}
	if len(c.sets) < maxAttrSets {
		c.sets[k] = opt
	}
	return opt
}

// Latency buckets from 50 µs to a minute: MQ calls on a local queue manager
// take microseconds, batches over a WAN take seconds.
var latencyBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

func newMetrics(mp metric.MeterProvider) (*Metrics, error) {
	meter := mp.Meter("github.com/mqprobe/mqprobe")
	var m Metrics
	var err error
	errs := func(e error) {
		if err == nil && e != nil {
			err = e
		}
	}
	var e error
	m.commands, e = meter.Int64Counter("mqprobe.commands", metric.WithDescription("Commands by operation and outcome."))
	errs(e)
	m.idempotency, e = meter.Int64Counter("mqprobe.idempotency.outcomes", metric.WithDescription("Idempotency decisions: acquired, replay, in_progress, conflict."))
	errs(e)
	m.mqMessages, e = meter.Int64Counter("mqprobe.mq.messages", metric.WithDescription("Messages put, got or browsed."))
	errs(e)
	m.mqDuration, e = meter.Float64Histogram("mqprobe.mq.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of MQ calls: put, get, commit, connect, inquire."), metric.WithExplicitBucketBoundaries(latencyBuckets...))
	errs(e)
	m.commandDuration, e = meter.Float64Histogram("mqprobe.command.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of commands from receipt to outcome."), metric.WithExplicitBucketBoundaries(latencyBuckets...))
	errs(e)
	m.queueDepth, e = meter.Int64Gauge("mqprobe.queue.depth", metric.WithDescription("Last observed current depth of a queue."))
	errs(e)
	m.queueOldestAge, e = meter.Float64Gauge("mqprobe.queue.oldest_message_age", metric.WithUnit("s"),
		metric.WithDescription("Last observed age of the oldest message on a queue."))
	errs(e)
	m.queueHealth, e = meter.Int64Gauge("mqprobe.queue.health",
		metric.WithDescription("Last DEPTH verdict on a queue with thresholds: 0 healthy, 1 warning, 2 critical, -1 unknown."))
	errs(e)
	m.probeRoundTrip, e = meter.Float64Histogram("mqprobe.probe.round_trip", metric.WithUnit("s"),
		metric.WithDescription("Round trip of TEST probe messages, put to got back."), metric.WithExplicitBucketBoundaries(latencyBuckets...))
	errs(e)
	m.probeSuccess, e = meter.Int64Gauge("mqprobe.probe.success",
		metric.WithDescription("1 when the last TEST on a queue got every message back, 0 when it lost any or failed."))
	errs(e)
	m.responderReqs, e = meter.Int64Counter("mqprobe.responder.requests",
		metric.WithDescription("Requests a responder took: replied, dead_lettered (refused or undeliverable, MQDLH on the dead-letter queue) or failed."))
	errs(e)
	m.responderTime, e = meter.Float64Histogram("mqprobe.responder.service", metric.WithUnit("s"),
		metric.WithDescription("A responder's time from getting a request to putting its reply."), metric.WithExplicitBucketBoundaries(latencyBuckets...))
	errs(e)
	m.responderConns, e = meter.Int64UpDownCounter("mqprobe.responder.workers",
		metric.WithDescription("A responder's workers connected and serving its queue."))
	errs(e)
	if err != nil {
		return nil, fmt.Errorf("telemetry instruments: %w", err)
	}
	return &m, nil
}

// Command records a command's outcome and duration, labelled with the
// tenant it ran for.
func (m *Metrics) Command(ctx context.Context, operation, outcome, tenant string, d time.Duration) {
	if m == nil {
		return
	}
	attrs := m.commandAttrs.get([3]string{operation, outcome, tenant}, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("operation", operation), attribute.String("outcome", outcome),
			attribute.String(TenantLabel, tenant)}
	})
	m.commands.Add(ctx, 1, attrs)
	m.commandDuration.Record(ctx, d.Seconds(), attrs)
}

// Idempotency records one idempotency decision.
func (m *Metrics) Idempotency(ctx context.Context, outcome string) {
	if m == nil {
		return
	}
	m.idempotency.Add(ctx, 1, m.outcomeAttrs.get(outcome, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("outcome", outcome)}
	}))
}

// MQ records n messages moved by one MQ operation (put, get, browse) and
// the call's duration; n is 0 for calls that move none (commit, connect).
func (m *Metrics) MQ(ctx context.Context, operation string, n int, d time.Duration) {
	if m == nil {
		return
	}
	attrs := m.mqAttrs.get(operation, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("operation", operation)}
	})
	if n > 0 {
		m.mqMessages.Add(ctx, int64(n), attrs)
	}
	m.mqDuration.Record(ctx, d.Seconds(), attrs)
}

// QueueDepth records the depth last observed on a queue.
func (m *Metrics) QueueDepth(ctx context.Context, queueManager, queue string, depth int) {
	if m == nil {
		return
	}
	m.queueDepth.Record(ctx, int64(depth), m.queue(queueManager, queue))
}

// QueueOldestMessageAge records the age of the oldest message last
// observed on a queue.
func (m *Metrics) QueueOldestMessageAge(ctx context.Context, queueManager, queue string, age time.Duration) {
	if m == nil {
		return
	}
	m.queueOldestAge.Record(ctx, age.Seconds(), m.queue(queueManager, queue))
}

// Queue health verdicts as mqprobe_queue_health records them.
var queueHealthValues = map[string]int64{"healthy": 0, "warning": 1, "critical": 2, "unknown": -1}

// QueueHealth records a DEPTH verdict on a queue: healthy, warning,
// critical or unknown.
func (m *Metrics) QueueHealth(ctx context.Context, queueManager, queue, verdict string) {
	if m == nil {
		return
	}
	v, ok := queueHealthValues[verdict]
	if !ok {
		v = queueHealthValues["unknown"]
	}
	m.queueHealth.Record(ctx, v, m.queue(queueManager, queue))
}

// ProbeRoundTrip records one probe message's round trip.
func (m *Metrics) ProbeRoundTrip(ctx context.Context, queueManager, queue string, d time.Duration) {
	if m == nil {
		return
	}
	m.probeRoundTrip.Record(ctx, d.Seconds(), m.queue(queueManager, queue))
}

// ProbeSuccess records whether the last TEST on a queue succeeded.
func (m *Metrics) ProbeSuccess(ctx context.Context, queueManager, queue string, ok bool) {
	if m == nil {
		return
	}
	v := int64(0)
	if ok {
		v = 1
	}
	m.probeSuccess.Record(ctx, v, m.queue(queueManager, queue))
}

// ResponderReplied records a request a responder answered, and its time
// from getting the request to putting the reply.
func (m *Metrics) ResponderReplied(ctx context.Context, responder string, service time.Duration) {
	if m == nil {
		return
	}
	m.responderReqs.Add(ctx, 1, m.responder(responder, "replied"))
	m.responderTime.Record(ctx, service.Seconds(), m.responder(responder, ""))
}

// ResponderRequest records a request a responder took and did not answer:
// outcome dead_lettered or failed.
func (m *Metrics) ResponderRequest(ctx context.Context, responder, outcome string) {
	if m == nil {
		return
	}
	m.responderReqs.Add(ctx, 1, m.responder(responder, outcome))
}

// ResponderWorkers adds delta to a responder's workers serving now.
func (m *Metrics) ResponderWorkers(ctx context.Context, responder string, delta int) {
	if m == nil {
		return
	}
	m.responderConns.Add(ctx, int64(delta), m.responder(responder, ""))
}

func (m *Metrics) responder(responder, outcome string) metric.MeasurementOption {
	return m.responderAttrs.get([2]string{responder, outcome}, func() []attribute.KeyValue {
		attrs := []attribute.KeyValue{attribute.String("responder", responder)}
		if outcome != "" {
			attrs = append(attrs, attribute.String("outcome", outcome))
		}
		return attrs
	})
}

// queue is the attribute set of a queue's metrics.
func (m *Metrics) queue(queueManager, queue string) metric.MeasurementOption {
	return m.queueAttrs.get([2]string{queueManager, queue}, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("queue_manager", queueManager), attribute.String("queue", queue)}
	})
}

// Load is what the daemon holds at one moment.
type Load struct {
	CommandsExecuting int64 // commands admitted and running
	CommandsWaiting   int64 // commands waiting for room to run
	InFlightBytes     int64 // payload bytes executing commands hold
	PoolWaiting       int64 // commands waiting for a pooled MQ connection
}

// ObserveLoad publishes load's answers as gauges, read at each collection:
// mqprobe_commands_in_flight, mqprobe_commands_waiting,
// mqprobe_payload_in_flight_bytes and mqprobe_mq_pool_waiting.
func (t *Telemetry) ObserveLoad(load func() Load) error {
	meter := t.MeterProvider.Meter("github.com/mqprobe/mqprobe")
	gauges := []struct {
		name, unit, description string
		value                   func(Load) int64
	}{
		{"mqprobe.commands.in_flight", "", "Commands executing now.", func(l Load) int64 { return l.CommandsExecuting }},
		{"mqprobe.commands.waiting", "", "Commands waiting for room to execute (limits.maxConcurrentCommands, limits.maxInFlightBytes).",
			func(l Load) int64 { return l.CommandsWaiting }},
		{"mqprobe.payload.in_flight", "By", "Payload bytes executing commands hold (limits.maxInFlightBytes).", func(l Load) int64 { return l.InFlightBytes }},
		{"mqprobe.mq.pool.waiting", "", "Commands waiting for a pooled MQ connection (mq.pool.maxConnsPerTarget).", func(l Load) int64 { return l.PoolWaiting }},
	}
	observables := make([]metric.Observable, len(gauges))
	for i, g := range gauges {
		opts := []metric.Int64ObservableGaugeOption{metric.WithDescription(g.description)}
		if g.unit != "" {
			opts = append(opts, metric.WithUnit(g.unit))
		}
		gauge, err := meter.Int64ObservableGauge(g.name, opts...)
		if err != nil {
			return fmt.Errorf("telemetry gauge %s: %w", g.name, err)
		}
		observables[i] = gauge
	}
	_, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		l := load()
		for i, g := range gauges {
			o.ObserveInt64(observables[i].(metric.Int64Observable), g.value(l))
		}
		return nil
	}, observables...)
	if err != nil {
		return fmt.Errorf("telemetry load gauges: %w", err)
	}
	return nil
}
