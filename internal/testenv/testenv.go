// Package testenv provides the servers tests need — started by the project's
// own scripts when the environment does not name one — and fails loudly,
// never skips, when they cannot be had; and the fixtures several packages'
// tests share: a certificate authority, a goroutine-safe buffer, waiting
// on a condition (Until, Eventually) instead of sleeping, building the
// programs they run (BuildProgram).
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// RepoRoot is the directory holding go.mod, found from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// PostgresDSNEnv names the variable that points tests at a running PostgreSQL.
const PostgresDSNEnv = "MQPROBE_TEST_POSTGRES_DSN"

// Postgres returns a DSN for a PostgreSQL server: the one in
// MQPROBE_TEST_POSTGRES_DSN, or a private one it starts with
// scripts/postgres.sh. stop ends a server it started (and is a no-op
// otherwise).
func Postgres() (dsn string, stop func(), err error) {
	return givenOrPrivate(PostgresDSNEnv, "postgres", "PostgreSQL")
}

// givenOrPrivate returns the endpoint the variable env names, or that of a
// private server it starts with scripts/<name>.sh.
func givenOrPrivate(env, name, what string) (endpoint string, stop func(), err error) {
	if endpoint := os.Getenv(env); endpoint != "" {
		return endpoint, func() {}, nil
	}
	p, err := StartPrivate(name)
	if err != nil {
		return "", nil, fmt.Errorf("%s is neither given by %s nor startable: %w", what, env, err)
	}
	return p.Endpoint, p.Stop, nil
}

// DynamoDBEndpointEnv names the variable that points tests at a running
// DynamoDB-compatible endpoint.
const DynamoDBEndpointEnv = "MQPROBE_TEST_DYNAMODB_ENDPOINT"

// Dynalite returns the URL of a DynamoDB endpoint: the one in
// MQPROBE_TEST_DYNAMODB_ENDPOINT, or a private in-memory dynalite it starts
// with scripts/dynalite.sh. stop ends a server it started (and is a no-op
// otherwise).
func Dynalite() (endpoint string, stop func(), err error) {
	return givenOrPrivate(DynamoDBEndpointEnv, "dynalite", "DynamoDB")
}

// AWSEndpointEnv names the variable that points tests at a running SQS/SNS
// endpoint (goaws or another emulator).
const AWSEndpointEnv = "MQPROBE_TEST_AWS_ENDPOINT"

// Goaws returns the endpoint of an SQS/SNS server: the one in
// MQPROBE_TEST_AWS_ENDPOINT, or a private goaws it starts with
// scripts/goaws.sh. stop ends a server it started (and is a no-op otherwise).
func Goaws() (endpoint string, stop func(), err error) {
	return givenOrPrivate(AWSEndpointEnv, "goaws", "SQS/SNS")
}

// MotoEndpointEnv names the variable that points tests at a running moto
// server: the second, independent AWS emulator (SQS, SNS, DynamoDB,
// EventBridge, Secrets Manager, CloudFormation behind one endpoint).
const MotoEndpointEnv = "MQPROBE_TEST_MOTO_ENDPOINT"

// Moto returns the endpoint of a moto server: the one in
// MQPROBE_TEST_MOTO_ENDPOINT, or a private one it starts with
// scripts/moto.sh (which installs moto with pip where the machine has none,
// and fails when it cannot). stop ends a server it started (and is a no-op
// otherwise).
func Moto() (endpoint string, stop func(), err error) {
	return givenOrPrivate(MotoEndpointEnv, "moto", "moto")
}
