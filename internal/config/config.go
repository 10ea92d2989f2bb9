package config

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/admission"
	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/dynamodb"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/responder"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// Modes.
const (
	ModeEmbedded = "embedded"
	ModeAWS      = "aws"
)

// Idempotency stores.
const (
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
	StoreDynamoDB = "dynamodb"
	StoreMemory   = "memory"
)

// MQ backends.
const (
	BackendEmbedded = "embedded"
	BackendIBMMQ    = "ibmmq"
)

// Config is the whole daemon configuration: a section typed by another
// package is that package's Config, the rest is the daemon's own. Field
// tags: yaml is the key (camelCase; ",inline" splices a package's keys into
// a section), desc the one-line description of the key listing, secret
// marks values Redacted hides ("dsn" hides only a DSN's password), default
// documents a default that depends on other settings, and type names the
// type of a leaf that reads its own YAML (embedded.Queues).
type Config struct {
	Mode        string                  `yaml:"mode" desc:"Deployment mode: embedded (in-process bus, zero setup) or aws (SQS/SNS/DynamoDB)"`
	InstanceID  string                  `yaml:"instanceId" desc:"Name of this process in result events (source mqprobe/<instanceId>) and records" default:"<hostname>-<6 random hex>"`
	HTTP        httpapi.Settings        `yaml:"http"`
	Console     ConsoleConfig           `yaml:"console"`
	Idempotency IdempotencyConfig       `yaml:"idempotency"`
	MQ          MQConfig                `yaml:"mq"`
	Command     command.DecoderConfig   `yaml:"command"`
	Results     ResultsConfig           `yaml:"results"`
	Consume     handlers.CaptureLimits  `yaml:"consume"`
	Tests       handlers.TestLimits     `yaml:"tests"`
	Targets     targets.Settings        `yaml:"targets"`
	Responders  []responder.Config      `yaml:"responders"`
	Limits      LimitsConfig            `yaml:"limits"`
	Secrets     secrets.Config          `yaml:"secrets"`
	SQS         awsbus.SubscriberConfig `yaml:"sqs"`
	AWS         AWSConfig               `yaml:"aws"`
	Bus         BusConfig               `yaml:"bus"`
	Log         LogConfig               `yaml:"log"`
}

// ConsoleConfig is the web console the HTTP API serves at / and /ui/.
type ConsoleConfig struct {
	Enabled bool `yaml:"enabled" desc:"Serve the web console at / and /ui/ on http.addr; its pages read the API with the same token, mTLS and tenant scoping"`
}

// IdempotencyConfig is the idempotency engine and its store.
type IdempotencyConfig struct {
	// Config is the engine's own settings.
	idempotency.Config `yaml:",inline"`
	Store              string                  `yaml:"store" desc:"Record store: sqlite, postgres, dynamodb or memory" default:"sqlite in embedded mode, dynamodb in aws mode"`
	CleanupInterval    time.Duration           `yaml:"cleanupInterval" desc:"How often SQL and memory stores delete expired records (DynamoDB expires them by TTL)"`
	SQLite             sqlstore.SQLiteConfig   `yaml:"sqlite"`
	Postgres           sqlstore.PostgresConfig `yaml:"postgres"`
	DynamoDB           dynamodb.Config         `yaml:"dynamodb"`
}

// MQConfig selects and tunes the MQ backend.
type MQConfig struct {
	Backend  string          `yaml:"backend" desc:"MQ backend: embedded (in-process queue manager) or ibmmq (IBM MQ client, build tag ibmmq)"`
	Embedded embedded.Config `yaml:"embedded"`
	Pool     mq.PoolConfig   `yaml:"pool"`
}

// ResultsConfig is where result events go and what is kept of them; each
// key belongs to the package applying it (the inline order is the keys').
type ResultsConfig struct {
	executor.ReplayConfig   `yaml:",inline"`
	result.RecentConfig     `yaml:",inline"`
	httpapi.ResultsSettings `yaml:",inline"`
	awsbus.PublisherConfig  `yaml:",inline"`
	executor.RejectedConfig `yaml:",inline"`
}

// LimitsConfig bounds the work the daemon takes on at once, whoever sends it.
type LimitsConfig struct {
	// Config is what admission enforces.
	admission.Config `yaml:",inline"`
	CommandQueue     int `yaml:"commandQueue" desc:"Commands POST /commands holds queued or executing (embedded mode); more get 429 with Retry-After"`
}

// BusConfig is how the command bus redelivers.
type BusConfig struct {
	executor.RetryConfig `yaml:",inline"`
}

// AWSConfig is how aws mode watches the AWS resources it uses.
type AWSConfig struct {
	CheckInterval time.Duration `yaml:"checkInterval" desc:"aws mode: how long a check that sqs.commandQueue, the results topic or queue and the DynamoDB table exist and are usable holds for readiness before it is made again"`
}

// LogConfig is the slog logger.
type LogConfig struct {
	Level  string `yaml:"level" desc:"Log level: debug, info, warn or error"`
	Format string `yaml:"format" desc:"Log format: json or text"`
}

// defaults is the built-in configuration before the mode-dependent settings
// are resolved (see setDefaults). The values that a package's own Config
// also defaults come from that package, so the two never disagree. Load starts from it and overlays the file and
// the environment, so explicit zero values (writeTimeout: 0) survive.
func defaults() *Config {
	return &Config{
		Mode:    ModeEmbedded,
		HTTP:    httpapi.DefaultSettings(),
		Console: ConsoleConfig{Enabled: true},
		Idempotency: IdempotencyConfig{
			Config:          idempotency.DefaultConfig(),
			CleanupInterval: time.Hour,
			SQLite:          sqlstore.DefaultSQLiteConfig(),
			DynamoDB:        dynamodb.DefaultConfig(),
		},
		MQ: MQConfig{
			Backend:  BackendEmbedded,
			Embedded: embedded.Config{QueueManagers: []embedded.QueueManagerConfig{embedded.DefaultQueueManagerConfig()}},
			Pool:     mq.DefaultPoolConfig(),
		},
		Command: command.DefaultDecoderConfig(),
		Results: ResultsConfig{
			ReplayConfig:    executor.ReplayConfig{Replay: executor.ReplayRepublish},
			RecentConfig:    result.DefaultRecentConfig(),
			ResultsSettings: httpapi.ResultsSettings{MaxReplyBytes: httpapi.DefaultMaxReplyBytes},
			RejectedConfig:  executor.RejectedConfig{MaxRawBodyBytes: executor.DefaultMaxRawBodyBytes},
		},
		Tests:   handlers.DefaultTestLimits(),
		Consume: handlers.DefaultCaptureLimits(),
		SQS:     awsbus.DefaultSubscriberConfig(),
		AWS:     AWSConfig{CheckInterval: 30 * time.Second},
		Bus:     BusConfig{RetryConfig: executor.RetryConfig{RetryDelay: executor.DefaultRetryDelay}},
		Log:     LogConfig{Level: "info", Format: "json"},
		Targets: targets.DefaultSettings(),
		Limits:  LimitsConfig{Config: admission.DefaultConfig(), CommandQueue: 100},
		Secrets: secrets.Config{CacheTTL: secrets.DefaultCacheTTL},
	}
}

// Default returns the built-in configuration: embedded mode, valid with no
// file and no environment.
func Default() *Config {
	c := defaults()
	c.setDefaults()
	return c
}

// setDefaults fills what depends on other settings or is left zero inside
// list entries the file wrote: the store and inline targets follow the mode,
// a queue manager without limits gets the embedded backend's defaults.
func (c *Config) setDefaults() {
	if c.InstanceID == "" {
		c.InstanceID = defaultInstanceID()
	}
	if c.Idempotency.Store == "" {
		c.Idempotency.Store = StoreSQLite
		if c.Mode == ModeAWS {
			c.Idempotency.Store = StoreDynamoDB
		}
	}
	if c.Targets.AllowInline == nil {
		allow := c.Mode != ModeAWS
		c.Targets.AllowInline = &allow
	}
	for i := range c.MQ.Embedded.QueueManagers {
		c.MQ.Embedded.QueueManagers[i].SetDefaults()
	}
}

// defaultInstanceID is the hostname plus a short random suffix, so two
// processes on one host (or two pods from one template) still differ.
func defaultInstanceID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "mqprobe"
	}
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return host + "-" + hex.EncodeToString(b[:])
}
