// Command jaeger is a trimmed Jaeger all-in-one for mqprobe's tests: Jaeger's
// own collector (OTLP gRPC and HTTP receivers, plus its native gRPC and HTTP
// span endpoints), in-memory span storage and query service (HTTP JSON API
// and gRPC), wired exactly as github.com/jaegertracing/jaeger/cmd/all-in-one
// wires them, but without the agent, the admin server, the remote sampling
// endpoints and the storage back ends other than memory, whose dependencies
// (Elasticsearch, Cassandra, Kafka, Badger...) would more than double the
// build. The flags are all-in-one's own (--collector.otlp.grpc.host-port,
// --collector.otlp.http.host-port, --collector.grpc-server.host-port,
// --collector.http-server.host-port, --query.http-server.host-port,
// --query.grpc-server.host-port, --memory.max-traces, ...), with every
// listener defaulting to 127.0.0.1 instead of all interfaces.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"go.opentelemetry.io/collector/component/componentstatus"
	nooptrace "go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"

	collectorApp "github.com/jaegertracing/jaeger/cmd/collector/app"
	collectorFlags "github.com/jaegertracing/jaeger/cmd/collector/app/flags"
	queryApp "github.com/jaegertracing/jaeger/cmd/query/app"
	"github.com/jaegertracing/jaeger/cmd/query/app/querysvc"
	"github.com/jaegertracing/jaeger/pkg/config"
	"github.com/jaegertracing/jaeger/pkg/healthcheck"
	"github.com/jaegertracing/jaeger/pkg/metrics"
	"github.com/jaegertracing/jaeger/pkg/telemetery"
	"github.com/jaegertracing/jaeger/pkg/tenancy"
	metricsDisabled "github.com/jaegertracing/jaeger/plugin/metrics/disabled"
	"github.com/jaegertracing/jaeger/plugin/storage/memory"
)

// loopbackDefaults rebinds every listener's default from all interfaces to
// the loopback interface; a flag given on the command line still wins.
var loopbackDefaults = map[string]string{
	"collector.otlp.grpc.host-port":   "127.0.0.1:4317",
	"collector.otlp.http.host-port":   "127.0.0.1:4318",
	"collector.grpc-server.host-port": "127.0.0.1:14250",
	"collector.http-server.host-port": "127.0.0.1:14268",
	"query.http-server.host-port":     "127.0.0.1:16686",
	"query.grpc-server.host-port":     "127.0.0.1:16685",
}

func main() {
	storageFactory := memory.NewFactory()
	v := viper.New()
	command := &cobra.Command{
		Use:          "jaeger",
		Short:        "Jaeger collector (OTLP) + in-memory storage + query, on 127.0.0.1, for tests.",
		SilenceUsage: true,
		RunE: func(*cobra.Command, []string) error {
			return run(v, storageFactory)
		},
	}
	config.AddFlags(v, command,
		collectorFlags.AddFlags,
		queryApp.AddFlags,
		storageFactory.AddFlags,
		func(fs *flag.FlagSet) {
			fs.String("log-level", "info", "Minimal log level (debug, info, warn, error)")
		},
	)
	for name, hostPort := range loopbackDefaults {
		f := command.Flags().Lookup(name)
		if f == nil {
			fmt.Fprintf(os.Stderr, "jaeger: flag --%s not defined\n", name)
			os.Exit(2)
		}
		f.DefValue = hostPort
		_ = f.Value.Set(hostPort)
	}
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}

func run(v *viper.Viper, storageFactory *memory.Factory) error {
	zcfg := zap.NewProductionConfig()
	if err := zcfg.Level.UnmarshalText([]byte(v.GetString("log-level"))); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger, err := zcfg.Build()
	if err != nil {
		return err
	}
	defer func() { _ = logger.Sync() }()
	mf := metrics.NullFactory

	storageFactory.InitFromViper(v, logger)
	if err := storageFactory.Initialize(mf, logger); err != nil {
		return fmt.Errorf("memory storage: %w", err)
	}
	spanReader, err := storageFactory.CreateSpanReader()
	if err != nil {
		return err
	}
	spanWriter, err := storageFactory.CreateSpanWriter()
	if err != nil {
		return err
	}
	depReader, err := storageFactory.CreateDependencyReader()
	if err != nil {
		return err
	}

	cOpts, err := new(collectorFlags.CollectorOptions).InitFromViper(v, logger)
	if err != nil {
		return fmt.Errorf("collector options: %w", err)
	}
	qOpts, err := new(queryApp.QueryOptions).InitFromViper(v, logger)
	if err != nil {
		return fmt.Errorf("query options: %w", err)
	}

	hc := healthcheck.New()
	hc.SetLogger(logger)
	tm := tenancy.NewManager(&cOpts.GRPC.Tenancy)
	collector := collectorApp.New(&collectorApp.CollectorParams{
		ServiceName:    "jaeger-collector",
		Logger:         logger,
		MetricsFactory: mf,
		SpanWriter:     spanWriter,
		HealthCheck:    hc,
		TenancyMgr:     tm,
	})
	if err := collector.Start(cOpts); err != nil {
		return fmt.Errorf("collector: %w", err)
	}
	defer collector.Close()

	qs := querysvc.NewQueryService(spanReader, depReader,
		*qOpts.BuildQueryServiceOptions(storageFactory, logger))
	// No metrics store: the SPM endpoints answer "disabled", as in all-in-one.
	metricsReader, err := metricsDisabled.NewMetricsReader()
	if err != nil {
		return err
	}
	query, err := queryApp.NewServer(qs, metricsReader, qOpts, tenancy.NewManager(&qOpts.Tenancy), telemetery.Setting{
		Logger:         logger,
		TracerProvider: nooptrace.NewTracerProvider(),
		Metrics:        mf,
		ReportStatus:   func(*componentstatus.Event) {},
	})
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if err := query.Start(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer query.Close()
	hc.Ready()
	logger.Info("jaeger ready",
		zap.String("otlp_grpc", cOpts.OTLP.GRPC.HostPort),
		zap.String("otlp_http", cOpts.OTLP.HTTP.HostPort),
		zap.String("query_http", query.HTTPAddr()),
		zap.String("query_grpc", query.GRPCAddr()))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	logger.Info("shutting down")
	return nil
}
