package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/responder"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// FieldError is one broken rule: Key is the dotted key, Rule what it must be.
type FieldError = configcheck.FieldError

// instanceIDMax bounds instanceId, which names records and event sources.
const instanceIDMax = 128

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
	v.Add(c.Command.Validate())
	c.validateResults(v)
	v.Add(c.Tests.Validate())
	v.Add(c.Consume.Validate())
	c.validateTargets(v)
	v.Add(responder.Validate(c.Responders, slices.Collect(maps.Keys(c.Targets.Profiles))))
	v.Add(c.Secrets.Validate())
	c.validateBus(v)
	v.PositiveDuration("aws.checkInterval", c.AWS.CheckInterval)
	c.validateLimits(v)
	configcheck.OneOf(v, "log.level", c.Log.Level, "debug", "info", "warn", "error")
	configcheck.OneOf(v, "log.format", c.Log.Format, "json", "text")
	return v.Err()
}

// validateHTTP checks the http section, its tenants against
// targets.profiles, and that it accepts the commands command.maxBytes does.
func (c *Config) validateHTTP(v *configcheck.Errors) {
	v.Add(c.HTTP.Validate())
	v.Add(tenant.ValidateTokens(c.HTTP.Tokens, slices.Collect(maps.Keys(c.Targets.Profiles))))
	if c.HTTP.MaxBodyBytes > 0 && c.HTTP.MaxBodyBytes < c.Command.MaxBytes {
		v.Fail("http.maxBodyBytes", "must be at least command.maxBytes (%d) (got %d)", c.Command.MaxBytes, c.HTTP.MaxBodyBytes)
	}
}

// validateIdempotency checks the engine and the settings of the store in use.
func (c *Config) validateIdempotency(v *configcheck.Errors) {
	id := c.Idempotency
	configcheck.OneOf(v, "idempotency.store", id.Store, StoreSQLite, StorePostgres, StoreDynamoDB, StoreMemory)
	v.Add(id.Config.Validate())
	v.PositiveDuration("idempotency.cleanupInterval", id.CleanupInterval)
	switch id.Store {
	case StoreSQLite:
		v.Add(id.SQLite.Validate())
	case StorePostgres:
		v.Add(id.Postgres.Validate())
	case StoreDynamoDB:
		v.Add(id.DynamoDB.Validate())
	}
}

// validateMQ checks the MQ backend, its queue managers and pool.
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

// validateResults checks the results keys, each where it belongs, and
// that aws mode has somewhere to publish.
func (c *Config) validateResults(v *configcheck.Errors) {
	r := c.Results
	v.Add(r.ReplayConfig.Validate())
	v.Add(r.RecentConfig.Validate())
	v.Add(r.RejectedConfig.Validate())
	v.Add(r.ResultsSettings.Validate())
	v.Add(r.PublisherConfig.Validate())
	if c.Mode == ModeAWS && r.TopicARN == "" && r.QueueURL == "" {
		v.Fail("results.snsTopicArn", "results.snsTopicArn or results.sqsQueue is required when mode is aws")
	}
}

// validateLimits checks what admission enforces, and that CONSUME fits it.
func (c *Config) validateLimits(v *configcheck.Errors) {
	l := c.Limits
	v.Add(l.Config.Validate())
	v.Positive("limits.commandQueue", l.CommandQueue)
	// CONSUME's footprint is its capture limit: one that never fits would
	// refuse every CONSUME.
	if l.MaxInFlightBytes > 0 && int64(c.Consume.MaxBytes) > l.MaxInFlightBytes {
		v.Fail("consume.captureMaxBytes", "must not exceed limits.maxInFlightBytes (%d) (got %d)", l.MaxInFlightBytes, c.Consume.MaxBytes)
	}
}

// validateTargets checks the targets section, and what of it depends on
// the MQ backend: the embedded one connects nowhere and has only its own
// queue managers; a real one must never be told by a command to connect to
// an arbitrary host.
func (c *Config) validateTargets(v *configcheck.Errors) {
	v.Add(c.Targets.Validate())
	if c.Targets.InlineAllowed() && c.MQ.Backend == BackendIBMMQ && len(c.Targets.Inline.Hosts) == 0 {
		v.Fail("targets.inline.hosts", "required when targets.allowInline is true and mq.backend is ibmmq: list the host or host:port patterns inline targets may reach (docs/security.md#target-profiles-and-allowlists), or set targets.allowInline false and use targets.profiles")
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

// validateBus checks how commands arrive over SQS and come back.
func (c *Config) validateBus(v *configcheck.Errors) {
	s := c.SQS
	if c.Mode == ModeAWS && s.CommandQueue == "" {
		v.Fail("sqs.commandQueue", "required when mode is aws")
	}
	v.Add(s.Validate())
	// The executor's redelivery delay becomes an SQS visibility timeout.
	if d := c.Bus.RetryDelay; d < 0 || d > awsbus.MaxVisibilityTimeout {
		v.Fail("bus.nackDelay", "must be between 0s and 12h (got %s)", configcheck.FormatDuration(d))
	}
}
