package awsbus

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/tracing"
)

// LoadConfig loads the AWS configuration exactly as the SDK's defaults do
// (AWS_REGION or AWS_DEFAULT_REGION's shared-config equivalent, the
// credential chain with ECS/EKS/EC2 roles, AWS_ENDPOINT_URL_SQS / _SNS /
// _DYNAMODB, AWS_CA_BUNDLE, proxies, shared config files and profiles). It
// changes nothing the SDK chose: in particular the HTTP client is whatever
// the SDK built, which is nil — the SDK's own default — unless something
// such as a CA bundle made it build one.
func LoadConfig(ctx context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS config: %w", err)
	}
	return cfg, nil
}

// clientOptions is what the SQS and SNS client options have in common.
type clientOptions interface{ sqs.Options | sns.Options }

// withTracing sets a client's tracer provider when there is one.
func withTracing[O clientOptions](tp tracing.TracerProvider) func(*O) {
	return func(o *O) {
		if tp == nil {
			return
		}
		switch o := any(o).(type) {
		case *sqs.Options:
			o.TracerProvider = tp
		case *sns.Options:
			o.TracerProvider = tp
		}
	}
}
