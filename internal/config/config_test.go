package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/admission"
	"github.com/mqprobe/mqprobe/internal/apidoc"
	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// writeYAML puts text in a temporary file and returns its path.
func writeYAML(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mqprobe.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustLoad loads or fails the test.
func mustLoad(t *testing.T, path string, env ...string) *Config {
	t.Helper()
	c, err := Load(path, env)
	if err != nil {
		t.Fatalf("Load(%q, %q): %v", path, env, err)
	}
	return c
}

// wantErr fails unless err's text holds every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestDefaultIsValidAndDocumented(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Default().Validate(): %v", err)
	}
	if !regexp.MustCompile(`^.+-[0-9a-f]{6}$`).MatchString(c.InstanceID) {
		t.Errorf("instanceId = %q, want <hostname>-<6 hex>", c.InstanceID)
	}
	allow := true
	want := &Config{
		Mode:       "embedded",
		InstanceID: c.InstanceID,
		HTTP: httpapi.Settings{Addr: "127.0.0.1:8080", MaxBodyBytes: 300000, ReadTimeout: 10 * time.Second,
			WriteTimeout: 30 * time.Second, ShutdownTimeout: 30 * time.Second, InProgressWait: 10 * time.Second},
		Console: ConsoleConfig{Enabled: true},
		Idempotency: IdempotencyConfig{Store: "sqlite", Config: idempotency.Config{Enabled: new(true), RecordTTL: 24 * time.Hour,
			MaxRecordTTL: 720 * time.Hour, Lease: 30 * time.Second, CheckpointWait: time.Minute, LocalCacheSize: 0}, CleanupInterval: time.Hour,
			SQLite: sqlstore.SQLiteConfig{Path: "./data/mqprobe.db", Synchronous: "FULL"}, DynamoDB: dynamodb.Config{Table: "mq-probe-idempotency"}},
		MQ: MQConfig{
			Backend: "embedded",
			Embedded: embedded.Config{QueueManagers: []embedded.QueueManagerConfig{{Name: "QM1",
				Queues:   embedded.QueueNames("DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE"),
				MaxDepth: 5000, MaxMsgLength: 4194304, MaxBytes: 134217728, MaxUncommittedMsgs: 10000}}},
			Pool: mq.PoolConfig{MaxConnsPerTarget: 8, MaxIdlePerTarget: 2, IdleTimeout: 5 * time.Minute, MaxWait: 5 * time.Second},
		},
		Command: command.DecoderConfig{MaxBytes: 262144, MissingKey: command.MissingKeyConfig{Bus: "messageId", HTTP: "generate"}},
		Results: ResultsConfig{ReplayConfig: executor.ReplayConfig{Replay: "republish"},
			RecentConfig:    result.RecentConfig{Recent: 1000, RecentMaxBytes: 33554432},
			ResultsSettings: httpapi.ResultsSettings{MaxReplyBytes: 4194304}, RejectedConfig: executor.RejectedConfig{MaxRawBodyBytes: 4096}},
		Consume: handlers.CaptureLimits{MaxBytes: 131072, MaxMessageBytes: 4096},
		Tests:   handlers.TestLimits{MaxConcurrent: 4, MaxDuration: time.Hour},
		Targets: targets.Settings{AllowInline: &allow, RateLimit: targets.RateLimitConfig{Burst: 10}},
		Limits: LimitsConfig{Config: admission.Config{MaxConcurrentCommands: 64, MaxInFlightBytes: 134217728, AdmissionWait: 2 * time.Second},
			CommandQueue: 100},
		Secrets: secrets.Config{CacheTTL: 5 * time.Minute},
		SQS:     awsbus.SubscriberConfig{WaitTimeSeconds: 20, VisibilityTimeout: 60 * time.Second, MaxMessages: 10},
		AWS:     AWSConfig{CheckInterval: 30 * time.Second},
		Bus:     BusConfig{RetryConfig: executor.RetryConfig{RetryDelay: 5 * time.Second}},
		Log:     LogConfig{Level: "info", Format: "json"},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Default() =\n%+v\nwant\n%+v", c, want)
	}

	// No file and no environment is the same configuration.
	loaded := mustLoad(t, "")
	loaded.InstanceID = c.InstanceID
	if !reflect.DeepEqual(loaded, c) {
		t.Errorf("Load(\"\", nil) =\n%+v\nwant Default()\n%+v", loaded, c)
	}
	if Default().InstanceID == c.InstanceID {
		t.Error("two Default() calls share an instanceId; want a random suffix")
	}
}

func TestReadyFiles(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	loaded := 0
	for _, f := range files {
		// configs/ also holds CloudFormation templates and the generated API
		// documents; every other YAML file is a daemon configuration and
		// must load.
		// mqserver.yaml configures cmd/mqserver; its own package loads it.
		if data, err := os.ReadFile(f); err != nil || bytes.Contains(data, []byte("AWSTemplateFormatVersion")) ||
			bytes.Contains(data, []byte(apidoc.GeneratedHeader)) || filepath.Base(f) == "mqserver.yaml" {
			continue
		}
		loaded++
		t.Run(filepath.Base(f), func(t *testing.T) { mustLoad(t, f) })
	}
	if loaded < 3 {
		t.Fatalf("%d daemon configurations in configs/, want at least embedded, aws-local and aws", loaded)
	}

	t.Run("embedded.yaml spells out the defaults", func(t *testing.T) {
		c := mustLoad(t, "../../configs/embedded.yaml")
		d := Default()
		c.InstanceID = d.InstanceID
		c.Targets.Profiles = nil // "profiles: {}" is an empty map, the default a nil one
		if !reflect.DeepEqual(c, d) {
			t.Errorf("embedded.yaml =\n%+v\nwant Default()\n%+v", c, d)
		}
	})
	t.Run("aws-local.yaml", func(t *testing.T) {
		c := mustLoad(t, "../../configs/aws-local.yaml")
		if c.Mode != ModeAWS || c.Idempotency.Store != StoreDynamoDB || c.MQ.Backend != BackendEmbedded ||
			c.SQS.CommandQueue != "mqprobe-commands" {
			t.Errorf("aws-local.yaml: unexpected %+v", c)
		}
	})
	t.Run("aws.yaml", func(t *testing.T) {
		c := mustLoad(t, "../../configs/aws.yaml")
		p, ok := c.Targets.Profiles["qm1"]
		if c.Mode != ModeAWS || c.Idempotency.Store != StoreDynamoDB || c.MQ.Backend != BackendIBMMQ ||
			c.Targets.InlineAllowed() || !ok || p.Auth.PasswordRef != "secret://mqprobe/qm1#password" || c.Targets.RateLimit.CommandsPerSecond != 20 {
			t.Errorf("aws.yaml: unexpected %+v", c)
		}
	})
}

func TestFileOverlaysDefaults(t *testing.T) {
	c := mustLoad(t, writeYAML(t, `
http:
  readTimeout: 0s     # explicit zero survives
idempotency:
  localCacheSize: 50
mq:
  embedded:
    queueManagers:
      - name: QMA
        queues: [A, B]
`))
	if c.HTTP.ReadTimeout != 0 || c.HTTP.Addr != "127.0.0.1:8080" || c.Idempotency.LocalCacheSize != 50 ||
		c.Idempotency.RecordTTL != 24*time.Hour {
		t.Errorf("overlay: %+v", c)
	}
	qms := c.MQ.Embedded.QueueManagers
	if len(qms) != 1 || qms[0].Name != "QMA" || qms[0].MaxDepth != 5000 || qms[0].MaxMsgLength != 4194304 || qms[0].MaxBytes != 134217728 {
		t.Errorf("queueManagers = %+v, want QMA with default limits", qms)
	}
}

func TestModeDerivedDefaults(t *testing.T) {
	c := mustLoad(t, "", "MQPROBE_MODE=aws",
		"MQPROBE_SQS_COMMANDQUEUE=http://127.0.0.1:4100/000000000000/q",
		"MQPROBE_RESULTS_SQSQUEUE=results")
	if c.Idempotency.Store != StoreDynamoDB || c.Targets.InlineAllowed() {
		t.Errorf("aws mode: store %q, allowInline %v; want dynamodb, false", c.Idempotency.Store, c.Targets.InlineAllowed())
	}
	c = mustLoad(t, writeYAML(t, "mode: aws\nidempotency: {store: postgres, postgres: {dsn: postgres://x@h/db}}\n"+
		"targets: {allowInline: true}\nresults: {sqsQueue: r}\nsqs: {commandQueue: 'https://sqs/1/q'}\n"))
	if c.Idempotency.Store != StorePostgres || !c.Targets.InlineAllowed() {
		t.Errorf("explicit settings lost: store %q, allowInline %v", c.Idempotency.Store, c.Targets.InlineAllowed())
	}
}

func TestEnvOverrides(t *testing.T) {
	file := writeYAML(t, `
targets:
  profiles:
    qm-one:
      queueManager: QM1
      queue: DEV.QUEUE.1
`)
	c := mustLoad(t, file,
		"MQPROBE_HTTP_ADDR=127.0.0.1:9999",                        // string
		"MQPROBE_IDEMPOTENCY_RECORDTTL=1h30m",                     // duration, camelCase key
		"MQPROBE_IDEMPOTENCY_SQLITE_PATH=/tmp/x.db",               // nested
		"MQPROBE_MQ_POOL_MAXCONNSPERTARGET=3",                     // int
		"MQPROBE_IDEMPOTENCY_ENABLED=false",                       // bool
		"MQPROBE_TARGETS_ALLOWINLINE=false",                       // optional bool
		"MQPROBE_TARGETS_PROFILES_QM_ONE_ALLOWEDQUEUES=A, B,,C",   // list, map entry
		"MQPROBE_TARGETS_PROFILES_QM_ONE_AUTH_PASSWORDREF=env:PW", // map entry, nested
		"MQPROBE_TEST_POSTGRES_DSN=ignored",                       // allowlisted
		"MQPROBE_CONFIG=ignored",
		"AWS_REGION=eu-west-1", "OTEL_SERVICE_NAME=x", "HOME=/root", "NOEQUALS",
	)
	p := c.Targets.Profiles["qm-one"]
	switch {
	case c.HTTP.Addr != "127.0.0.1:9999":
		t.Errorf("http.addr = %q", c.HTTP.Addr)
	case c.Idempotency.RecordTTL != 90*time.Minute:
		t.Errorf("idempotency.recordTTL = %s", c.Idempotency.RecordTTL)
	case c.Idempotency.SQLite.Path != "/tmp/x.db":
		t.Errorf("idempotency.sqlite.path = %q", c.Idempotency.SQLite.Path)
	case c.MQ.Pool.MaxConnsPerTarget != 3:
		t.Errorf("mq.pool.maxConnsPerTarget = %d", c.MQ.Pool.MaxConnsPerTarget)
	case c.Idempotency.Deduplicates():
		t.Error("idempotency.enabled still true")
	case c.Targets.InlineAllowed():
		t.Error("targets.allowInline still true")
	case !reflect.DeepEqual(p.AllowedQueues, []string{"A", "B", "C"}):
		t.Errorf("allowedQueues = %q", p.AllowedQueues)
	case p.Auth.PasswordRef != "env:PW" || p.QueueManager != "QM1":
		t.Errorf("profile = %+v", p)
	}

	// The environment wins over the file.
	c = mustLoad(t, writeYAML(t, "log: {level: debug}\n"), "MQPROBE_LOG_LEVEL=warn")
	if c.Log.Level != "warn" {
		t.Errorf("log.level = %q, want the variable's warn", c.Log.Level)
	}
}

func TestEnvErrors(t *testing.T) {
	_, err := Load("", []string{"MQPROBE_HTTP_ADR=127.0.0.1:1"})
	wantErr(t, err, "MQPROBE_HTTP_ADR", "did you mean MQPROBE_HTTP_ADDR")

	_, err = Load("", []string{"MQPROBE_TARGETS_PROFILES_NOPE_QUEUE=Q"})
	wantErr(t, err, "MQPROBE_TARGETS_PROFILES_NOPE_QUEUE", "declared in the config file")

	for env, parts := range map[string][]string{
		"MQPROBE_HTTP_READTIMEOUT=10":        {"MQPROBE_HTTP_READTIMEOUT", "http.readTimeout", "duration"},
		"MQPROBE_RESULTS_RECENT=lots":        {"MQPROBE_RESULTS_RECENT", "results.recent", "integer"},
		"MQPROBE_IDEMPOTENCY_ENABLED=maybe":  {"MQPROBE_IDEMPOTENCY_ENABLED", "idempotency.enabled", "true or false"},
		"MQPROBE_TARGETS_ALLOWINLINE=sure":   {"MQPROBE_TARGETS_ALLOWINLINE", "targets.allowInline"},
		"MQPROBE_IDEMPOTENCY_STORE=redis":    {"idempotency.store", "must be one of sqlite, postgres, dynamodb, memory", `"redis"`},
		"MQPROBE_MQ_POOL_MAXCONNSPERTARGET=": {"MQPROBE_MQ_POOL_MAXCONNSPERTARGET", "integer"},
	} {
		_, err := Load("", []string{env})
		wantErr(t, err, parts...)
	}

	// Every bad variable is reported, not just the first.
	_, err = Load("", []string{"MQPROBE_A=1", "MQPROBE_B=2", "MQPROBE_LOG_LEVEL=x", "MQPROBE_RESULTS_RECENT=x"})
	wantErr(t, err, "MQPROBE_A:", "MQPROBE_B:", "MQPROBE_RESULTS_RECENT")

	// Two profiles whose names map to one variable cannot be told apart.
	file := writeYAML(t, "targets: {profiles: {a-b: {queueManager: QM1}, a_b: {queueManager: QM1}}}\n")
	_, err = Load(file, []string{"MQPROBE_TARGETS_PROFILES_A_B_QUEUE=DEV.QUEUE.1"})
	wantErr(t, err, "MQPROBE_TARGETS_PROFILES_A_B_QUEUE", "ambiguous")
}

func TestFileErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		parts      []string
	}{
		{"unknown key", "http:\n  adr: 127.0.0.1:1\n", []string{":2:", "http.adr", "unknown key (did you mean http.addr?)"}},
		{"key written out", "http:\n  address: 127.0.0.1:1\n", []string{":2:", "http.address: unknown key (did you mean http.addr?)"}},
		{"key misspelt written out", "http:\n  adress: 127.0.0.1:1\n", []string{":2:", "http.adress: unknown key (did you mean http.addr?)"}},
		{"section typo", "htpp:\n  addr: 127.0.0.1:1\n", []string{":1:", "htpp: unknown key (did you mean http?)"}},
		{"package section typo", "mq:\n  pol:\n    maxWait: 1s\n", []string{":2:", "mq.pol: unknown key (did you mean mq.pool?)"}},
		{"in a package's section", "mq:\n  pool:\n    maxwait: 1s\n", []string{":3:", "mq.pool.maxwait: unknown key (did you mean mq.pool.maxWait?)"}},
		{"in a package's inline keys", "idempotency:\n  leese: 1s\n", []string{":2:", "idempotency.leese: unknown key (did you mean idempotency.lease?)"}},
		{"unknown top-level key", "mode: embedded\n\nmodes: aws\n", []string{":3:", "modes: unknown key"}},
		{"wrong case", "idempotency:\n  recordTtl: 1h\n", []string{":2:", "idempotency.recordTtl", "did you mean idempotency.recordTTL"}},
		{"in a list entry", "mq:\n  embedded:\n    queueManagers:\n      - name: QM1\n        depth: 3\n",
			[]string{":5:", "mq.embedded.queueManagers[0].depth", "unknown key"}},
		{"in a profile", "targets:\n  profiles:\n    p:\n      queueManager: QM1\n      pasword: x\n",
			[]string{":5:", "targets.profiles.p.pasword", "unknown key"}},
		{"trust store", "targets:\n  profiles:\n    p:\n      ssl:\n        trustStoreRef: file:/etc/trust.p12\n",
			[]string{":5:", "targets.profiles.p.ssl.trustStoreRef", "not supported", "CA certificates", "ssl.keyStoreRef"}},
		{"duration as integer", "http:\n  readTimeout: 30\n", []string{":2:", "http.readTimeout", "duration"}},
		{"bad duration", "idempotency:\n  lease: soon\n", []string{"idempotency.lease", `"soon"`}},
		{"int as text", "results:\n  recent: many\n", []string{"results.recent", "integer"}},
		{"list as scalar", "mq:\n  embedded:\n    queueManagers:\n      - name: QM1\n        queues: Q1\n",
			[]string{"mq.embedded.queueManagers[0].queues", "list of strings"}},
		{"section as scalar", "http: yes\n", []string{":1:", "http", "must be a mapping"}},
		{"duplicate key", "log:\n  level: info\n  level: debug\n", []string{":3:", "log.level", "duplicate"}},
		{"not a mapping", "- a\n- b\n", []string{":1:", "(document): must be a mapping"}},
		{"two documents", "mode: embedded\n---\nmode: aws\n", []string{"one YAML document"}},
		{"syntax", "http: [\n", []string{"mqprobe.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeYAML(t, tc.yaml), nil)
			wantErr(t, err, append(tc.parts, "mqprobe.yaml")...)
		})
	}

	// A short key is a few edits from anything: no guess.
	_, err := Load(writeYAML(t, "http:\n  tlsConfig: {}\n"), nil)
	if wantErr(t, err, "http.tlsConfig: unknown key"); strings.Contains(err.Error(), "did you mean") {
		t.Errorf("error %q guesses", err)
	}

	// All unknown keys at once.
	_, err = Load(writeYAML(t, "a: 1\nb: 2\nhttp: {c: 3}\n"), nil)
	wantErr(t, err, "a: unknown", "b: unknown", "http.c: unknown")

	_, err = Load(filepath.Join(t.TempDir(), "missing.yaml"), nil)
	wantErr(t, err, "missing.yaml")

	// A file of comments only is all defaults.
	mustLoad(t, writeYAML(t, "# nothing\n"))
}

func TestValidateRules(t *testing.T) {
	cases := []struct {
		key    string
		mutate func(*Config)
		rule   string
	}{
		{"mode", func(c *Config) { c.Mode = "cloud" }, `must be one of embedded, aws (got "cloud")`},
		{"instanceId", func(c *Config) { c.InstanceID = "" }, "must not be empty"},
		{"instanceId", func(c *Config) { c.InstanceID = "a b" }, "without spaces"},
		{"http.addr", func(c *Config) { c.HTTP.Addr = "8080" }, `must be host:port (got "8080")`},
		{"http.addr", func(c *Config) { c.HTTP.Addr = "127.0.0.1:99999" }, "must be host:port"},
		{"http.authToken", func(c *Config) { c.HTTP.Addr = "0.0.0.0:8080" }, "required (or http.tokens, or http.tls.clientCAFile for mTLS) when http.addr is not a loopback address"},
		{"http.tls.keyFile", func(c *Config) { c.HTTP.TLS.CertFile = "server.pem" }, "go together"},
		{"http.tls.clientCAFile", func(c *Config) { c.HTTP.TLS.ClientCAFile = "ca.pem" }, "only over TLS"},
		{"http.authToken", func(c *Config) { c.HTTP.Addr = ":8080" }, "not a loopback"},
		{"http.maxBodyBytes", func(c *Config) { c.HTTP.MaxBodyBytes = 0 }, "greater than 0"},
		{"http.maxBodyBytes", func(c *Config) { c.HTTP.MaxBodyBytes = 1000 }, "at least command.maxBytes"},
		{"http.readTimeout", func(c *Config) { c.HTTP.ReadTimeout = -time.Second }, "negative"},
		{"http.writeTimeout", func(c *Config) { c.HTTP.WriteTimeout = -time.Second }, "negative"},
		{"http.shutdownTimeout", func(c *Config) { c.HTTP.ShutdownTimeout = 0 }, "greater than 0s"},
		{"idempotency.store", func(c *Config) { c.Idempotency.Store = "redis" }, `must be one of sqlite, postgres, dynamodb, memory (got "redis")`},
		{"idempotency.recordTTL", func(c *Config) { c.Idempotency.RecordTTL = 0 }, "greater than 0s"},
		{"idempotency.recordTTL", func(c *Config) { c.Idempotency.RecordTTL = 1000 * time.Hour }, "must not exceed idempotency.maxRecordTTL"},
		{"idempotency.maxRecordTTL", func(c *Config) { c.Idempotency.MaxRecordTTL = -1 }, "greater than 0s"},
		{"idempotency.lease", func(c *Config) { c.Idempotency.Lease = time.Millisecond }, "at least 30ms"},
		{"idempotency.localCacheSize", func(c *Config) { c.Idempotency.LocalCacheSize = -1 }, "negative"},
		{"idempotency.cleanupInterval", func(c *Config) { c.Idempotency.CleanupInterval = 0 }, "greater than 0s"},
		{"idempotency.sqlite.path", func(c *Config) { c.Idempotency.SQLite.Path = "" }, "required when idempotency.store is sqlite"},
		{"idempotency.sqlite.synchronous", func(c *Config) { c.Idempotency.SQLite.Synchronous = "OFF" }, `must be one of FULL, NORMAL (got "OFF")`},
		{"idempotency.postgres.dsn", func(c *Config) { c.Idempotency.Store = StorePostgres }, "required when idempotency.store is postgres"},
		{"idempotency.dynamodb.table", func(c *Config) { c.Idempotency.Store = StoreDynamoDB; c.Idempotency.DynamoDB.Table = "x" }, "DynamoDB table name"},
		{"mq.backend", func(c *Config) { c.MQ.Backend = "rabbit" }, "must be one of embedded, ibmmq"},
		{"mq.embedded.queueManagers", func(c *Config) { c.MQ.Embedded.QueueManagers = nil }, "at least one"},
		{"mq.embedded.queueManagers[0].name", func(c *Config) { c.MQ.Embedded.QueueManagers[0].Name = "" }, "required"},
		{"mq.embedded.queueManagers[1].name", func(c *Config) {
			c.MQ.Embedded.QueueManagers = append(c.MQ.Embedded.QueueManagers, c.MQ.Embedded.QueueManagers[0])
		}, "duplicate queue manager"},
		{"mq.embedded.queueManagers[0].queues[1]", func(c *Config) { c.MQ.Embedded.QueueManagers[0].Queues[1].Name = "BAD NAME" }, "MQ name"},
		{"mq.embedded.queueManagers[0].queues[1]", func(c *Config) { c.MQ.Embedded.QueueManagers[0].Queues[1].Name = "DEV.QUEUE.1" }, "duplicate queue"},
		{"mq.embedded.queueManagers[0].maxDepth", func(c *Config) { c.MQ.Embedded.QueueManagers[0].MaxDepth = -1 }, "between 1 and"},
		{"mq.embedded.queueManagers[0].maxMsgLength", func(c *Config) { c.MQ.Embedded.QueueManagers[0].MaxMsgLength = 200 << 20 }, "between 1 and 104857600"},
		{"mq.embedded.queueManagers[0].maxBytes", func(c *Config) { c.MQ.Embedded.QueueManagers[0].MaxBytes = -1 }, "must be at least maxMsgLength (4194304)"},
		{"mq.embedded.queueManagers[0].maxBytes", func(c *Config) { c.MQ.Embedded.QueueManagers[0].MaxBytes = 4194303 }, "so one message of the largest size fits (got 4194303)"},
		{"mq.embedded.queueManagers[0].maxUncommittedMsgs", func(c *Config) { c.MQ.Embedded.QueueManagers[0].MaxUncommittedMsgs = -1 }, "between 1 and 999999999"},
		{"mq.embedded.queueManagers[0].aliases[0].target", func(c *Config) {
			c.MQ.Embedded.QueueManagers[0].Aliases = []embedded.AliasQueueConfig{{Name: "A", Target: "NOWHERE"}}
		}, `"NOWHERE" must name a local queue or a remote definition of queue manager "QM1"`},
		{"mq.embedded.queueManagers[0].aliases[0].name", func(c *Config) {
			c.MQ.Embedded.QueueManagers[0].Aliases = []embedded.AliasQueueConfig{{Name: "DEV.QUEUE.2", Target: "DEV.QUEUE.1"}}
		}, `duplicate queue "DEV.QUEUE.2"`},
		{"mq.embedded.queueManagers[0].remotes[0].remoteQueueManager", func(c *Config) {
			c.MQ.Embedded.QueueManagers[0].Remotes = []embedded.RemoteQueueConfig{{Name: "R", RemoteQueue: "Q", RemoteQueueManager: "QM2"}}
		}, `transmission queue "QM2" must be a local queue of queue manager "QM1"`},
		{"mq.embedded.queueManagers[0].remotes[0].transmissionQueue", func(c *Config) {
			c.MQ.Embedded.QueueManagers[0].Remotes = []embedded.RemoteQueueConfig{{Name: "R", RemoteQueue: "Q", RemoteQueueManager: "QM2", TransmissionQueue: "XQ"}}
		}, `transmission queue "XQ"`},
		{"mq.embedded.queueManagers[0].remotes[0].remoteQueue", func(c *Config) {
			c.MQ.Embedded.QueueManagers[0].Remotes = []embedded.RemoteQueueConfig{{Name: "R", RemoteQueueManager: "QM2", TransmissionQueue: "DEV.QUEUE.3"}}
		}, "required"},
		{"mq.pool.maxConnsPerTarget", func(c *Config) { c.MQ.Pool.MaxConnsPerTarget = 0 }, "greater than 0"},
		{"mq.pool.maxIdlePerTarget", func(c *Config) { c.MQ.Pool.MaxIdlePerTarget = -1 }, "negative"},
		{"mq.pool.maxIdlePerTarget", func(c *Config) { c.MQ.Pool.MaxIdlePerTarget = 9 }, "must not exceed mq.pool.maxConnsPerTarget"},
		{"mq.pool.idleTimeout", func(c *Config) { c.MQ.Pool.IdleTimeout = -1 }, "negative"},
		{"command.maxBytes", func(c *Config) { c.Command.MaxBytes = 0 }, "greater than 0"},
		{"command.missingKey.bus", func(c *Config) { c.Command.MissingKey.Bus = "ignore" }, "reject, messageId, derive, generate"},
		{"command.missingKey.http", func(c *Config) { c.Command.MissingKey.HTTP = command.MissingKeyMessageID }, "reject, derive, generate"},
		// Found when the file loads, not when the daemon starts.
		{"command.keyExpression", func(c *Config) { c.Command.KeyExpression = "tags.[" }, "must be a JMESPath expression"},
		{"results.replay", func(c *Config) { c.Results.Replay = "again" }, "republish, drop"},
		{"results.recent", func(c *Config) { c.Results.Recent = -1 }, "negative"},
		{"results.maxRawBodyBytes", func(c *Config) { c.Results.MaxRawBodyBytes = -1 }, "negative"},
		{"results.snsTopicArn", func(c *Config) { c.Results.TopicARN = "topic" }, "must be an ARN"},
		{"results.snsTopicArn", func(c *Config) { c.Mode = ModeAWS; c.SQS.CommandQueue = "https://q" }, "required when mode is aws"},
		{"consume.captureMaxBytes", func(c *Config) { c.Consume.MaxBytes = -1 }, "negative"},
		{"consume.captureMaxMessageBytes", func(c *Config) { c.Consume.MaxMessageBytes = -1 }, "negative"},
		{"consume.captureMaxMessageBytes", func(c *Config) { c.Consume.MaxMessageBytes = 1 << 20 }, "must not exceed consume.captureMaxBytes"},
		{"targets.profiles.bad name", func(c *Config) { setProfile(c, "bad name", targets.ProfileConfig{QueueManager: "QM1"}) }, "profile name"},
		{"targets.profiles.p.queueManager", func(c *Config) { setProfile(c, "p", targets.ProfileConfig{}) }, "required"},
		{"targets.profiles.p.queueManager", func(c *Config) { setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM9"}) }, "mq.embedded.queueManagers"},
		{"targets.profiles.p.queue", func(c *Config) { setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", Queue: "NOPE"}) }, "queue of embedded queue manager QM1"},
		{"targets.profiles.p.allowedQueues[0]", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", AllowedQueues: []string{""}})
		}, "non-empty pattern"},
		{"targets.profiles.p.allowedQueues[1]", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", AllowedQueues: []string{"DEV.*", "BAD QUEUE"}})
		}, "pattern of name characters, * and ?"},
		{"targets.profiles.p.rateLimit.commandsPerSecond", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", RateLimit: targets.ProfileRateLimit{CommandsPerSecond: -1}})
		}, "negative"},
		{"targets.inline.hosts", func(c *Config) { c.MQ.Backend = BackendIBMMQ }, "required when targets.allowInline is true and mq.backend is ibmmq"},
		{"targets.inline.hosts[0]", func(c *Config) { c.Targets.Inline.Hosts = []string{"mq host:1414"} }, "pattern"},
		{"targets.inline.queues[0]", func(c *Config) { c.Targets.Inline.Queues = []string{""} }, "non-empty pattern"},
		{"targets.rateLimit.burst", func(c *Config) { c.Targets.RateLimit.Burst = -1 }, "negative"},
		{"secrets.cacheTTL", func(c *Config) { c.Secrets.CacheTTL = -time.Second }, "negative"},
		{"targets.profiles.p.channel", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", Channel: "A.CHANNEL.NAME.TOO.LONG"})
		}, "at most 20"},
		{"targets.profiles.p.connName", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", ConnName: "host(1414"})
		}, "host(port)"},
		{"targets.profiles.p.connName", func(c *Config) {
			c.MQ.Backend = BackendIBMMQ
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1"})
		}, "required when mq.backend is ibmmq"},
		{"targets.profiles.p.connName", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", ConnName: "169.254.169.254(80)"})
		}, "the embedded MQ backend connects nowhere: connName, channel, ccdtUrl and ssl need mq.backend ibmmq"},
		{"targets.profiles.p.channel", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", Channel: "DEV.APP.SVRCONN"})
		}, "the embedded MQ backend connects nowhere"},
		{"targets.profiles.p.ccdtUrl", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", CCDTURL: "https://config.example.com/ccdt/qm1.json"})
		}, "the embedded MQ backend connects nowhere"},
		{"targets.profiles.p.ssl.enabled", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", SSL: targets.SSLConfig{Enabled: true, CipherSpec: "ANY_TLS13", KeyStoreRef: "file:/k"}})
		}, "the embedded MQ backend connects nowhere"},
		{"targets.profiles.p.ssl.cipherSpec", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", SSL: targets.SSLConfig{Enabled: true, KeyStoreRef: "file:/k"}})
		}, "required when ssl.enabled"},
		{"targets.profiles.p.ssl.keyStoreRef", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", SSL: targets.SSLConfig{Enabled: true, CipherSpec: "ANY_TLS13"}})
		}, "required when ssl.enabled"},
		{"targets.profiles.p.ssl.keyStoreRef", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", SSL: targets.SSLConfig{KeyStoreRef: "/etc/key"}})
		}, "must be a reference"},
		{"targets.profiles.p.auth.passwordRef", func(c *Config) {
			setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", Auth: targets.AuthConfig{PasswordRef: "hunter2"}})
		}, "must be a reference env:NAME, file:/path or secret://name"},
		{"sqs.commandQueue", func(c *Config) { c.Mode = ModeAWS; c.Results.QueueURL = "r" }, "required when mode is aws"},
		{"sqs.waitTimeSeconds", func(c *Config) { c.SQS.WaitTimeSeconds = 21 }, "between 0 and 20"},
		{"sqs.maxMessages", func(c *Config) { c.SQS.MaxMessages = 0 }, "between 1 and 10"},
		{"sqs.visibilityTimeout", func(c *Config) { c.SQS.VisibilityTimeout = 1500 * time.Millisecond }, "whole seconds"},
		{"sqs.visibilityTimeout", func(c *Config) { c.SQS.VisibilityTimeout = 13 * time.Hour }, "12h"},
		{"bus.nackDelay", func(c *Config) { c.Bus.RetryDelay = -time.Second }, "between 0s and 12h"},
		{"log.level", func(c *Config) { c.Log.Level = "trace" }, "debug, info, warn, error"},
		{"log.format", func(c *Config) { c.Log.Format = "xml" }, "json, text"},
	}
	for _, tc := range cases {
		t.Run(tc.key+" "+tc.rule, func(t *testing.T) {
			c := Default()
			tc.mutate(c)
			err := c.Validate()
			if !hasFieldError(err, tc.key, tc.rule) {
				t.Errorf("Validate() = %v; want a *FieldError for %s containing %q", err, tc.key, tc.rule)
			}
		})
	}

	// Every broken rule is reported at once.
	c := Default()
	c.Mode, c.HTTP.Addr, c.Log.Format = "x", "8080", "xml"
	wantErr(t, c.Validate(), "mode:", "http.addr:", "log.format:")

	// Loopback names and a token-protected public bind are fine.
	for _, addr := range []string{"localhost:1", "[::1]:8080", "127.0.0.2:80"} {
		c := Default()
		c.HTTP.Addr = addr
		if err := c.Validate(); err != nil {
			t.Errorf("http.addr %q: %v", addr, err)
		}
	}
	c = Default()
	c.HTTP.Addr, c.HTTP.AuthToken = "0.0.0.0:8080", "t"
	if err := c.Validate(); err != nil {
		t.Errorf("public bind with a token: %v", err)
	}
}

// TestEmbeddedProfileNamingAConnection: start-up refuses a profile saying
// how to connect when the embedded backend connects nowhere, naming each key;
// with the ibmmq backend the same profile loads.
func TestEmbeddedProfileNamingAConnection(t *testing.T) {
	profile := "  profiles:\n    qm1:\n      queueManager: QM1\n      queue: DEV.QUEUE.1\n      channel: DEV.APP.SVRCONN\n      connName: 169.254.169.254(80)\n"
	_, err := Load(writeYAML(t, "targets:\n"+profile), nil)
	wantErr(t, err, "targets.profiles.qm1.connName: the embedded MQ backend connects nowhere", "targets.profiles.qm1.channel: ", "need mq.backend ibmmq")
	mustLoad(t, writeYAML(t, "mq:\n  backend: ibmmq\ntargets:\n  allowInline: false\n"+profile))
}

// hasFieldError reports whether err joins a *FieldError for key whose rule
// contains rule.
func hasFieldError(err error, key, rule string) bool {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return false
	}
	for _, e := range joined.Unwrap() {
		var fe *FieldError
		if errors.As(e, &fe) && fe.Key == key && strings.Contains(fe.Rule, rule) && fe.Error() == key+": "+fe.Rule {
			return true
		}
	}
	return false
}

func setProfile(c *Config, name string, p targets.ProfileConfig) {
	if c.Targets.Profiles == nil {
		c.Targets.Profiles = map[string]targets.ProfileConfig{}
	}
	c.Targets.Profiles[name] = p
}

func TestRedacted(t *testing.T) {
	c := Default()
	c.HTTP.AuthToken = "tok-123"
	c.HTTP.Tokens = map[string]tenant.Config{"team-a": {TokenRef: "env:TEAM_A_TOKEN"}}
	setProfile(c, "p", targets.ProfileConfig{QueueManager: "QM1", AllowedQueues: []string{"DEV.QUEUE.1"},
		Auth: targets.AuthConfig{User: "app", PasswordRef: "env:PW"}})
	setProfile(c, "q", targets.ProfileConfig{QueueManager: "QM1"})

	for dsn, want := range map[string]string{
		"postgres://u:s3cret@db:5432/x?sslmode=disable":  "postgres://u:REDACTED@db:5432/x?sslmode=disable",
		"postgres://u@db/x?password=s3cret":              "postgres://u@db/x?password=REDACTED",
		"host=db user=u password=s3cret dbname=x":        "host=db user=u password=REDACTED dbname=x",
		"host=db password='s3 cret' dbname=x":            "host=db password=REDACTED dbname=x",
		"postgres://u@db/x":                              "postgres://u@db/x",
		"postgres://u:s3cret@db:bad%zz/x":                "REDACTED",
		"host=db user=u PASSWORD = s3cret sslmode=allow": "host=db user=u PASSWORD = REDACTED sslmode=allow",
	} {
		c.Idempotency.Postgres.DSN = dsn
		r := c.Redacted()
		if got := r.Idempotency.Postgres.DSN; got != want || strings.Contains(got, "s3") {
			t.Errorf("dsn %q redacted to %q, want %q", dsn, got, want)
		}
	}

	r := c.Redacted()
	if r.HTTP.AuthToken != "REDACTED" || r.HTTP.Tokens["team-a"].TokenRef != "REDACTED" || r.Targets.Profiles["p"].Auth.User != "REDACTED" ||
		r.Targets.Profiles["p"].Auth.PasswordRef != "REDACTED" {
		t.Errorf("secrets left: %+v", r)
	}
	if r.Targets.Profiles["q"].Auth.User != "" {
		t.Error("an empty secret should stay empty, so it still reads as unset")
	}
	// The original is untouched and shares nothing with the copy.
	if c.HTTP.AuthToken != "tok-123" || c.Targets.Profiles["p"].Auth.User != "app" {
		t.Errorf("Redacted changed the original: %+v", c)
	}
	r.Targets.Profiles["p"].AllowedQueues[0] = "X"
	r.MQ.Embedded.QueueManagers[0].Queues[0].Name = "X"
	*r.Targets.AllowInline = false
	if c.Targets.Profiles["p"].AllowedQueues[0] != "DEV.QUEUE.1" || c.MQ.Embedded.QueueManagers[0].Queues[0].Name != "DEV.QUEUE.1" ||
		!c.Targets.InlineAllowed() {
		t.Error("Redacted copy shares memory with the original")
	}
	// Every key tagged secret is hidden.
	for _, k := range Keys() {
		if k.Secret && !strings.Contains("http.authToken http.tokens.<name>.tokenRef idempotency.postgres.dsn targets.profiles.<name>.auth.user targets.profiles.<name>.auth.passwordRef", k.Key) {
			t.Errorf("unexpected secret key %s", k.Key)
		}
	}
}

func TestKeysCoverEveryLeaf(t *testing.T) {
	keys := Keys()
	if n := countLeaves(reflect.TypeFor[Config]()); len(keys) != n {
		t.Errorf("Keys() lists %d keys, Config has %d leaf fields", len(keys), n)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.Key] {
			t.Errorf("key %s listed twice", k.Key)
		}
		seen[k.Key] = true
		if k.Desc == "" {
			t.Errorf("key %s has no desc tag", k.Key)
		}
		if k.Type == "" {
			t.Errorf("key %s has no type", k.Key)
		}
		switch {
		case strings.Contains(k.Key, "[]"):
			if k.Env != "" {
				t.Errorf("list entry key %s has variable %s", k.Key, k.Env)
			}
		case strings.Contains(k.Key, "<name>"):
			if want := strings.Replace(EnvName(strings.Replace(k.Key, "<name>", "name", 1)), "_NAME_", "_<NAME>_", 1); k.Env != want {
				t.Errorf("key %s: env %s, want %s", k.Key, k.Env, want)
			}
		default:
			if k.Env != EnvName(k.Key) {
				t.Errorf("key %s: env %s, want %s", k.Key, k.Env, EnvName(k.Key))
			}
		}
	}
	want := map[string]Key{
		"idempotency.recordTTL":   {Type: "duration", Default: "24h", Env: "MQPROBE_IDEMPOTENCY_RECORDTTL"},
		"http.addr":               {Type: "string", Default: "127.0.0.1:8080", Env: "MQPROBE_HTTP_ADDR"},
		"idempotency.sqlite.path": {Type: "string", Default: "./data/mqprobe.db", Env: "MQPROBE_IDEMPOTENCY_SQLITE_PATH"},
		"idempotency.enabled":     {Type: "bool", Default: "true", Env: "MQPROBE_IDEMPOTENCY_ENABLED"},
		"mq.embedded.queueManagers[].queues": {Type: "[]string",
			Default: "DEV.QUEUE.1,DEV.QUEUE.2,DEV.QUEUE.3,DEV.DEAD.LETTER.QUEUE"},
		"targets.profiles.<name>.auth.passwordRef": {Type: "string",
			Env: "MQPROBE_TARGETS_PROFILES_<NAME>_AUTH_PASSWORDREF", Secret: true},
	}
	for _, k := range keys {
		if w, ok := want[k.Key]; ok {
			w.Key, w.Desc = k.Key, k.Desc
			if k != w {
				t.Errorf("Keys() entry %+v, want %+v", k, w)
			}
			delete(want, k.Key)
		}
	}
	for k := range want {
		t.Errorf("Keys() lacks %s", k)
	}
}

// countLeaves counts the yaml-tagged fields that are not sections, on the
// type alone, as an independent check of walk.
func countLeaves(t reflect.Type) int {
	n := 0
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		switch {
		case tag == "" || tag == "-":
			continue
		case tag == ",inline":
			n += countLeaves(f.Type)
			continue
		}
		if f.Tag.Get("type") != "" { // a leaf of a shape of its own
			n++
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Map || ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			n += countLeaves(ft)
		} else {
			n++
		}
	}
	return n
}

func TestEmbeddedDefinitionsReachTheQueueManager(t *testing.T) {
	c := Default()
	qm := &c.MQ.Embedded.QueueManagers[0]
	qm.Queues = append(qm.Queues, embedded.QueueConfig{Name: "QM2"})
	qm.Aliases = []embedded.AliasQueueConfig{{Name: "APP.ALIAS", Target: "DEV.QUEUE.1"}}
	qm.Remotes = []embedded.RemoteQueueConfig{{Name: "APP.REMOTE", RemoteQueue: "APP.IN", RemoteQueueManager: "QM2"}}
	qm.MaxUncommittedMsgs = 7
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := embedded.New(c.MQ.Embedded)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := b.Connect(t.Context(), mq.Target{QueueManager: "QM1"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, want := range map[string]mq.QueueInfo{
		"APP.ALIAS":  {Name: "APP.ALIAS", Type: mq.QueueAlias, BaseQueue: "DEV.QUEUE.1"},
		"APP.REMOTE": {Name: "APP.REMOTE", Type: mq.QueueRemote, RemoteQueue: "APP.IN", RemoteQueueManager: "QM2"},
	} {
		got, err := mq.InquireQueue(t.Context(), conn, name)
		if err != nil || got != want {
			t.Errorf("inquire %s: %+v, %v; want %+v", name, got, err, want)
		}
	}
}

// TestQueuesWithLimitsOfTheirOwn: the daemon reads the one queue-manager
// schema the simulator reads, a queue's own limits included.
func TestQueuesWithLimitsOfTheirOwn(t *testing.T) {
	c := mustLoad(t, writeYAML(t, "mq:\n  embedded:\n    queueManagers:\n      - name: QM1\n        maxDepth: 10\n"+
		"        queues: [A, {name: B, maxDepth: 20}]\n"))
	qm := c.MQ.Embedded.QueueManagers[0]
	want := embedded.Queues{{Name: "A"}, {Name: "B", MaxDepth: 20}}
	if !reflect.DeepEqual(qm.Queues, want) || qm.MaxDepth != 10 {
		t.Errorf("queue manager %+v, want queues %+v and maxDepth 10", qm, want)
	}
	_, err := Load(writeYAML(t, "mq:\n  embedded:\n    queueManagers:\n      - name: QM1\n        queues: [{name: B, maxDepth: 0x}]\n"), nil)
	wantErr(t, err, ":5:", "mq.embedded.queueManagers[0].queues", "entry 0", "maxDepth")
	_, err = Load(writeYAML(t, "mq:\n  embedded:\n    queueManagers:\n      - name: QM1\n        queues: [{name: B, maxDepth: -1}]\n"), nil)
	wantErr(t, err, "mq.embedded.queueManagers[0].queues[0].maxDepth: must be between 1 and 999999999 (got -1)")
}

// TestEveryPackagesRulesAtOnce: one Load reports the broken rules of every
// package's section and those spanning sections together, each naming its
// key.
func TestEveryPackagesRulesAtOnce(t *testing.T) {
	_, err := Load(writeYAML(t, "mq:\n  pool:\n    maxWait: -1s\nidempotency:\n  lease: 1ms\ncommand:\n  maxBytes: 0\n"+
		"limits:\n  admissionWait: 0s\n  maxInFlightBytes: 1000\nsqs:\n  maxMessages: 11\ntests:\n  maxConcurrent: 0\nsecrets:\n  cacheTTL: -1s\n"+
		"targets:\n  rateLimit:\n    burst: -1\nhttp:\n  tokens:\n    Bad: {tokenRef: env:X}\n"), nil)
	wantErr(t, err, "mq.pool.maxWait: must be greater than 0s (got -1s)", "idempotency.lease: must be at least 30ms (got 1ms)",
		"command.maxBytes: must be greater than 0 (got 0)", "consume.captureMaxBytes: must not exceed limits.maxInFlightBytes (1000)",
		"limits.admissionWait: must be greater than 0s", "sqs.maxMessages: must be between 1 and 10 (got 11)",
		"tests.maxConcurrent: must be at least 1 (got 0)", "secrets.cacheTTL: must not be negative (got -1s)",
		"targets.rateLimit.burst: must not be negative (got -1)", "http.tokens.Bad: tenant name must be")
}
