// Package daemon assembles a running mqprobe from its configuration: the
// idempotency store and engine, the MQ backend and pool, the executor, the
// command bus and router, and the HTTP API; and takes it down gracefully.
package daemon

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/admission"
	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/console"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/memory"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/telemetry"
	"github.com/mqprobe/mqprobe/router"
)

// Options are what the caller supplies beyond the configuration.
type Options struct {
	Version string
	Log     *slog.Logger
	// Backend replaces the configured MQ backend (tests inject faults).
	Backend mq.Backend
	// Store replaces the configured idempotency store; the daemon closes it.
	Store idempotency.Store
	// WrapPublisher, when set, wraps the results publisher (tests make it fail).
	WrapPublisher func(result.Publisher) result.Publisher
	// SpanProcessors receive every span as well (tests record them).
	SpanProcessors []sdktrace.SpanProcessor
}

// Daemon is an assembled mqprobe.
type Daemon struct {
	cfg      *config.Config
	log      *slog.Logger
	store    idempotency.Store
	engine   *idempotency.Engine
	backend  mq.Backend
	pool     *mq.Pool
	limiter  *admission.Limiter
	exec     *executor.Executor
	bus      *router.Transport // where commands come from and results go: the mode's transport
	aws      *aws.Config       // loaded on first use
	router   *router.Router
	recent   *result.Recent
	tel      *telemetry.Telemetry
	server   *http.Server
	listener net.Listener

	work       context.Context // command work; cancelled at the drain deadline
	cancelWork context.CancelCauseFunc
	// background holds the goroutines Run starts on work besides the
	// server and the router (expired-record cleanup): the store closes only
	// after they end.
	background sync.WaitGroup
	draining   atomic.Bool
	// serving holds Run's goroutines: the HTTP server and the router.
	serving sync.WaitGroup

	// Run and Close agree, under mu, on who releases what New built: Run
	// when it returns, else Close. released is closed once that is done.
	mu       sync.Mutex
	ran      bool
	closing  bool
	stopRun  context.CancelFunc // ends Run as the end of its context does
	released chan struct{}

	// resources checks the AWS resources aws mode uses (nil otherwise).
	resources *awsResources
}

// ErrDrainDeadline cancels work still running when the drain deadline passes.
var ErrDrainDeadline = errors.New("shutdown: drain deadline passed")

// ErrClosed is what Run returns when the daemon was closed before, or has
// run already: a daemon runs once.
var ErrClosed = errors.New("daemon: closed or run already")

// New builds a daemon and binds its HTTP listener; Run starts it, and Close
// (or the end of Run) releases all it holds.
func New(ctx context.Context, cfg *config.Config, opts Options) (d *Daemon, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	built := &Daemon{cfg: cfg, log: log, released: make(chan struct{})}
	d = built
	d.work, d.cancelWork = context.WithCancelCause(context.Background())
	defer func() {
		if err != nil {
			built.closeResources()
		}
	}()

	if d.tel, err = telemetry.Setup(ctx, telemetry.Config{ServiceVersion: opts.Version, InstanceID: cfg.InstanceID,
		SpanProcessors: opts.SpanProcessors}); err != nil {
		return nil, err
	}
	d.store = opts.Store
	if d.store == nil {
		if d.store, err = openStore(ctx, cfg, d.awsConfig, d.awsTracing()); err != nil {
			return nil, err
		}
	}
	if d.store != nil {
		d.store = telemetry.TracedStore(d.store, storeName(cfg))
	}
	if d.engine, err = idempotency.New(d.store, cfg.Idempotency.Config, log,
		idempotency.WithHolder(cfg.InstanceID), idempotency.WithCheckpointReader(readCheckpoint)); err != nil {
		return nil, err
	}
	d.backend = opts.Backend
	if d.backend == nil {
		if d.backend, err = openBackend(cfg); err != nil {
			return nil, err
		}
	}
	if d.pool, err = mq.NewPool(d.backend, cfg.MQ.Pool); err != nil {
		return nil, err
	}
	if d.limiter, err = admission.New(cfg.Limits.Config); err != nil {
		return nil, err
	}
	decoder, err := command.NewDecoder(cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}

	if err := d.checkResourcesAtStart(ctx); err != nil {
		return nil, err
	}
	sqs, results := cfg.SQS, cfg.Results.PublisherConfig
	sqs.TracerProvider, sqs.WaitForRoom = d.awsTracing(), d.waitForRoom
	results.TracerProvider = d.awsTracing()
	// Acks of commands finishing during the drain must still delete.
	sqs.CloseTimeout = cfg.HTTP.ShutdownTimeout + 10*time.Second
	if d.bus, err = router.NewTransport(ctx, router.TransportConfig{Mode: cfg.Mode, AWS: d.awsConfig, Logger: watermillLogger(log),
		SQS: sqs, MaxQueued: cfg.Limits.CommandQueue,
		Results: results,
	}); err != nil {
		return nil, err
	}
	d.recent = cfg.Results.NewRecent()
	var publisher result.Publisher = result.Multi{d.recent, d.bus.Results}
	if opts.WrapPublisher != nil {
		publisher = opts.WrapPublisher(publisher)
	}
	capture := cfg.Consume
	capture.RecordBytes = d.engine.MaxRecordBytes()
	ops, err := handlers.New(handlers.Config{Capture: capture, Tests: cfg.Tests})
	if err != nil {
		return nil, err
	}
	secretsResolver := d.secretsResolver()
	tokens, err := tenantTokens(ctx, cfg.HTTP, secretsResolver)
	if err != nil {
		return nil, err
	}
	resolver := targets.NewResolver(cfg.Targets.Config(secretsResolver, cfg.MQ.Backend == config.BackendEmbedded))
	if d.exec, err = executor.New(executor.Config{
		Source:       "mqprobe/" + cfg.InstanceID,
		ReplayConfig: cfg.Results.ReplayConfig, RejectedConfig: cfg.Results.RejectedConfig, RetryConfig: cfg.Bus.RetryConfig,
	}, executor.Deps{Decoder: decoder, Engine: d.engine, Handlers: ops.Handlers, Targets: resolver, Admit: ops.Admit,
		Admission: d.limiter, Footprint: ops.Footprint, Conns: d.pool, Publisher: publisher, Log: log,
		Tracer: d.tel.Tracer("github.com/mqprobe/mqprobe/internal/executor"), Metrics: d.tel.Metrics}); err != nil {
		return nil, err
	}
	if d.router, err = router.New(router.Config{CloseTimeout: cfg.HTTP.ShutdownTimeout, WorkContext: d.work,
		DelayRedelivery: d.bus.DelayRedelivery, Settled: d.bus.Settled, Log: log}, d.bus.Commands, d.exec, watermillLogger(log)); err != nil {
		return nil, err
	}
	openapi, err := httpapi.OpenAPI(opts.Version)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	api := httpapi.Handler(httpapi.Config{
		Executor: d.exec, Recent: d.recent, Submit: d.bus.Submit, OpenAPI: openapi,
		Settings: cfg.HTTP, ResultsSettings: cfg.Results.ResultsSettings,
		Load: d.load, WorkContext: d.work,
		Metrics: d.tel.MetricsHandler(), TenantMetrics: d.tel.TenantMetricsHandler, TracerProvider: d.tel.TracerProvider, MeterProvider: d.tel.MeterProvider,
		Queues: &httpapi.QueueViews{Targets: resolver, Conns: d.pool},
		Tests:  ops.Tests, Stored: d.engine, Records: d.engine, InFlight: d.exec.InFlight(), Credentials: tokens,
		Ready: d.withResourceChecks(map[string]httpapi.Check{"store": d.storeReady, "router": d.routerReady, "intake": d.intakeReady, "admission": d.admissionReady}),
		Status: httpapi.StatusInfo{Version: opts.Version, Mode: cfg.Mode, Instance: cfg.InstanceID, Started: time.Now(),
			Backends:      map[string]string{"mq": cfg.MQ.Backend, "idempotencyStore": storeName(cfg), "bus": d.bus.Name, "results": d.bus.ResultsName},
			QueueManagers: statusQueueManagers(cfg), Profiles: statusProfiles(cfg)},
		Console: consoleHandler(cfg),
	})
	if err := d.tel.ObserveLoad(d.telemetryLoad); err != nil {
		return nil, err
	}
	// The API sets each reply's write deadline itself (http.writeTimeout
	// counts from when the reply is ready, not from the request).
	d.server = &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: cfg.HTTP.ReadTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	if d.listener, err = net.Listen("tcp", cfg.HTTP.Addr); err != nil {
		return nil, fmt.Errorf("http.addr %s: %w", cfg.HTTP.Addr, err)
	}
	if cfg.HTTP.TLS.Enabled() {
		tlsCfg, err := serverTLS(cfg.HTTP.TLS)
		if err != nil {
			d.listener.Close()
			return nil, err
		}
		d.listener = tls.NewListener(d.listener, tlsCfg)
	}
	return d, nil
}

// consoleHandler is the web console, or nil when console.enabled is false.
func consoleHandler(cfg *config.Config) http.Handler {
	if !cfg.Console.Enabled {
		return nil
	}
	return console.Handler()
}

// statusQueueManagers lists the embedded backend's queue managers for GET
// /status; the ibmmq backend knows none beyond its profiles.
func statusQueueManagers(cfg *config.Config) []httpapi.QueueManagerInfo {
	if cfg.MQ.Backend != config.BackendEmbedded {
		return nil
	}
	var qms []httpapi.QueueManagerInfo
	for _, qm := range cfg.MQ.Embedded.QueueManagers {
		qms = append(qms, httpapi.QueueManagerInfo{Name: qm.Name, Queues: qm.Queues.Names()})
	}
	return qms
}

// statusProfiles lists targets.profiles for GET /status, by name.
func statusProfiles(cfg *config.Config) []httpapi.ProfileInfo {
	var profiles []httpapi.ProfileInfo
	for _, name := range slices.Sorted(maps.Keys(cfg.Targets.Profiles)) {
		p := cfg.Targets.Profiles[name]
		profiles = append(profiles, httpapi.ProfileInfo{Name: name, QueueManager: p.QueueManager, Queue: p.Queue})
	}
	return profiles
}

// serverTLS is the API's TLS configuration: TLS 1.2 or later, and with a
// client CA, client certificates it signed are required (mTLS).
func serverTLS(c httpapi.TLSSettings) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("http.tls.certFile/keyFile: %w", err)
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if c.ClientCAFile != "" {
		pem, err := os.ReadFile(c.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("http.tls.clientCAFile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("http.tls.clientCAFile %s: no PEM certificate in it", c.ClientCAFile)
		}
		tlsCfg.ClientCAs, tlsCfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return tlsCfg, nil
}

// Addr is the address the HTTP API listens on.
func (d *Daemon) Addr() string { return d.listener.Addr().String() }

// Run serves until ctx ends, then drains: intake stops, in-flight commands
// get http.shutdownTimeout to finish, and whatever is still running is
// backed out and its claim released for another instance to resume.
// Close ends it as the end of ctx does. It returns ErrClosed, at once, when
// the daemon has been closed or has run before.
func (d *Daemon) Run(ctx context.Context) error {
	d.mu.Lock()
	if d.ran || d.closing {
		d.mu.Unlock()
		return ErrClosed
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	d.ran, d.stopRun = true, stop
	d.mu.Unlock()
	// Close, waiting on released, returns when Run does.
	defer close(d.released)

	routerErr := make(chan error, 1)
	d.serving.Go(func() {
		if d.resources != nil && d.resources.waitStartable(ctx) != nil {
			return
		}
		routerErr <- d.router.Run(context.WithoutCancel(ctx))
	})
	serveErr := make(chan error, 1)
	d.serving.Go(func() { serveErr <- d.server.Serve(d.listener) })
	// DynamoDB deletes expired records itself (TTL on ttl); a scan of the
	// whole table every interval would only cost.
	if d.store != nil && d.cfg.Idempotency.Deduplicates() && d.cfg.Idempotency.CleanupInterval > 0 &&
		d.cfg.Idempotency.Store != config.StoreDynamoDB {
		d.background.Go(func() { d.engine.RunCleanup(d.work, d.cfg.Idempotency.CleanupInterval) })
	}
	d.log.Info("mqprobe running", "addr", d.Addr(), "mode", d.cfg.Mode, "mq", d.cfg.MQ.Backend, "store", storeName(d.cfg))

	var runErr error
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		runErr = fmt.Errorf("http server: %w", err)
	case err := <-routerErr:
		runErr = fmt.Errorf("router: %w", err)
	}
	stop() // a router still waiting for its AWS resources gives up
	d.shutdown()
	return runErr
}

// Close stops the daemon and releases everything New built and started:
// the listener, the command bus, the MQ pool, the idempotency store, a
// round of AWS resource checks under way and the telemetry exporters, whose
// goroutines have all ended when it returns.
// While Run serves, Close drains the daemon as the end of Run's context
// does and returns once Run has; after Run has returned there is nothing
// left to release. Only the first call does anything, and every call
// returns once it is done.
func (d *Daemon) Close() {
	d.mu.Lock()
	first, ran := !d.closing, d.ran
	d.closing = true
	d.mu.Unlock()
	switch {
	case ran:
		d.stopRun()
	case first:
		d.cancelWork(context.Canceled)
		d.closeResources()
		close(d.released)
	}
	<-d.released
}

func (d *Daemon) shutdown() {
	d.draining.Store(true)
	d.bus.StopIntake()
	timeout := d.cfg.HTTP.ShutdownTimeout
	d.log.Info("draining: intake stopped, waiting for in-flight commands", "deadline", timeout.String())
	drainCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	intake := make(chan struct{})
	go func() {
		defer close(intake)
		routerClosed := make(chan struct{})
		go func() {
			if err := d.router.Close(); err != nil {
				d.log.Warn("router close", "error", err)
			}
			close(routerClosed)
		}()
		if err := d.server.Shutdown(drainCtx); err != nil {
			d.log.Warn("http drain incomplete", "error", err)
		}
		<-routerClosed
	}()
	<-intake
	if err := d.exec.Wait(drainCtx); err != nil {
		d.log.Warn("drain deadline passed: backing out in-flight commands and releasing their claims")
		d.cancelWork(ErrDrainDeadline)
		// Cancelled handlers back out and release their claims: the store
		// must stay open until they have.
		waitCtx, cancelWait := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancelWait()
		if err := d.exec.Wait(waitCtx); err != nil {
			d.log.Error("in-flight commands did not stop after cancellation; their claims free when their leases expire")
		}
	}
	d.recordPendingOutcomes(drainCtx)
	// A command handed back above is settled (its redelivery delay set on
	// SQS) by the subscriber; wait for that before the process goes.
	if err := d.bus.Commands.Close(); err != nil {
		d.log.Warn("command subscriber close", "error", err)
	}
	d.cancelWork(context.Canceled)
	d.background.Wait()
	d.serving.Wait()
	d.closeResources()
	d.log.Info("mqprobe stopped")
}

// recordPendingOutcomes waits, until the drain's deadline, for the known
// outcomes the store has not recorded yet, then abandons the rest, each
// logged: its command runs again when retried after its lease and grace.
func (d *Daemon) recordPendingOutcomes(drainCtx context.Context) {
	pending := d.exec.PendingOutcomes()
	if len(pending) == 0 {
		return
	}
	d.log.Info("draining: waiting for the idempotency store to record known outcomes", "pending", len(pending))
	left := d.exec.WaitPending(drainCtx)
	for _, o := range left {
		d.log.Warn("drain deadline passed: abandoning an outcome the idempotency store has not recorded; a retry of the command runs it again",
			"operation", o.OperationType, "tenant", o.Tenant, "key", o.Key, "attempt", o.Attempt, "status", o.Status,
			"pending_since", o.Since.Format(time.RFC3339Nano), "error", o.Cause)
	}
	if len(left) > 0 {
		d.exec.AbandonPending()
		// Their writes end at once with the cancellation; wait for that
		// before the store closes.
		waitCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		d.exec.WaitPending(waitCtx)
	}
}

func (d *Daemon) closeResources() {
	if d.resources != nil {
		d.resources.close()
	}
	if d.listener != nil {
		d.listener.Close()
	}
	if d.bus != nil {
		d.bus.Close()
	}
	if d.pool != nil {
		d.pool.Close()
	}
	if d.store != nil {
		d.store.Close()
	}
	if d.tel != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := d.tel.Shutdown(ctx); err != nil {
			d.log.Warn("telemetry flush", "error", err)
		}
	}
}

func (d *Daemon) storeReady(ctx context.Context) error {
	if err := d.outcomesRecorded(); err != nil {
		return err
	}
	_, _, err := d.engine.Get(ctx, "HEALTH", "", "readiness-probe")
	return err
}

// outcomesRecorded fails while a command's known outcome waits for the
// store: the store is failing this instance even if a read gets through.
func (d *Daemon) outcomesRecorded() error {
	pending := d.exec.PendingOutcomes()
	if len(pending) == 0 {
		return nil
	}
	oldest := pending[0]
	return fmt.Errorf("%d command outcome(s) known but not yet recorded, the oldest (%s %s) since %s: %s",
		len(pending), oldest.OperationType, oldest.Key, oldest.Since.Format(time.RFC3339), oldest.Cause)
}

func (d *Daemon) routerReady(context.Context) error {
	if !d.router.IsRunning() {
		return errors.New("router not running")
	}
	return nil
}

// admissionReady fails while a new command would have to wait for room, so
// a load balancer sends the next request to an instance with some.
func (d *Daemon) admissionReady(context.Context) error {
	return d.limiter.Usage().Saturated()
}

func (d *Daemon) load() httpapi.Load {
	u := d.limiter.Usage()
	l := httpapi.Load{CommandsExecuting: u.Commands, MaxConcurrentCommands: u.MaxCommands, CommandsWaiting: u.Waiting,
		InFlightBytes: u.Bytes, MaxInFlightBytes: u.MaxBytes, MQPoolWaiting: d.pool.Waiting(), CommandsQueued: d.bus.Queued()}
	if err := u.Saturated(); err != nil {
		l.Saturated = err.Error()
	}
	return l
}

func (d *Daemon) telemetryLoad() telemetry.Load {
	u := d.limiter.Usage()
	return telemetry.Load{CommandsExecuting: u.Commands, CommandsWaiting: u.Waiting, InFlightBytes: u.Bytes, PoolWaiting: d.pool.Waiting()}
}

func (d *Daemon) intakeReady(context.Context) error {
	if d.draining.Load() {
		return errors.New("draining")
	}
	return nil
}

// watermillLogger demotes watermill's per-message info lines to debug: the
// executor's audit line already says what happened to each command.
func watermillLogger(log *slog.Logger) watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(log, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
}

func storeName(cfg *config.Config) string {
	if !cfg.Idempotency.Deduplicates() {
		return "disabled"
	}
	return cfg.Idempotency.Store
}

func openStore(ctx context.Context, cfg *config.Config, awsConfig func(context.Context) (aws.Config, error), tp tracing.TracerProvider) (idempotency.Store, error) {
	if !cfg.Idempotency.Deduplicates() {
		return nil, nil
	}
	switch cfg.Idempotency.Store {
	case config.StoreMemory:
		return memory.New(), nil
	case config.StoreSQLite:
		return cfg.Idempotency.SQLite.Open(ctx)
	case config.StorePostgres:
		return cfg.Idempotency.Postgres.Open(ctx)
	case config.StoreDynamoDB:
		awsCfg, err := awsConfig(ctx)
		if err != nil {
			return nil, err
		}
		client := awsdynamodb.NewFromConfig(awsCfg, func(o *awsdynamodb.Options) {
			if tp != nil {
				o.TracerProvider = tp
			}
		})
		return dynamodb.New(client, cfg.Idempotency.DynamoDB.Table), nil
	}
	return nil, fmt.Errorf("idempotency.store: %q is not available in this build", cfg.Idempotency.Store)
}

// backendOpeners maps mq.backend values to constructors; the ibmmq build
// tag adds "ibmmq".
var backendOpeners = map[string]func(*config.Config) (mq.Backend, error){
	config.BackendEmbedded: func(cfg *config.Config) (mq.Backend, error) { return embedded.New(cfg.MQ.Embedded) },
}

func openBackend(cfg *config.Config) (mq.Backend, error) {
	open, ok := backendOpeners[cfg.MQ.Backend]
	if !ok {
		return nil, fmt.Errorf("mq.backend: %q is not available in this build (build with -tags ibmmq for the IBM MQ client)", cfg.MQ.Backend)
	}
	b, err := open(cfg)
	if err != nil {
		return nil, fmt.Errorf("mq.backend %s: %w", cfg.MQ.Backend, err)
	}
	return b, nil
}

// tenantTokens resolves the named tenants' tokens (http.tokens) once. A
// token that is empty, or that another tenant or http.authToken also has,
// stops the start: it would not say who calls.
func tenantTokens(ctx context.Context, h httpapi.Settings, resolver *secrets.Resolver) ([]httpapi.Credential, error) {
	owner := map[string]string{}
	if h.AuthToken != "" {
		owner[h.AuthToken] = "http.authToken"
	}
	var creds []httpapi.Credential
	for _, name := range slices.Sorted(maps.Keys(h.Tokens)) {
		tc, key := h.Tokens[name], "http.tokens."+name+".tokenRef"
		token, err := resolver.Password(ctx, tc.TokenRef)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if token == "" {
			return nil, fmt.Errorf("%s: %q resolves to an empty token", key, tc.TokenRef)
		}
		if other, dup := owner[token]; dup {
			return nil, fmt.Errorf("%s: resolves to the same token as %s: each tenant needs its own token", key, other)
		}
		owner[token] = key
		creds = append(creds, httpapi.Credential{Token: token, Tenant: tc.Tenant(name)})
	}
	return creds, nil
}

// InitStore creates the configured store's schema (idempotently) and says
// what it did.
func InitStore(ctx context.Context, cfg *config.Config) (string, error) {
	if !cfg.Idempotency.Deduplicates() {
		return "idempotency is disabled: no store to initialise", nil
	}
	s, err := openStore(ctx, cfg, func(ctx context.Context) (aws.Config, error) { return awsbus.LoadConfig(ctx) }, nil)
	if err != nil {
		return "", err
	}
	defer s.Close()
	switch cfg.Idempotency.Store {
	case config.StoreDynamoDB:
		info, err := s.(*dynamodb.Store).EnsureTable(ctx)
		if err != nil {
			return "", fmt.Errorf("idempotency.dynamodb.table %s: %w", cfg.Idempotency.DynamoDB.Table, err)
		}
		created := "exists"
		if info.Created {
			created = "created"
		}
		msg := fmt.Sprintf("dynamodb table %s %s (hash key pk, PAY_PER_REQUEST); TTL on ttl: %s", cfg.Idempotency.DynamoDB.Table, created, info.TTL)
		for _, ix := range []string{dynamodb.TargetIndex, dynamodb.TenantIndex} {
			msg += fmt.Sprintf("; index %s: %s", ix, info.Indexes[ix])
		}
		return msg, nil
	case config.StoreSQLite:
		return fmt.Sprintf("sqlite store ready at %s (schema version %d)", cfg.Idempotency.SQLite.Path, sqlstore.SchemaVersion), nil
	case config.StorePostgres:
		return fmt.Sprintf("postgres store ready: table idempotency_record (schema version %d)", sqlstore.SchemaVersion), nil
	}
	return cfg.Idempotency.Store + " store ready", nil
}
