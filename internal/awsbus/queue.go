package awsbus

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// resolveQueueURL returns urlOrName when it is a URL, else asks SQS for the
// named queue's URL. It never creates a queue, and it does not depend on the
// error code of a missing queue (goaws answers
// AWS.SimpleQueueService.NonExistentQueue, which the SDK does not map to
// QueueDoesNotExist).
func resolveQueueURL(ctx context.Context, client *sqs.Client, urlOrName string) (string, error) {
	url, err := queueURL(ctx, client, urlOrName)
	if err != nil {
		return "", fmt.Errorf("resolve SQS queue %q: %w", urlOrName, err)
	}
	return url, nil
}

// queueURL is resolveQueueURL with SQS's error as it is, for callers that
// name the queue their own way.
func queueURL(ctx context.Context, client *sqs.Client, urlOrName string) (string, error) {
	if strings.Contains(urlOrName, "://") {
		return urlOrName, nil
	}
	out, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(urlOrName)})
	if err != nil {
		return "", err
	}
	return aws.ToString(out.QueueUrl), nil
}

// sqsAttributes are attrs as SQS String message attributes.
func sqsAttributes(attrs map[string]string) map[string]sqstypes.MessageAttributeValue {
	out := make(map[string]sqstypes.MessageAttributeValue, len(attrs))
	for k, v := range attrs {
		out[k] = sqstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	return out
}

// snsAttributes are attrs as SNS String message attributes.
func snsAttributes(attrs map[string]string) map[string]snstypes.MessageAttributeValue {
	out := make(map[string]snstypes.MessageAttributeValue, len(attrs))
	for k, v := range attrs {
		out[k] = snstypes.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	return out
}
