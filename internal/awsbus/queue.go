package awsbus

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// resolveQueueURL returns urlOrName when it is a URL, else asks SQS for the
// named queue's URL. It never creates a queue, and it does not depend on the
// error code of a missing queue (goaws answers
// AWS.SimpleQueueService.NonExistentQueue, which the SDK does not map to
// QueueDoesNotExist).
func resolveQueueURL(ctx context.Context, client *sqs.Client, urlOrName string) (string, error) {
	if strings.Contains(urlOrName, "://") {
		return urlOrName, nil
	}
	out, err := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(urlOrName)})
	if err != nil {
		return "", fmt.Errorf("resolve SQS queue %q: %w", urlOrName, err)
	}
	return aws.ToString(out.QueueUrl), nil
}
