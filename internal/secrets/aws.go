package secrets

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// SecretsManager fetches secrets from AWS Secrets Manager (GetSecretValue,
// the AWSCURRENT version).
type SecretsManager struct {
	client *secretsmanager.Client
}

// NewSecretsManager returns a Fetcher over the AWS configuration cfg.
func NewSecretsManager(cfg aws.Config, optFns ...func(*secretsmanager.Options)) *SecretsManager {
	return &SecretsManager{client: secretsmanager.NewFromConfig(cfg, optFns...)}
}

// Fetch implements Fetcher. Its errors say what went wrong, never a value.
func (m *SecretsManager) Fetch(ctx context.Context, name string) (Secret, error) {
	out, err := m.client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(name)})
	if err != nil {
		var notFound *types.ResourceNotFoundException
		if errors.As(err, &notFound) {
			return Secret{}, errors.New("no such secret in AWS Secrets Manager")
		}
		return Secret{}, fmt.Errorf("AWS Secrets Manager GetSecretValue: %w", err)
	}
	return Secret{String: aws.ToString(out.SecretString), Binary: out.SecretBinary}, nil
}
