package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
)

// TestConfigPrintRedactsSecretsAndShowsOverrides: config print shows the
// file, the environment and the defaults as run would use them, and hides
// every secret.
func TestConfigPrintRedactsSecretsAndShowsOverrides(t *testing.T) {
	const (
		token      = "tok-5up3r-s3cr3t"
		dbPassword = "pg-pa55w0rd"
		mqUser     = "mq-app-user"
	)
	file := filepath.Join(t.TempDir(), "mqprobe.yaml")
	if err := os.WriteFile(file, []byte(`
idempotency:
  recordTTL: 2h
  store: postgres
  postgres:
    dsn: postgres://probe:`+dbPassword+`@127.0.0.1:5432/mqprobe
targets:
  profiles:
    qm1:
      queueManager: QM1
      queue: DEV.QUEUE.1
      auth:
        user: `+mqUser+`
        passwordRef: env:MQ_PASSWORD
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQPROBE_HTTP_AUTHTOKEN", token)
	t.Setenv("MQPROBE_HTTP_ADDR", "127.0.0.1:9191")
	t.Setenv("MQPROBE_TARGETS_PROFILES_QM1_QUEUE", "DEV.QUEUE.2")

	out, status := mqprobe(t, "config", "print", "--config", file)
	if status != 0 {
		t.Fatalf("config print: exit %d\n%s", status, out)
	}
	for _, secret := range []string{token, dbPassword, mqUser, "env:MQ_PASSWORD"} {
		if strings.Contains(out, secret) {
			t.Errorf("config print shows the secret %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"authToken: " + config.RedactedValue,                                        // environment, redacted
		"dsn: postgres://probe:" + config.RedactedValue + "@127.0.0.1:5432/mqprobe", // file, password redacted
		"addr: 127.0.0.1:9191",                                                      // environment
		"queue: DEV.QUEUE.2",                                                        // environment over the file's profile
		"recordTTL: 2h0m0s",                                                         // file
		"lease: 30s",                                                                // default
		"store: postgres",                                                           // file
		"table: mq-probe-idempotency",                                               // default
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config print lacks %q:\n%s", want, out)
		}
	}
}

// TestConfigPrintLoadsBack: without secrets, what config print shows is a
// configuration file that loads as the configuration it printed.
func TestConfigPrintLoadsBack(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mqprobe.yaml")
	if err := os.WriteFile(file, []byte(`
mode: aws
instanceId: probe-1
sqs:
  commandQueue: mqprobe-commands
results:
  snsTopicArn: arn:aws:sns:us-east-1:100010001000:mqprobe-results
targets:
  profiles:
    qm1:
      queueManager: QM1
      queue: DEV.QUEUE.1
      allowedQueues: [DEV.QUEUE.*]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQPROBE_IDEMPOTENCY_LEASE", "45s")
	out, status := mqprobe(t, "config", "print", "--config", file)
	if status != 0 {
		t.Fatalf("config print: exit %d\n%s", status, out)
	}
	printed := filepath.Join(t.TempDir(), "printed.yaml")
	if err := os.WriteFile(printed, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	reloaded, err := config.Load(printed, nil)
	if err != nil {
		t.Fatalf("the printed configuration does not load: %v\n%s", err, out)
	}
	if reloaded.Idempotency.Lease.String() != "45s" || reloaded.Idempotency.Store != config.StoreDynamoDB ||
		reloaded.Targets.Profiles["qm1"].AllowedQueues[0] != "DEV.QUEUE.*" {
		t.Errorf("printed configuration lost the environment, the mode defaults or the file:\n%s", out)
	}
	// Printed lists and nil lists load alike: compare as printed.
	again, status := mqprobe(t, "config", "print", "--config", printed)
	if status != 0 || again != out {
		t.Errorf("printing the printed configuration (exit %d) gives\n%s\nwant\n%s", status, again, out)
	}
}

func TestConfigPrintRefusesAnInvalidConfiguration(t *testing.T) {
	t.Setenv("MQPROBE_HTTP_ADR", "127.0.0.1:9191")
	out, status := mqprobe(t, "config", "print")
	if status != 2 || out != "" {
		t.Errorf("config print with an unknown variable: exit %d, output %q; want exit 2 and no output", status, out)
	}
}
