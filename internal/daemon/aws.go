package daemon

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go/tracing"
	"github.com/aws/smithy-go/tracing/smithyoteltracing"

	"github.com/mqprobe/mqprobe/internal/awsbus"
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
	return secrets.NewResolver(secrets.Config{CacheTTL: d.cfg.Secrets.CacheTTL, Dir: d.cfg.Secrets.KeyDir,
		Fetcher: &secretsManager{load: d.awsConfig, tracing: d.awsTracing()}})
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
