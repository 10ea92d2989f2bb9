package awsbus

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// The SQS/SNS server every test talks to, through clients configured the
// way the daemon configures them (LoadConfig and AWS_ENDPOINT_URL_*).
var (
	awsCfg    aws.Config
	sqsClient *sqs.Client
	snsClient *sns.Client
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	endpoint, stop, err := testenv.Goaws()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_SQS": endpoint,
		"AWS_ENDPOINT_URL_SNS": endpoint,
		"AWS_REGION":           "us-east-1",
	} {
		os.Setenv(k, v)
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		os.Setenv("AWS_ACCESS_KEY_ID", "test")
		os.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	}
	awsCfg, err = LoadConfig(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sqsClient = sqs.NewFromConfig(awsCfg)
	snsClient = sns.NewFromConfig(awsCfg)
	return m.Run()
}
