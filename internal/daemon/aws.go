package daemon

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go/tracing"
	"github.com/aws/smithy-go/tracing/smithyoteltracing"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/router"
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
// context (the SDK's own OpenTelemetry adapter).
func (d *Daemon) awsTracing() tracing.TracerProvider {
	return smithyoteltracing.Adapt(d.tel.TracerProvider)
}

// transport is where commands come from and results go.
type transport struct {
	name, resultsName string
	commands          message.Subscriber
	results           result.Publisher
	// submit puts a raw command on the bus (POST /commands); nil when the
	// bus is SQS, which publishers reach directly.
	submit          httpapi.Submitter
	delayRedelivery func(*message.Message, time.Duration)
}

func (d *Daemon) newTransport(ctx context.Context) (transport, error) {
	if d.cfg.Mode != config.ModeAWS {
		d.bus = gochannel.NewGoChannel(gochannel.Config{}, watermillLogger(d.log))
		return transport{name: "gochannel", resultsName: "gochannel", commands: d.bus, submit: d.submit,
			results: router.NewResultPublisher(d.bus, router.ResultsTopic)}, nil
	}
	awsCfg, err := d.awsConfig(ctx)
	if err != nil {
		return transport{}, err
	}
	sqs := d.cfg.SQS
	sub, err := awsbus.NewCommandSubscriber(awsCfg, awsbus.SubscriberConfig{
		QueueURL: sqs.CommandQueue, WaitTimeSeconds: sqs.WaitTimeSeconds, VisibilityTimeout: sqs.VisibilityTimeout,
		MaxMessages: sqs.MaxMessages, NackDelay: d.cfg.Bus.NackDelay,
		// Acks of commands finishing during the drain must still delete.
		CloseTimeout:   d.cfg.HTTP.ShutdownTimeout + 10*time.Second,
		TracerProvider: d.awsTracing(),
	}, watermillLogger(d.log))
	if err != nil {
		return transport{}, fmt.Errorf("sqs.commandQueue %s: %w", sqs.CommandQueue, err)
	}
	r := d.cfg.Results
	pub, err := awsbus.NewResultPublisher(awsCfg, awsbus.PublisherConfig{TopicARN: r.SNSTopicARN, QueueURL: r.SQSQueue,
		TracerProvider: d.awsTracing()})
	if err != nil {
		return transport{}, fmt.Errorf("results: %w", err)
	}
	resultsName := "sns:" + r.SNSTopicARN
	if r.SNSTopicARN == "" {
		resultsName = "sqs:" + r.SQSQueue
	}
	return transport{name: "sqs:" + sqs.CommandQueue, resultsName: resultsName, commands: sub, results: pub,
		delayRedelivery: awsbus.SetRetryAfter}, nil
}
