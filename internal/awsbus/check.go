package awsbus

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/tracing"
)

// The calls the resource checks make, as IAM actions.
const (
	ActionGetQueueAttributes = "sqs:GetQueueAttributes"
	ActionGetTopicAttributes = "sns:GetTopicAttributes"
	ActionDescribeTable      = "dynamodb:DescribeTable"
	// actionListTopics is the fallback of sns:GetTopicAttributes on an
	// endpoint that does not implement it (goaws); AWS implements it, so
	// the daemon's policy need not grant sns:ListTopics.
	actionListTopics = "sns:ListTopics"
	// actionGetQueueURL resolves a queue given by name; the daemon's policy
	// grants it already for the command subscriber.
	actionGetQueueURL = "sqs:GetQueueUrl"
)

// CheckActions are the IAM actions the resource checks need on the
// resources they check: configs/cloudformation.yaml grants them, and its
// test reads them from here.
var CheckActions = []string{ActionGetQueueAttributes, ActionGetTopicAttributes, ActionDescribeTable}

// ResourceError says which resource aws mode cannot use, through which
// call, and why.
type ResourceError struct {
	// Key is the configuration key naming the resource (sqs.commandQueue,
	// results.snsTopicArn, results.sqsQueue, idempotency.dynamodb.table).
	Key string
	// Resource is what the key names: a queue URL or name, a topic ARN, a
	// table name.
	Resource string
	// Action is the call that failed, as an IAM action.
	Action string
	// On is the resource the action was called on, as IAM names it where
	// it can be told (ARNs), else as configured.
	On string
	// Denied: the caller lacks the permission Action on On.
	Denied bool
	// Answered: AWS answered (an error of its own, or an answer showing
	// the resource unusable), as opposed to a call that got no answer
	// (network, timeout).
	Answered bool
	// Err is the call's error, or what its answer showed to be wrong.
	Err error
}

func (e *ResourceError) Error() string {
	if e.Denied {
		return fmt.Sprintf("%s %s: missing permission %s on %s: %v", e.Key, e.Resource, e.Action, e.On, e.Err)
	}
	return fmt.Sprintf("%s %s: %s failed: %v", e.Key, e.Resource, e.Action, e.Err)
}

func (e *ResourceError) Unwrap() error { return e.Err }

// callFailed is the ResourceError of a failed call.
func callFailed(key, resource, action, on string, err error) *ResourceError {
	var apiErr smithy.APIError
	return &ResourceError{Key: key, Resource: resource, Action: action, On: on, Denied: denied(err),
		Answered: errors.As(err, &apiErr), Err: err}
}

// ResourceChecker tells whether the resources aws mode uses exist and are
// usable, with one cheap read-only call each. It writes nothing.
type ResourceChecker struct {
	sqs    *sqs.Client
	sns    *sns.Client
	ddb    *dynamodb.Client
	region string
}

// NewResourceChecker returns a checker calling the endpoints of awsCfg; tp
// traces its calls (nil: none).
func NewResourceChecker(awsCfg aws.Config, tp tracing.TracerProvider) *ResourceChecker {
	return &ResourceChecker{
		sqs: sqs.NewFromConfig(awsCfg, withTracing[sqs.Options](tp)),
		sns: sns.NewFromConfig(awsCfg, withTracing[sns.Options](tp)),
		ddb: dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
			if tp != nil {
				o.TracerProvider = tp
			}
		}),
		region: awsCfg.Region,
	}
}

// CheckQueue checks the queue urlOrName, which configuration key names:
// sqs:GetQueueAttributes answers for it (after sqs:GetQueueUrl for a name).
func (c *ResourceChecker) CheckQueue(ctx context.Context, key, urlOrName string) error {
	queueURL := urlOrName
	if !strings.Contains(urlOrName, "://") {
		out, err := c.sqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(urlOrName)})
		if err != nil {
			return callFailed(key, urlOrName, actionGetQueueURL, c.queueARN(urlOrName, ""), err)
		}
		queueURL = aws.ToString(out.QueueUrl)
	}
	_, err := c.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
	if err != nil {
		return callFailed(key, urlOrName, ActionGetQueueAttributes, c.queueARN("", queueURL), err)
	}
	return nil
}

// queueARN is the ARN of the queue of name or URL queueURL, for IAM; the
// name alone when the account cannot be told.
func (c *ResourceChecker) queueARN(name, queueURL string) string {
	account := ""
	if u, err := url.Parse(queueURL); err == nil {
		if parts := strings.Split(strings.Trim(u.Path, "/"), "/"); len(parts) == 2 {
			account, name = parts[0], parts[1]
		}
	}
	if account == "" {
		return "queue " + name
	}
	return fmt.Sprintf("arn:%s:sqs:%s:%s:%s", partition(c.region), c.region, account, name)
}

// partition is the AWS partition of region.
func partition(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// CheckTopic checks the SNS topic arn, which configuration key names:
// sns:GetTopicAttributes answers for it. Where the endpoint does not
// implement GetTopicAttributes (goaws), the weaker check is that
// sns:ListTopics lists the ARN.
func (c *ResourceChecker) CheckTopic(ctx context.Context, key, arn string) error {
	_, err := c.sns.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(arn)})
	if err == nil {
		return nil
	}
	if !notImplemented(err) {
		return callFailed(key, arn, ActionGetTopicAttributes, arn, err)
	}
	pages := sns.NewListTopicsPaginator(c.sns, &sns.ListTopicsInput{})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return callFailed(key, arn, actionListTopics, "*", fmt.Errorf("%w (the endpoint does not implement %s)", err, ActionGetTopicAttributes))
		}
		for _, t := range page.Topics {
			if aws.ToString(t.TopicArn) == arn {
				return nil
			}
		}
	}
	return &ResourceError{Key: key, Resource: arn, Action: actionListTopics, On: "*", Answered: true,
		Err: fmt.Errorf("no such topic: the endpoint does not implement %s, and %s does not list it", ActionGetTopicAttributes, actionListTopics)}
}

// CheckTable checks the DynamoDB table name, which configuration key names:
// dynamodb:DescribeTable answers for it, and it is ACTIVE (or UPDATING,
// which serves reads and writes).
func (c *ResourceChecker) CheckTable(ctx context.Context, key, name string) error {
	out, err := c.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return callFailed(key, name, ActionDescribeTable, "table "+name, err)
	}
	switch status := out.Table.TableStatus; status {
	case ddbtypes.TableStatusActive, ddbtypes.TableStatusUpdating, "":
		return nil
	default:
		return &ResourceError{Key: key, Resource: name, Action: ActionDescribeTable, On: aws.ToString(out.Table.TableArn), Answered: true,
			Err: fmt.Errorf("the table is %s, not ACTIVE", status)}
	}
}

// denied tells whether err is AWS refusing the caller a permission: SQS
// and DynamoDB say AccessDenied(Exception), SNS AuthorizationError.
func denied(err error) bool {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	code := apiErr.ErrorCode()
	return strings.Contains(code, "AccessDenied") || code == "AuthorizationError"
}

// notImplemented tells whether err says the endpoint does not implement the
// call: an HTTP 501, an error code saying so, or a 400 or 404 whose body
// is no AWS error document (goaws v0.5.4 answers an action it does not know
// with 400 and the text "Bad Request", which the SDK reports as code
// UnknownError). An AWS error with its own code never counts.
func notImplemented(err error) bool {
	var respErr *awshttp.ResponseError
	if !errors.As(err, &respErr) {
		return false
	}
	status := respErr.HTTPStatusCode()
	code := ""
	if apiErr := smithy.APIError(nil); errors.As(err, &apiErr) {
		code = apiErr.ErrorCode()
	}
	switch {
	case status == http.StatusNotImplemented:
		return true
	case code == "InvalidAction" || code == "NotImplemented" || code == "UnknownOperationException":
		return true
	case code == "" || code == "UnknownError":
		return status == http.StatusBadRequest || status == http.StatusNotFound
	}
	return false
}
