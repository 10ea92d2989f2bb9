package awsbus

import (
	"strings"

	"github.com/aws/smithy-go/tracing"

	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/result"
)

// PublisherConfig names the results destination: exactly one of an SNS
// topic or an SQS queue.
type PublisherConfig struct {
	// TopicARN is an SNS topic's ARN.
	TopicARN string `yaml:"snsTopicArn" desc:"SNS topic receiving result events (aws mode)"`
	// QueueURL is an SQS queue's URL, or its name.
	QueueURL string `yaml:"sqsQueue" desc:"SQS queue (name or URL) receiving result events (aws mode)"`
	// TracerProvider traces the publish calls; nil: none.
	TracerProvider tracing.TracerProvider `yaml:"-"`
}

// Validate checks results.snsTopicArn, as a *configcheck.FieldError;
// whether one of the two is required depends on the mode, which the
// configuration checks.
func (c PublisherConfig) Validate() error {
	var v configcheck.Errors
	if c.TopicARN != "" && !strings.HasPrefix(c.TopicARN, "arn:") {
		v.Fail("results.snsTopicArn", "must be an ARN, arn:aws:sns:<region>:<account>:<topic> (got %q)", c.TopicARN)
	}
	return v.Err()
}

// NewResultPublisher returns a publisher of result events (CloudEvents
// structured JSON) to the configured topic or queue. Each message carries
// the String attributes type, operationType, status, idempotencyKey and
// traceparent (those that are not empty: SQS and SNS refuse empty values),
// for SNS filter policies and SQS consumers.
func NewResultPublisher(awsCfg aws.Config, cfg PublisherConfig) (result.Publisher, error) {
	switch {
	case cfg.TopicARN != "" && cfg.QueueURL != "":
		return nil, errors.New("result publisher: set TopicARN or QueueURL, not both")
	case cfg.TopicARN != "":
		return &topicPublisher{client: sns.NewFromConfig(awsCfg, withTracing[sns.Options](cfg.TracerProvider)), topicARN: cfg.TopicARN}, nil
	case cfg.QueueURL != "":
		return &queuePublisher{client: sqs.NewFromConfig(awsCfg, withTracing[sqs.Options](cfg.TracerProvider)), queue: cfg.QueueURL}, nil
	}
	return nil, errors.New("result publisher: TopicARN or QueueURL is required")
}

// Message size limits: SNS takes at most 256 KiB; an SQS queue its
// MaximumMessageSize (up to 1 MiB), read from the queue, and 256 KiB when
// it cannot be read. Both count the message attributes too. An event over
// the limit loses the tail of its list of messages (result.Encode).
const (
	snsMaxMessageBytes     = 256 * 1024
	sqsDefaultMessageBytes = 256 * 1024
)

// attributesSize is what attrs add to a message's size: names, data type
// and values.
func attributesSize(attrs map[string]string) int {
	n := 0
	for k, v := range attrs {
		n += len(k) + len("String") + len(v)
	}
	return n
}

// eventAttributes returns the non-empty filterable attributes of e.
func eventAttributes(e result.Event) map[string]string {
	attrs := map[string]string{
		"type":           string(e.Type),
		"operationType":  e.Data.OperationType,
		"status":         string(e.Data.Status),
		"idempotencyKey": e.Data.IdempotencyKey,
		"traceparent":    e.TraceParent,
	}
	for k, v := range attrs {
		if v == "" {
			delete(attrs, k)
		}
	}
	return attrs
}

// topicPublisher publishes to an SNS topic.
type topicPublisher struct {
	client   *sns.Client
	topicARN string
}

// Publish implements result.Publisher. It names the topic with TopicArn,
// which goaws reads (it ignores TargetArn) and SNS accepts.
func (p *topicPublisher) Publish(ctx context.Context, e result.Event) error {
	body, err := result.Encode(e, snsMaxMessageBytes-attributesSize(eventAttributes(e)))
	if err != nil {
		return fmt.Errorf("SNS topic %s: %w", p.topicARN, err)
	}
	_, err = p.client.Publish(ctx, &sns.PublishInput{
		TopicArn:          aws.String(p.topicARN),
		Message:           aws.String(string(body)),
		MessageAttributes: snsAttributes(eventAttributes(e)),
	})
	if err != nil {
		return fmt.Errorf("publish result event to SNS topic %s: %w", p.topicARN, err)
	}
	return nil
}

// queuePublisher sends to an SQS queue.
type queuePublisher struct {
	client *sqs.Client
	queue  string // URL or name

	mu       sync.Mutex
	url      string // resolved on first use
	maxBytes int    // the queue's MaximumMessageSize, read with the URL
}

// Publish implements result.Publisher.
func (p *queuePublisher) Publish(ctx context.Context, e result.Event) error {
	url, err := p.queueURL(ctx)
	if err != nil {
		return fmt.Errorf("publish result event: %w", err)
	}
	p.mu.Lock()
	limit := p.maxBytes
	p.mu.Unlock()
	body, err := result.Encode(e, limit-attributesSize(eventAttributes(e)))
	if err != nil {
		return fmt.Errorf("SQS queue %s (MaximumMessageSize %d): %w", url, limit, err)
	}
	_, err = p.client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:          aws.String(url),
		MessageBody:       aws.String(string(body)),
		MessageAttributes: sqsAttributes(eventAttributes(e)),
	})
	if err != nil {
		return fmt.Errorf("send result event to SQS queue %s: %w", url, err)
	}
	return nil
}

// queueURL resolves the queue once; a failed resolution is retried on the
// next publish.
func (p *queuePublisher) queueURL(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.url == "" {
		url, err := resolveQueueURL(ctx, p.client, p.queue)
		if err != nil {
			return "", err
		}
		p.url, p.maxBytes = url, maxMessageSize(ctx, p.client, url)
	}
	return p.url, nil
}

// maxMessageSize reads the queue's MaximumMessageSize; an emulator or a
// role that does not give it gets SQS's former default, 256 KiB.
func maxMessageSize(ctx context.Context, client *sqs.Client, url string) int {
	out, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameMaximumMessageSize}})
	if err != nil {
		return sqsDefaultMessageBytes
	}
	n, err := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameMaximumMessageSize)])
	if err != nil || n <= 0 {
		return sqsDefaultMessageBytes
	}
	return n
}
