package awsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/google/uuid"
)

// ReplyQueuePrefix begins the name of every temporary queue
// SubscribeResults creates, so that one a killed client left behind can be
// found.
const ReplyQueuePrefix = "mqprobe-wait-"

// replyRetentionSeconds bounds how long a forgotten reply queue keeps an
// event: an hour.
const replyRetentionSeconds = "3600"

// ResultSubscription is one waiting client's own SQS queue, subscribed to
// the results topic with a filter policy on one idempotency key, so that
// the client takes no other reader's events (as it would from a shared
// results queue). Close removes it.
type ResultSubscription struct {
	// Name and URL are the queue's.
	Name, URL    string
	sqs          *sqs.Client
	sns          *sns.Client
	subscription string
}

// SubscribeResults creates a temporary queue that receives the result
// events of key published to topicARN (raw, with their attributes), for
// AwaitResult. Subscribe before sending the command: a result published
// before the subscription never reaches the queue.
func SubscribeResults(ctx context.Context, cfg aws.Config, topicARN, key string) (_ *ResultSubscription, err error) {
	s := &ResultSubscription{Name: ReplyQueuePrefix + uuid.NewString(), sqs: sqs.NewFromConfig(cfg), sns: sns.NewFromConfig(cfg)}
	created, err := s.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(s.Name),
		Attributes: map[string]string{string(sqstypes.QueueAttributeNameMessageRetentionPeriod): replyRetentionSeconds}})
	if err != nil {
		return nil, fmt.Errorf("create the reply queue %s: %w", s.Name, err)
	}
	s.URL = aws.ToString(created.QueueUrl)
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close(context.WithoutCancel(ctx)))
		}
	}()
	attrs, err := s.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: created.QueueUrl,
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		return nil, fmt.Errorf("the reply queue %s's ARN: %w", s.Name, err)
	}
	queueARN := attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	if err := s.allowTopic(ctx, queueARN, topicARN); err != nil {
		return nil, err
	}
	filter, err := json.Marshal(map[string][]string{"idempotencyKey": {key}})
	if err != nil {
		return nil, err
	}
	sub, err := s.sns.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topicARN), Protocol: aws.String("sqs"),
		Endpoint: aws.String(queueARN), ReturnSubscriptionArn: true,
		Attributes: map[string]string{"RawMessageDelivery": "true", "FilterPolicy": string(filter)}})
	if err != nil {
		return nil, fmt.Errorf("subscribe the reply queue %s to %s: %w", s.Name, topicARN, err)
	}
	s.subscription = aws.ToString(sub.SubscriptionArn)
	return s, nil
}

// allowTopic lets topicARN, and nothing else, send to the queue: SNS
// delivers to a queue only with its policy's leave. An emulator that does
// not model queue policies (goaws refuses the attribute as an invalid
// value, AWS.SimpleQueueService.InvalidParameterValue) delivers without one, so only a refusal of the call itself is an
// error.
func (s *ResultSubscription) allowTopic(ctx context.Context, queueARN, topicARN string) error {
	policy, err := json.Marshal(map[string]any{
		"Version": "2012-10-17",
		"Statement": []map[string]any{{
			"Effect": "Allow", "Principal": map[string]string{"Service": "sns.amazonaws.com"},
			"Action": "sqs:SendMessage", "Resource": queueARN,
			"Condition": map[string]any{"ArnEquals": map[string]string{"aws:SourceArn": topicARN}},
		}},
	})
	if err != nil {
		return err
	}
	_, err = s.sqs.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(s.URL),
		Attributes: map[string]string{string(sqstypes.QueueAttributeNamePolicy): string(policy)}})
	var apiErr smithy.APIError
	if err != nil && !(errors.As(err, &apiErr) && strings.HasSuffix(apiErr.ErrorCode(), "InvalidParameterValue")) {
		return fmt.Errorf("let %s send to the reply queue %s (sqs:SetQueueAttributes): %w", topicARN, s.Name, err)
	}
	return nil
}

// Close unsubscribes the queue and deletes it.
func (s *ResultSubscription) Close(ctx context.Context) error {
	var errs []error
	if s.subscription != "" {
		if _, err := s.sns.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String(s.subscription)}); err != nil {
			errs = append(errs, fmt.Errorf("unsubscribe %s: %w", s.subscription, err))
		}
	}
	if _, err := s.sqs.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(s.URL)}); err != nil {
		errs = append(errs, fmt.Errorf("delete the reply queue %s: %w", s.Name, err))
	}
	return errors.Join(errs...)
}
