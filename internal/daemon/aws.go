package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go/tracing"
	"github.com/aws/smithy-go/tracing/smithyoteltracing"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/secrets"
)

// awsConfig loads the standard AWS settings once (region, credential chain,
// AWS_ENDPOINT_URL_* endpoints).
func (d *Daemon) awsConfig(ctx context.Context) (aws.Config, error) {
	if d.aws != nil {
		return *d.aws, nil
	}
	cfg, err := awsbus.LoadConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("aws configuration: %w", err)
	}
	d.aws = &cfg
	return cfg, nil
}

// secretsResolver resolves the targets' secret references; secret:// ones
// go to AWS Secrets Manager.
func (d *Daemon) secretsResolver() *secrets.Resolver {
	cfg := d.cfg.Secrets
	cfg.Fetcher = &secretsManager{load: d.awsConfig, tracing: d.awsTracing()}
	return secrets.NewResolver(cfg)
}

// secretsManager loads the AWS settings on its first fetch, so a
// configuration without secret:// references needs none.
type secretsManager struct {
	load    func(context.Context) (aws.Config, error)
	tracing tracing.TracerProvider
	once    sync.Once
	client  *secrets.SecretsManager
	err     error
}

func (m *secretsManager) Fetch(ctx context.Context, name string) (secrets.Secret, error) {
	m.once.Do(func() {
		cfg, err := m.load(context.WithoutCancel(ctx))
		if err != nil {
			m.err = err
			return
		}
		m.client = secrets.NewSecretsManager(cfg, func(o *secretsmanager.Options) { o.TracerProvider = m.tracing })
	})
	if m.err != nil {
		return secrets.Secret{}, m.err
	}
	return m.client.Fetch(ctx, name)
}

// awsTracing makes every AWS SDK call a span, a child of the span in its
// context (the SDK's own OpenTelemetry adapter), when spans are recorded.
// Otherwise the SDK gets no tracer: its spans would carry nothing
// anywhere, and its adapter's span lineage races with the HTTP transport's
// dialling goroutine (smithy-go appends to a slice that goroutine reads).
func (d *Daemon) awsTracing() tracing.TracerProvider {
	if !d.tel.RecordsSpans() {
		return &tracing.NopTracerProvider{}
	}
	return smithyoteltracing.Adapt(d.tel.TracerProvider)
}

// Readiness checks the AWS resources report under: the command queue under
// intake (where commands come from), the results destination under router
// (where the router's outcomes go), the table under store.
const (
	readyIntake = "intake"
	readyRouter = "router"
	readyStore  = "store"
)

// resourceCheckTimeout bounds one round of resource checks; a probe waits
// for a round only as long as its own deadline allows.
const resourceCheckTimeout = 10 * time.Second

// awsResources checks, in aws mode, that the command queue, the results
// topic or queue and the DynamoDB table exist and are usable
// (awsbus.ResourceChecker). A round's answers hold for aws.checkInterval:
// readiness probes in between cost no AWS call.
type awsResources struct {
	cfg      *config.Config
	checker  *awsbus.ResourceChecker
	interval time.Duration
	log      *slog.Logger

	mu         sync.Mutex
	checked    time.Time        // when the last round ended; zero: none yet
	failures   map[string]error // by readiness check name
	refreshing chan struct{}    // closed when the round under way ends; nil when none is

	// rounds holds the round under way, which close cuts short (stop) and
	// waits for.
	rounds sync.WaitGroup
	stop   context.Context
	cancel context.CancelFunc
}

func newAWSResources(cfg *config.Config, awsCfg aws.Config, tp tracing.TracerProvider, log *slog.Logger) *awsResources {
	stop, cancel := context.WithCancel(context.Background())
	return &awsResources{cfg: cfg, checker: awsbus.NewResourceChecker(awsCfg, tp), interval: cfg.AWS.CheckInterval, log: log,
		stop: stop, cancel: cancel}
}

// close ends the round under way, if any, and waits for it.
func (r *awsResources) close() {
	r.cancel()
	r.rounds.Wait()
}

// resourceCheck is one AWS resource a daemon on the configuration uses.
type resourceCheck struct {
	ready    string // the readiness check it reports under
	key      string // the configuration key naming it
	resource string // what the key names
	check    func(ctx context.Context, key, resource string) error
}

func (c resourceCheck) run(ctx context.Context) error { return c.check(ctx, c.key, c.resource) }

// awsResourceChecks lists the checks of cfg's AWS resources in the order a
// command meets them; a resource cfg does not use is not listed.
func awsResourceChecks(cfg *config.Config, c *awsbus.ResourceChecker) []resourceCheck {
	checks := []resourceCheck{{readyIntake, "sqs.commandQueue", cfg.SQS.CommandQueue, c.CheckQueue}}
	if cfg.Results.TopicARN != "" {
		checks = append(checks, resourceCheck{readyRouter, "results.snsTopicArn", cfg.Results.TopicARN, c.CheckTopic})
	} else {
		checks = append(checks, resourceCheck{readyRouter, "results.sqsQueue", cfg.Results.QueueURL, c.CheckQueue})
	}
	if cfg.Idempotency.Deduplicates() && cfg.Idempotency.Store == config.StoreDynamoDB {
		checks = append(checks, resourceCheck{readyStore, "idempotency.dynamodb.table", cfg.Idempotency.DynamoDB.Table, c.CheckTable})
	}
	return checks
}

// checkAWSResources runs the checks of cfg's AWS resources at once and
// returns their answers by readiness check.
func checkAWSResources(ctx context.Context, cfg *config.Config, c *awsbus.ResourceChecker) map[string]error {
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out = map[string]error{}
	)
	for _, check := range awsResourceChecks(cfg, c) {
		wg.Go(func() {
			err := check.run(ctx)
			mu.Lock()
			out[check.ready] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// refresh starts a round of checks unless one is under way or the last
// one still holds, and returns what to wait on for the round under way
// (nil: none).
func (r *awsResources) refresh() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refreshing == nil && (r.checked.IsZero() || time.Since(r.checked) >= r.interval) {
		done := make(chan struct{})
		r.refreshing = done
		r.rounds.Go(func() {
			defer close(done)
			ctx, cancel := context.WithTimeout(r.stop, resourceCheckTimeout)
			defer cancel()
			failures := checkAWSResources(ctx, r.cfg, r.checker)
			if r.stop.Err() != nil { // cut short by close: the answers say nothing of the resources
				r.mu.Lock()
				r.refreshing = nil
				r.mu.Unlock()
				return
			}
			r.record(failures)
		})
	}
	return r.refreshing
}

// record keeps a round's answers and logs each check whose answer changed.
func (r *awsResources) record(failures map[string]error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(failures)) {
		was, now := r.failures[name], failures[name]
		switch {
		case now != nil && (was == nil || was.Error() != now.Error()):
			r.log.Error("aws resource not usable: not ready until it is", "check", name, "error", now.Error())
		case now == nil && was != nil:
			r.log.Info("aws resource usable again", "check", name)
		}
	}
	r.failures, r.checked, r.refreshing = failures, time.Now(), nil
}

// checkNow runs a round and waits for it (start-up).
func (r *awsResources) checkNow(ctx context.Context) {
	if wait := r.refresh(); wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
		}
	}
}

// ready is the readiness check of the resources reporting under name: the
// last round's answer, after a new round when that one no longer holds
// (waited for within ctx; past it, the last answer stands).
func (r *awsResources) ready(name string) httpapi.Check {
	return func(ctx context.Context) error {
		r.checkNow(ctx)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.checked.IsZero() {
			return errors.New("aws resources not checked yet")
		}
		return r.failures[name]
	}
}

// answeredFailure is the first failure of the named readiness checks' AWS
// resources that AWS answered (missing, denied): an endpoint that does not
// answer at all is left to the SDK's and the publisher's retries.
func (r *awsResources) answeredFailure(names ...string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range names {
		if err := r.failures[name]; answered(err) {
			return err
		}
	}
	return nil
}

// answered tells whether err is a resource check that AWS answered.
func answered(err error) bool {
	var resErr *awsbus.ResourceError
	return errors.As(err, &resErr) && resErr.Answered
}

// waitUsable waits while AWS answers that a resource of the named readiness
// checks is unusable, re-checking every aws.checkInterval.
func (r *awsResources) waitUsable(ctx context.Context, names ...string) error {
	for {
		r.refresh()
		if r.answeredFailure(names...) == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(r.interval, time.Second)):
		}
	}
}

// waitStartable holds the router's start while the command queue or the
// results destination is unusable: the daemon starts not ready rather than
// exiting, and takes no command whose result it could not deliver.
func (r *awsResources) waitStartable(ctx context.Context) error {
	return r.waitUsable(ctx, readyIntake, readyRouter)
}

// checkResourcesAtStart checks, in aws mode, the resources the daemon will
// use before it takes in any command, and logs each one it cannot use. A
// resource that fails does not stop the start: the daemon starts not
// ready, naming it, and becomes ready when the resource is fixed (see
// docs/operations.md, "aws mode checks what it uses").
func (d *Daemon) checkResourcesAtStart(ctx context.Context) error {
	if d.cfg.Mode != config.ModeAWS {
		return nil
	}
	awsCfg, err := d.awsConfig(ctx)
	if err != nil {
		return err
	}
	d.resources = newAWSResources(d.cfg, awsCfg, d.awsTracing(), d.log)
	d.resources.checkNow(ctx)
	return nil
}

// waitForRoom is the command subscriber's hold before each receive: room
// under the admission limits and, in aws mode, a results destination that
// takes results.
func (d *Daemon) waitForRoom(ctx context.Context) error {
	if err := d.limiter.WaitForRoom(ctx); err != nil {
		return err
	}
	if d.resources == nil {
		return nil
	}
	// Only the results destination: receives from a missing queue fail
	// and are retried by the subscriber anyway.
	return d.resources.waitUsable(ctx, readyRouter)
}

// withResourceChecks adds, in aws mode, the AWS resource checks to the
// readiness checks of the same name, first: a missing or forbidden
// resource is the cause to name.
func (d *Daemon) withResourceChecks(checks map[string]httpapi.Check) map[string]httpapi.Check {
	if d.resources == nil {
		return checks
	}
	for _, name := range []string{readyIntake, readyRouter, readyStore} {
		checks[name] = allOf(d.resources.ready(name), checks[name])
	}
	return checks
}

// allOf fails with the first of checks that fails.
func allOf(checks ...httpapi.Check) httpapi.Check {
	return func(ctx context.Context) error {
		for _, c := range checks {
			if err := c(ctx); err != nil {
				return err
			}
		}
		return nil
	}
}
