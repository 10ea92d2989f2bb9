package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/tracing"
	"github.com/aws/smithy-go/tracing/smithyoteltracing"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/result"
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
