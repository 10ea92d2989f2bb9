package awsbus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestLoadConfigOnRealDefaults loads the configuration the way the daemon
// and `mqprobe store init` do, in the environments they meet: none of the
// machine's variables (an ECS task, an EKS pod), a CA bundle, a profile of
// a shared config file. Each makes real SQS and SNS calls; the TLS cases go
// through an HTTPS endpoint whose certificate only the bundle trusts.
func TestLoadConfigOnRealDefaults(t *testing.T) {
	ca := testenv.NewCA(t)
	for _, e := range emulators {
		t.Run(e.name, func(t *testing.T) { loadConfigCases(t, ca, e.endpoint) })
	}
}

func loadConfigCases(t *testing.T, ca *testenv.CA, endpoint string) {
	tlsEndpoint := ca.HTTPSProxy(t, endpoint)
	cases := []struct {
		name     string
		endpoint string
		env      func(t *testing.T) map[string]string
	}{
		{"SDK defaults", endpoint, func(*testing.T) map[string]string { return nil }},
		{"AWS_CA_BUNDLE", tlsEndpoint, func(*testing.T) map[string]string {
			return map[string]string{"AWS_CA_BUNDLE": ca.Bundle}
		}},
		{"AWS_PROFILE with ca_bundle in a shared config file", tlsEndpoint, func(t *testing.T) map[string]string {
			file := filepath.Join(t.TempDir(), "config")
			profile := fmt.Sprintf("[profile mqprobe]\nregion = us-east-1\nca_bundle = %s\n", ca.Bundle)
			if err := os.WriteFile(file, []byte(profile), 0o600); err != nil {
				t.Fatal(err)
			}
			return map[string]string{"AWS_CONFIG_FILE": file, "AWS_PROFILE": "mqprobe", "AWS_REGION": ""}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testenv.ClearMachineEnv(t)
			vars := map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
				"AWS_ENDPOINT_URL_SQS": c.endpoint, "AWS_ENDPOINT_URL_SNS": c.endpoint}
			for k, v := range c.env(t) {
				vars[k] = v
			}
			for k, v := range vars {
				if v != "" {
					t.Setenv(k, v)
				}
			}
			cfg, err := LoadConfig(t.Context())
			if err != nil {
				t.Fatalf("LoadConfig: %v", err)
			}
			if cfg.Region != "us-east-1" {
				t.Errorf("region %q, want us-east-1", cfg.Region)
			}
			roundTrip(t, cfg)
		})
	}

	t.Run("an untrusted certificate is refused", func(t *testing.T) {
		testenv.ClearMachineEnv(t)
		for k, v := range map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test",
			"AWS_SECRET_ACCESS_KEY": "test", "AWS_ENDPOINT_URL_SQS": tlsEndpoint} {
			t.Setenv(k, v)
		}
		cfg, err := LoadConfig(t.Context())
		if err != nil {
			t.Fatalf("LoadConfig: %v", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		if _, err := sqs.NewFromConfig(cfg).ListQueues(ctx, &sqs.ListQueuesInput{}); err == nil {
			t.Error("a call through a certificate no bundle trusts succeeded")
		}
	})
}

// roundTrip creates a queue and a topic, sends a message and receives it.
func roundTrip(t *testing.T, cfg aws.Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	sqsc, snsc := sqs.NewFromConfig(cfg), sns.NewFromConfig(cfg)
	name := uniqueName(t)
	q, err := sqsc.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
	if err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	defer sqsc.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
	if _, err := sqsc.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")}); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	out, err := sqsc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 2})
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	if len(out.Messages) != 1 || aws.ToString(out.Messages[0].Body) != "hello" {
		t.Errorf("received %+v", out.Messages)
	}
	topic, err := snsc.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
	if err != nil {
		t.Fatalf("CreateTopic: %v", err)
	}
	_, _ = snsc.DeleteTopic(context.Background(), &sns.DeleteTopicInput{TopicArn: topic.TopicArn})
}

// TestRunsWithoutMachineVariables: however the tests were started, TestMain
// took away what a container would not have (AWS_CA_BUNDLE, profiles,
// proxies); only what the tests set themselves remains.
func TestRunsWithoutMachineVariables(t *testing.T) {
	set := map[string]bool{"AWS_REGION": true, "AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true,
		"AWS_ENDPOINT_URL_SQS": true, "AWS_ENDPOINT_URL_SNS": true}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if testenv.IsMachineVariable(name) && !set[name] {
			t.Errorf("%s is in the tests' environment", name)
		}
	}
}
