package dynamodb_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	store "github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// endpoint is the DynamoDB a test talks to: dynalite, unless onEachBackend
// points it at moto.
var endpoint string

// backend is one independent implementation of DynamoDB.
type backend struct {
	name, endpoint string
	// allOld: a failed condition returns the item (ALL_OLD), as DynamoDB
	// does; dynalite ignores it.
	allOld bool
}

var backends []backend

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	testenv.UnsetMachineEnv()
	dynalite, stopDynalite, err := testenv.Dynalite()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FATAL: the DynamoDB store tests need dynalite: %v\n", err)
		return 1
	}
	defer stopDynalite()
	moto, stopMoto, err := testenv.Moto()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FATAL: the DynamoDB store tests need moto: %v\n", err)
		return 1
	}
	defer stopMoto()
	backends = []backend{{name: "dynalite", endpoint: dynalite}, {name: "moto", endpoint: moto, allOld: true}}
	endpoint = dynalite
	return m.Run()
}

// onEachBackend runs f as a subtest per DynamoDB implementation, with
// endpoint pointing at it. Tests using it must not run in parallel.
func onEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			endpoint = b.endpoint
			t.Cleanup(func() { endpoint = backends[0].endpoint })
			f(t, b)
		})
	}
}

// newClient returns a client of the test endpoint; opts add to its options.
func newClient(t testing.TB, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		t.Fatalf("aws config: %v", err)
	}
	opts = append([]func(*dynamodb.Options){func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) }}, opts...)
	return dynamodb.NewFromConfig(cfg, opts...)
}

// newStore returns a store on a fresh table of its own, deleted at the end.
func newStore(t testing.TB, client *dynamodb.Client) *store.Store {
	t.Helper()
	name := "mqprobe-test-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	s := store.New(client, name)
	info, err := s.EnsureTable(context.Background())
	if err != nil {
		t.Fatalf("ensure table: %v", err)
	}
	if !info.Created {
		t.Fatalf("table %s existed before the test", name)
	}
	t.Cleanup(func() {
		if _, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			t.Errorf("delete table %s: %v", name, err)
		}
	})
	return s
}

func factory(t testing.TB) idempotency.Store { return newStore(t, newClient(t)) }

// claim is a fresh claim on key made at now.
func claim(key, hash string, now time.Time) idempotency.Claim {
	return idempotency.Claim{PK: "PRODUCE#" + key, OperationType: "PRODUCE", IdempotencyKey: key,
		RequestHash: hash, LeaseToken: uuid.NewString(), Now: now, ExpiresAt: now.Add(24 * time.Hour),
		LeaseExpiresAt: now.Add(30 * time.Second), Target: "QM1:DEV.QUEUE.1", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"}
}
