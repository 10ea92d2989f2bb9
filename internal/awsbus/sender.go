package awsbus

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SendCommand puts one command on the bus, as a client does: to the SNS
// topic when topic is set, else to the SQS queue (a URL or a name), with
// attrs as String message attributes (Idempotency-Key,
// Idempotency-Expiry-Seconds). It returns the message id.
func SendCommand(ctx context.Context, awsCfg aws.Config, queue, topic string, body []byte, attrs map[string]string) (string, error) {
	if topic != "" {
		out, err := sns.NewFromConfig(awsCfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic),
			Message: aws.String(string(body)), MessageAttributes: snsAttributes(attrs)})
		if err != nil {
			return "", fmt.Errorf("publish to %s: %w", topic, err)
		}
		return aws.ToString(out.MessageId), nil
	}
	client := sqs.NewFromConfig(awsCfg)
	url, err := queueURL(ctx, client, queue)
	if err != nil {
		return "", fmt.Errorf("queue %s: %w", queue, err)
	}
	out, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url),
		MessageBody: aws.String(string(body)), MessageAttributes: sqsAttributes(attrs)})
	if err != nil {
		return "", fmt.Errorf("send to %s: %w", queue, err)
	}
	return aws.ToString(out.MessageId), nil
}
