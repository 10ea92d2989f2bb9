package daemon

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
)

// loadAWS reads the standard AWS settings: region, credential chain and
// AWS_ENDPOINT_URL_* endpoints, as the SDK itself defines them.
func loadAWS(ctx context.Context) (aws.Config, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("aws configuration: %w", err)
	}
	return cfg, nil
}

func openDynamoDB(ctx context.Context, cfg *config.Config) (*dynamodb.Store, error) {
	awsCfg, err := loadAWS(ctx)
	if err != nil {
		return nil, err
	}
	return dynamodb.New(awsdynamodb.NewFromConfig(awsCfg), cfg.Idempotency.DynamoDB.Table), nil
}
