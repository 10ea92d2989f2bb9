// Package testenv provides the servers tests need — started by the project's
// own scripts when the environment does not name one — and fails loudly,
// never skips, when they cannot be had.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	if dsn := os.Getenv(PostgresDSNEnv); dsn != "" {
		return dsn, func() {}, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "mqprobe-pg-")
	if err != nil {
		return "", nil, err
	}
	script := filepath.Join(root, "scripts", "postgres.sh")
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script, "start", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("PostgreSQL is neither given by %s nor startable (%s start): %w\n%s",
			PostgresDSNEnv, script, err, stderr.String())
	}
	stop = func() { _ = exec.Command("bash", script, "stop", dir).Run() }
	return strings.TrimSpace(string(out)), stop, nil
}

// DynamoDBEndpointEnv names the variable that points tests at a running
// DynamoDB-compatible endpoint.
const DynamoDBEndpointEnv = "MQPROBE_TEST_DYNAMODB_ENDPOINT"

// Dynalite returns the URL of a DynamoDB endpoint: the one in
// MQPROBE_TEST_DYNAMODB_ENDPOINT, or a private in-memory dynalite it starts
// with scripts/dynalite.sh. stop ends a server it started (and is a no-op
// otherwise).
func Dynalite() (endpoint string, stop func(), err error) {
	if endpoint := os.Getenv(DynamoDBEndpointEnv); endpoint != "" {
		return endpoint, func() {}, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "mqprobe-dynalite-")
	if err != nil {
		return "", nil, err
	}
	script := filepath.Join(root, "scripts", "dynalite.sh")
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script, "start", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		_ = exec.Command("bash", script, "stop", dir).Run()
		return "", nil, fmt.Errorf("DynamoDB is neither given by %s nor startable (%s start): %w\n%s",
			DynamoDBEndpointEnv, script, err, stderr.String())
	}
	stop = func() { _ = exec.Command("bash", script, "stop", dir).Run() }
	return strings.TrimSpace(string(out)), stop, nil
}

// AWSEndpointEnv names the variable that points tests at a running SQS/SNS
// endpoint (goaws or another emulator).
const AWSEndpointEnv = "MQPROBE_TEST_AWS_ENDPOINT"

// Goaws returns the endpoint of an SQS/SNS server: the one in
// MQPROBE_TEST_AWS_ENDPOINT, or a private goaws it starts with
// scripts/goaws.sh. stop ends a server it started (and is a no-op otherwise).
func Goaws() (endpoint string, stop func(), err error) {
	if endpoint := os.Getenv(AWSEndpointEnv); endpoint != "" {
		return endpoint, func() {}, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "mqprobe-goaws-")
	if err != nil {
		return "", nil, err
	}
	script := filepath.Join(root, "scripts", "goaws.sh")
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script, "start", dir)
	// The server outlives a test binary that dies before calling stop only
	// until it notices.
	cmd.Env = append(os.Environ(), fmt.Sprintf("MQPROBE_GOAWS_EXIT_WITH=%d", os.Getpid()))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		_ = exec.Command("bash", script, "stop", dir).Run()
		return "", nil, fmt.Errorf("SQS/SNS is neither given by %s nor startable (%s start): %w\n%s",
			AWSEndpointEnv, script, err, stderr.String())
	}
	stop = func() { _ = exec.Command("bash", script, "stop", dir).Run() }
	return strings.TrimSpace(string(out)), stop, nil
}
