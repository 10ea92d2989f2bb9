// Package httpapi serves the HTTP API: synchronous commands
// through the same executor as the bus, results, health, status and the
// OpenAPI document. It owns the http section of the configuration
// (Settings) and results.maxReplyBytes (ResultsSettings).
package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/telemetry"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Executor runs commands; *executor.Executor is one.
type Executor interface {
	Execute(ctx context.Context, in command.Input, opts ...executor.Option) executor.Outcome
	Counts() map[string]int64
	// LastHourCounts is tenant's ("" for the implicit one) outcomes of
	// the last hour.
	LastHourCounts(tenant string) map[string]int64
}

// Check reports whether a dependency is usable; nil means ready.
type Check func(ctx context.Context) error

// Submitter puts a raw command on the bus and returns its message id. An
// error with a RetryAfter() time.Duration method means no room now: the
// caller gets 429 with that Retry-After.
type Submitter func(ctx context.Context, body []byte, meta map[string]string) (string, error)

// DefaultInProgressWait is Config.InProgressWait's default.
const DefaultInProgressWait = 10 * time.Second

// Config is what the API needs from the daemon.
type Config struct {
	Executor Executor
	// Recent answers GET /results; nil disables it (aws mode).
	Recent *result.Recent
	// Submit answers POST /commands; nil disables it.
	Submit Submitter
	// Ready lists the checks GET /health/ready runs, by name.
	Ready map[string]Check
	// Status describes the daemon in GET /status.
	Status StatusInfo
	// OpenAPI is the document served at /openapi.json.
	OpenAPI []byte
	// Settings is the http section: Handler applies maxBodyBytes,
	// inProgressWait (zero means DefaultInProgressWait), writeTimeout,
	// authToken and allowedHosts; the rest is the daemon's listener's.
	Settings
	// ResultsSettings bound the events one GET /results reply carries;
	// a zero MaxReplyBytes means 4 MiB.
	ResultsSettings
	// Load reports what the daemon holds now, for GET /status; nil omits it.
	Load func() Load
	// WorkContext carries command work; cancelled at the drain deadline.
	WorkContext context.Context
	// Metrics serves GET /metrics to operators (the implicit tenant and
	// tokens marked operator): every series. nil disables the route.
	Metrics http.Handler
	// TenantMetrics serves GET /metrics to any other named tenant: only the
	// series labelled with its name. nil refuses them the route (403).
	TenantMetrics func(tenant string) http.Handler
	// Tests and Stored serve /tests; nil Tests disables them.
	Tests  TestService
	Stored StoredResults
	// Records serves /idempotency and GET /commands/{operationType}/{key},
	// and tells a duplicate when to ask again (InProgressWait); nil
	// disables them, and a duplicate is answered 409 at once. InFlight is the commands this instance executes,
	// for that route and GET /status; nil lists none.
	Records  Records
	InFlight *inflight.Registry
	// Queues serves the read-only queue views (GET /queues…); nil
	// disables them.
	Queues *QueueViews
	// Credentials are the named tenants' bearer tokens. When they or
	// Settings.AuthToken (the implicit tenant's) are set, every request but
	// the health probes must carry one. Settings.AllowedHosts are Host values
	// served besides localhost, loopback addresses and the address a request
	// arrived at: "name" (any port) or "name:port". The Host is checked
	// whenever they are set, and always on an API without bearer tokens,
	// which a page of another site could otherwise reach through DNS
	// rebinding.
	Credentials []Credential
	// Console, when set, serves GET / and GET /ui/… without credentials:
	// the web console's pages, which hold no data and read the API with
	// the caller's own.
	Console http.Handler
	// TracerProvider and MeterProvider instrument requests; nil means none.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// StatusInfo is the static part of GET /status.
type StatusInfo struct {
	Version  string            `json:"version"`
	Mode     string            `json:"mode"`
	Instance string            `json:"instance"`
	Backends map[string]string `json:"backends"`
	Started  time.Time         `json:"startedAt"`
	// QueueManagers are the embedded backend's queue managers, shown to
	// the callers that may name inline targets.
	QueueManagers []QueueManagerInfo
	// Profiles are the targets.profiles, each shown to the callers that
	// may use it.
	Profiles []ProfileInfo
}

// QueueManagerInfo is an embedded queue manager and its queues.
type QueueManagerInfo struct {
	Name   string   `json:"name"`
	Queues []string `json:"queues"`
}

// allowedMethods are the methods mux has a route for at r's path. The
// catch-all "/" route that answers 404 would otherwise hide ServeMux's
// own 405 for a known path asked with the wrong method.
func allowedMethods(mux *http.ServeMux, r *http.Request) []string {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host, Header: http.Header{}}
		if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	return allow
}

// ProfileInfo is a target profile: its name, and what it points at.
type ProfileInfo struct {
	Name         string `json:"name"`
	QueueManager string `json:"queueManager"`
	Queue        string `json:"queue"`
}

// Handler returns the API's routes.
func Handler(cfg Config) http.Handler {
	if cfg.WorkContext == nil {
		cfg.WorkContext = context.Background()
	}
	if cfg.InProgressWait == 0 {
		cfg.InProgressWait = DefaultInProgressWait
	}
	a := &api{cfg: cfg}
	mux := http.NewServeMux()
	for _, r := range commandRoutes {
		mux.HandleFunc("POST "+r.path, a.command(r.op))
	}
	mux.HandleFunc("POST /commands", a.replyWithin(a.submit))
	if cfg.Records != nil {
		mux.HandleFunc("GET /commands/{operationType}/{key}", a.replyWithin(a.commandState))
	}
	if cfg.Tests != nil {
		mux.HandleFunc("POST /tests", a.startTest)
		mux.HandleFunc("GET /tests/{id}", a.replyWithin(a.test))
		mux.HandleFunc("POST /tests/{id}/stop", a.replyWithin(a.stopTest))
	}
	a.registerRecords(mux)
	a.registerQueues(mux)
	mux.HandleFunc("GET /results", a.replyWithin(a.results))
	mux.HandleFunc("GET /health/live", a.replyWithin(a.live))
	mux.HandleFunc("GET /health/ready", a.replyWithin(a.ready))
	mux.HandleFunc("GET /status", a.replyWithin(a.status))
	mux.HandleFunc("GET /openapi.json", a.replyWithin(a.openapi))
	if cfg.Metrics != nil {
		mux.HandleFunc("GET /metrics", a.replyWithin(a.metrics))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := allowedMethods(mux, r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeProblem(w, r, http.StatusMethodNotAllowed, problem{
				Detail: r.URL.Path + " takes " + strings.Join(allow, ", ") + ", not " + r.Method})
			return
		}
		writeProblem(w, r, http.StatusNotFound, problem{Title: "Not Found", Detail: "no route " + r.Method + " " + r.URL.Path})
	})
	var h http.Handler = mux
	bearer := cfg.AuthToken != "" || len(cfg.Credentials) > 0
	if creds := cfg.Credentials; bearer {
		if cfg.AuthToken != "" {
			creds = append([]Credential{{Token: cfg.AuthToken}}, creds...)
		}
		h = requireBearer(creds, mux)
	}
	if cfg.Console != nil {
		withConsole := http.NewServeMux()
		withConsole.Handle("GET /{$}", cfg.Console)
		withConsole.Handle("GET /ui/", cfg.Console)
		withConsole.Handle("/", h)
		h = withConsole
	}
	// Browsers first: a page of another origin changes nothing, and one
	// that rebinds its name to us is not served at all.
	h = refuseCrossOrigin(h)
	if !bearer || len(cfg.AllowedHosts) > 0 {
		h = newHostPolicy(cfg.AllowedHosts).refuseForeignHosts(h)
	}
	if cfg.TracerProvider == nil {
		return h
	}
	// Requests become server spans continuing the caller's traceparent;
	// probes and scrapes are left out.
	return otelhttp.NewHandler(h, "http",
		otelhttp.WithTracerProvider(cfg.TracerProvider), otelhttp.WithMeterProvider(cfg.MeterProvider),
		otelhttp.WithPropagators(telemetry.Propagator()),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }),
		otelhttp.WithFilter(func(r *http.Request) bool {
			return r.Method == http.MethodPost || r.URL.Path == "/results" || strings.HasPrefix(r.URL.Path, "/tests/") ||
				strings.HasPrefix(r.URL.Path, "/idempotency")
		}))
}

type api struct {
	cfg Config
}

// codeNotOperator refuses /metrics to a tenant that may see only its own
// series when the daemon cannot filter them.
const codeNotOperator = "NOT_OPERATOR"

// metrics serves GET /metrics: every series to an operator, only its own
// (labelled tenant="<name>") to any other tenant, which must not learn
// what the others run.
func (a *api) metrics(w http.ResponseWriter, r *http.Request) {
	t := tenant.FromContext(r.Context())
	switch {
	case !t.Named() || t.Operator:
		a.cfg.Metrics.ServeHTTP(w, r)
	case a.cfg.TenantMetrics != nil:
		a.cfg.TenantMetrics(t.Name).ServeHTTP(w, r)
	default:
		writeProblem(w, r, http.StatusForbidden, problem{Code: codeNotOperator,
			Detail: fmt.Sprintf("tenant %q may not read /metrics: it is not an operator (http.tokens.%s.operator)", t.Name, t.Name)})
	}
}

// replyWithin gives a route's reply WriteTimeout from now: these routes
// answer at once, so the whole exchange is bounded.
func (a *api) replyWithin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a.startReply(w)
		h(w, r)
	}
}

// startReply starts the WriteTimeout clock of w's reply.
func (a *api) startReply(w http.ResponseWriter) {
	if a.cfg.WriteTimeout > 0 {
		// Fails only on a writer without deadlines (tests' recorders).
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(a.cfg.WriteTimeout))
	}
}
