package config

import (
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// FieldError is one broken rule: Key is the dotted key, Rule what it must be.
type FieldError = configcheck.FieldError

// Limits imposed by SQS, so bad values fail at start and not at the first
// command.
const (
	sqsMaxBatch   = 10 // ReceiveMessage MaxNumberOfMessages
	instanceIDMax = 128
)

var (
	dynamoTableRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)
)

// Validate checks every setting and reports every broken rule (joined
// *FieldError values), each naming the dotted key.
func (c *Config) Validate() error {
	v := &configcheck.Errors{}
	configcheck.OneOf(v, "mode", c.Mode, ModeEmbedded, ModeAWS)
	switch {
	case c.InstanceID == "":
		v.Fail("instanceId", "must not be empty")
	case len(c.InstanceID) > instanceIDMax || strings.IndexFunc(c.InstanceID, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
		v.Fail("instanceId", "must be at most %d printable characters without spaces (got %q)", instanceIDMax, c.InstanceID)
	}
	c.validateHTTP(v)
	c.validateIdempotency(v)
	c.validateMQ(v)
	c.validateCommand(v)
	c.validateTargets(v)
	v.NonNegativeDuration("secrets.cacheTTL", c.Secrets.CacheTTL)
	c.validateBus(v)
	c.validateLimits(v)
	configcheck.OneOf(v, "log.level", c.Log.Level, "debug", "info", "warn", "error")
	configcheck.OneOf(v, "log.format", c.Log.Format, "json", "text")
	return v.Err()
}

func (c *Config) validateHTTP(v *configcheck.Errors) {
	h := c.HTTP
	host, port, err := net.SplitHostPort(h.Addr)
	if p, perr := strconv.Atoi(port); err != nil || perr != nil || p < 0 || p > 65535 {
		v.Fail("http.addr", "must be host:port (got %q)", h.Addr)
	} else if !isLoopback(host) && h.AuthToken == "" && len(h.Tokens) == 0 && h.TLS.ClientCAFile == "" {
		// Any bind beyond loopback needs a bearer token or mTLS.
		v.Fail("http.authToken", "required (or http.tokens, or http.tls.clientCAFile for mTLS) when http.addr is not a loopback address (got %q)", h.Addr)
	}
	v.Add(tenant.ValidateTokens(h.Tokens, slices.Collect(maps.Keys(c.Targets.Profiles))))
	for i, entry := range h.AllowedHosts {
		if !isHostEntry(entry) {
			v.Fail(fmt.Sprintf("http.allowedHosts[%d]", i), "must be a host name or IP address, optionally with :port, as a Host header carries it (got %q)", entry)
		}
	}
	if (h.TLS.CertFile == "") != (h.TLS.KeyFile == "") {
		v.Fail("http.tls.keyFile", "http.tls.certFile and http.tls.keyFile go together")
	}
	if h.TLS.ClientCAFile != "" && h.TLS.CertFile == "" {
		v.Fail("http.tls.clientCAFile", "needs http.tls.certFile and http.tls.keyFile: client certificates are asked for only over TLS")
	}
	v.Positive("http.maxBodyBytes", h.MaxBodyBytes)
	if h.MaxBodyBytes > 0 && h.MaxBodyBytes < c.Command.MaxBytes {
		v.Fail("http.maxBodyBytes", "must be at least command.maxBytes (%d) (got %d)", c.Command.MaxBytes, h.MaxBodyBytes)
	}
	v.NonNegativeDuration("http.readTimeout", h.ReadTimeout)
	v.NonNegativeDuration("http.writeTimeout", h.WriteTimeout)
	v.PositiveDuration("http.shutdownTimeout", h.ShutdownTimeout)
	v.PositiveDuration("http.inProgressWait", h.InProgressWait)
	v.PositiveDuration("tests.maxDuration", c.Tests.MaxDuration)
	if c.Tests.MaxConcurrent < 1 {
		v.Fail("tests.maxConcurrent", "must be at least 1 (got %d)", c.Tests.MaxConcurrent)
	}
}

// hostNameRE is a DNS name as a Host header carries it: dot-separated
// labels of letters, digits, - and _, an optional root dot.
var hostNameRE = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?$`)

// isHostEntry reports whether entry is "host", "host:port", "[v6]" or
// "[v6]:port" with a name or IP address and a port 1-65535.
func isHostEntry(entry string) bool {
	host, port, err := net.SplitHostPort(entry)
	if err != nil {
		host, port = entry, ""
		if strings.HasPrefix(entry, "[") && strings.HasSuffix(entry, "]") {
			host = entry[1 : len(entry)-1]
		}
	}
	if port != "" {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return false
		}
	}
	if ip := net.ParseIP(host); ip != nil {
		return true
	}
	return len(host) <= 253 && hostNameRE.MatchString(host)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Config) validateIdempotency(v *configcheck.Errors) {
	id := c.Idempotency
	configcheck.OneOf(v, "idempotency.store", id.Store, StoreSQLite, StorePostgres, StoreDynamoDB, StoreMemory)
	v.Add(id.Config.Validate())
	v.PositiveDuration("idempotency.cleanupInterval", id.CleanupInterval)
	switch id.Store {
	case StoreSQLite:
		if id.SQLite.Path == "" {
			v.Fail("idempotency.sqlite.path", "required when idempotency.store is sqlite")
		}
		configcheck.OneOf(v, "idempotency.sqlite.synchronous", id.SQLite.Synchronous, SQLiteSynchronousFull, SQLiteSynchronousNormal)
	case StorePostgres:
		if id.Postgres.DSN == "" {
			v.Fail("idempotency.postgres.dsn", "required when idempotency.store is postgres")
		}
	case StoreDynamoDB:
		if !dynamoTableRE.MatchString(id.DynamoDB.Table) {
			v.Fail("idempotency.dynamodb.table", "must be a DynamoDB table name, 3-255 of A-Z a-z 0-9 _ . - (got %q)", id.DynamoDB.Table)
		}
	}
}

func (c *Config) validateMQ(v *configcheck.Errors) {
	configcheck.OneOf(v, "mq.backend", c.MQ.Backend, BackendEmbedded, BackendIBMMQ)
	qms := c.MQ.Embedded.QueueManagers
	if c.MQ.Backend == BackendEmbedded && len(qms) == 0 {
		v.Fail("mq.embedded.queueManagers", "at least one queue manager is required when mq.backend is embedded")
	}
	v.Add(c.MQ.Embedded.ValidateAt("mq.embedded.queueManagers"))
	for i, qm := range qms {
		// The daemon's policy, not IBM MQ's: every message a queue accepts
		// must fit (the simulator may set less, to provoke 2056).
		if qm.MaxBytes < int64(qm.MaxMsgLength) {
			v.Fail(fmt.Sprintf("mq.embedded.queueManagers[%d].maxBytes", i), "must be at least maxMsgLength (%d), so one message of the largest size fits (got %d)", qm.MaxMsgLength, qm.MaxBytes)
		}
	}
	v.Add(c.MQ.Pool.Validate())
}

func (c *Config) validateCommand(v *configcheck.Errors) {
	v.Add(c.Command.Validate())

	r := c.Results
	configcheck.OneOf(v, "results.replay", r.Replay, executor.ReplayRepublish, executor.ReplayDrop)
	v.NonNegative("results.recent", r.Recent)
	v.NonNegative("results.recentMaxBytes", r.RecentMaxBytes)
	v.NonNegative("results.maxRawBodyBytes", r.MaxRawBodyBytes)
	v.Positive("results.maxReplyBytes", r.MaxReplyBytes)
	if r.SNSTopicARN != "" && !strings.HasPrefix(r.SNSTopicARN, "arn:") {
		v.Fail("results.snsTopicArn", "must be an ARN, arn:aws:sns:<region>:<account>:<topic> (got %q)", r.SNSTopicARN)
	}
	if c.Mode == ModeAWS && r.SNSTopicARN == "" && r.SQSQueue == "" {
		v.Fail("results.snsTopicArn", "results.snsTopicArn or results.sqsQueue is required when mode is aws")
	}

	cs := c.Consume
	v.NonNegative("consume.captureMaxBytes", cs.CaptureMaxBytes)
	v.NonNegative("consume.captureMaxMessageBytes", cs.CaptureMaxMessageBytes)
	if cs.CaptureMaxMessageBytes > cs.CaptureMaxBytes {
		v.Fail("consume.captureMaxMessageBytes", "must not exceed consume.captureMaxBytes (%d) (got %d)", cs.CaptureMaxBytes, cs.CaptureMaxMessageBytes)
	}
}

func (c *Config) validateLimits(v *configcheck.Errors) {
	l := c.Limits
	v.Add(l.Config.Validate())
	v.Positive("limits.commandQueue", l.CommandQueue)
	// CONSUME's footprint is its capture limit: one that never fits would
	// refuse every CONSUME.
	if l.MaxInFlightBytes > 0 && int64(c.Consume.CaptureMaxBytes) > l.MaxInFlightBytes {
		v.Fail("consume.captureMaxBytes", "must not exceed limits.maxInFlightBytes (%d) (got %d)", l.MaxInFlightBytes, c.Consume.CaptureMaxBytes)
	}
}

// validateTargets checks the targets section, and what of it depends on
// the MQ backend: the embedded one connects nowhere and has only its own
// queue managers; a real one must never be told by a command to connect to
// an arbitrary host.
func (c *Config) validateTargets(v *configcheck.Errors) {
	v.Add(c.Targets.Validate())
	if c.Targets.InlineAllowed() && c.MQ.Backend == BackendIBMMQ && len(c.Targets.Inline.Hosts) == 0 {
		v.Fail("targets.inline.hosts", "required when targets.allowInline is true and mq.backend is ibmmq: list the host or host:port patterns inline targets may reach")
	}
	embeddedQueues := map[string][]string{}
	for _, qm := range c.MQ.Embedded.QueueManagers {
		queues := qm.Queues.Names()
		for _, a := range qm.Aliases {
			queues = append(queues, a.Name)
		}
		for _, r := range qm.Remotes {
			queues = append(queues, r.Name)
		}
		embeddedQueues[qm.Name] = queues
	}
	for _, name := range slices.Sorted(maps.Keys(c.Targets.Profiles)) {
		p, key := c.Targets.Profiles[name], "targets.profiles."+name
		switch c.MQ.Backend {
		case BackendIBMMQ:
			if p.CCDTURL == "" && (p.ConnName == "" || p.Channel == "") {
				v.Fail(key+".connName", "channel and connName, or ccdtUrl, are required when mq.backend is ibmmq")
			}
		case BackendEmbedded:
			for _, f := range []struct {
				key string
				set bool
			}{{"connName", p.ConnName != ""}, {"channel", p.Channel != ""}, {"ccdtUrl", p.CCDTURL != ""}, {"ssl.enabled", p.SSL.Enabled}} {
				if f.set {
					v.Fail(key+"."+f.key, "the embedded MQ backend connects nowhere: connName, channel, ccdtUrl and ssl need mq.backend ibmmq")
				}
			}
			queues, ok := embeddedQueues[p.QueueManager]
			if p.QueueManager != "" && !ok {
				v.Fail(key+".queueManager", "must name a queue manager of mq.embedded.queueManagers when mq.backend is embedded (got %q)", p.QueueManager)
			}
			if ok && p.Queue != "" && !slices.Contains(queues, p.Queue) {
				v.Fail(key+".queue", "must be a queue of embedded queue manager %s (got %q)", p.QueueManager, p.Queue)
			}
		}
	}
}

func (c *Config) validateBus(v *configcheck.Errors) {
	s := c.SQS
	if c.Mode == ModeAWS && s.CommandQueue == "" {
		v.Fail("sqs.commandQueue", "required when mode is aws")
	}
	v.Between("sqs.waitTimeSeconds", s.WaitTimeSeconds, 0, awsbus.MaxWaitTimeSeconds)
	v.Between("sqs.maxMessages", s.MaxMessages, 1, sqsMaxBatch)
	// SQS counts visibility in whole seconds, up to 12 hours.
	if s.VisibilityTimeout < 0 || s.VisibilityTimeout > awsbus.MaxVisibilityTimeout || s.VisibilityTimeout%time.Second != 0 {
		v.Fail("sqs.visibilityTimeout", "must be whole seconds between 0s and 12h (got %s)", configcheck.FormatDuration(s.VisibilityTimeout))
	}
	v.PositiveDuration("aws.checkInterval", c.AWS.CheckInterval)
	if d := c.Bus.NackDelay; d < 0 || d > awsbus.MaxVisibilityTimeout {
		v.Fail("bus.nackDelay", "must be between 0s and 12h (got %s)", configcheck.FormatDuration(d))
	}
}
