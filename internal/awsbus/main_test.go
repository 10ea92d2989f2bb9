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

// The SQS/SNS server a test talks to, through clients configured the way
// the daemon configures them (LoadConfig and AWS_ENDPOINT_URL_*): goaws,
// unless onEachEmulator points them at another.
var (
	awsCfg    aws.Config
	sqsClient *sqs.Client
	snsClient *sns.Client
)

// emulator is one SQS/SNS server.
type emulator struct {
	name     string
	endpoint string
}

// emulators are goaws and moto, two independent implementations of SQS and
// SNS.
var emulators []emulator

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	testenv.UnsetMachineEnv()
	goaws, stopGoaws, err := testenv.Goaws()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stopGoaws()
	moto, stopMoto, err := testenv.Moto()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stopMoto()
	emulators = []emulator{{"goaws", goaws}, {"moto", moto}}
	os.Setenv("AWS_REGION", "us-east-1")
	os.Setenv("AWS_ACCESS_KEY_ID", "test")
	os.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	if err := use(emulators[0]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// use points the package's clients at e.
func use(e emulator) error {
	os.Setenv("AWS_ENDPOINT_URL_SQS", e.endpoint)
	os.Setenv("AWS_ENDPOINT_URL_SNS", e.endpoint)
	cfg, err := LoadConfig(context.Background())
	if err != nil {
		return fmt.Errorf("%s: %w", e.name, err)
	}
	awsCfg, sqsClient, snsClient = cfg, sqs.NewFromConfig(cfg), sns.NewFromConfig(cfg)
	return nil
}

// onEachEmulator runs f as a subtest per emulator, with the package's
// clients pointing at it. Tests using it must not run in parallel.
func onEachEmulator(t *testing.T, f func(t *testing.T)) {
	for _, e := range emulators {
		t.Run(e.name, func(t *testing.T) {
			if err := use(e); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := use(emulators[0]); err != nil {
					t.Error(err)
				}
			})
			f(t)
		})
	}
}
