package command

import (
	"cmp"

	"github.com/jmespath-community/go-jmespath"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// DefaultMaxBytes is the largest raw command accepted: the SQS message
// limit, applied to HTTP too so both transports accept the same commands.
const DefaultMaxBytes = 256 * 1024

// DecoderConfig configures a Decoder. The zero value is usable; it is the
// daemon's command section (yaml and desc tags: see internal/config).
type DecoderConfig struct {
	// MaxBytes caps the raw body, envelope included (default 262144).
	MaxBytes int `json:"maxBytes" yaml:"maxBytes" desc:"Largest raw command accepted, in bytes (the SQS limit)"`
	// KeyExpression is an optional JMESPath over the unwrapped message
	// yielding the idempotency key (the third key source, after the command and the transport).
	KeyExpression string `json:"keyExpression" yaml:"keyExpression" desc:"JMESPath expression over the unwrapped message giving the idempotency key (empty = none)"`
	// MissingKey is what happens to a command without a key.
	MissingKey MissingKeyConfig `json:"missingKey" yaml:"missingKey"`
}

// MissingKeyConfig is the policy for commands that carry no idempotency
// key, per transport.
type MissingKeyConfig struct {
	// Bus applies to bus commands (default messageId: redeliveries dedupe).
	Bus MissingKeyPolicy `json:"bus" yaml:"bus" desc:"Policy for bus commands without a key: reject, messageId, derive or generate"`
	// HTTP applies to HTTP commands (default generate: a retry without a
	// key runs again, as plain HTTP would).
	HTTP MissingKeyPolicy `json:"http" yaml:"http" desc:"Policy for HTTP commands without a key: reject, derive or generate"`
}

// DefaultDecoderConfig is the settings a zero DecoderConfig gets.
func DefaultDecoderConfig() DecoderConfig {
	return DecoderConfig{MaxBytes: DefaultMaxBytes, MissingKey: MissingKeyConfig{Bus: MissingKeyMessageID, HTTP: MissingKeyGenerate}}
}

func (c *DecoderConfig) setDefaults() {
	def := DefaultDecoderConfig()
	c.MaxBytes = cmp.Or(c.MaxBytes, def.MaxBytes)
	c.MissingKey.Bus = cmp.Or(c.MissingKey.Bus, def.MissingKey.Bus)
	c.MissingKey.HTTP = cmp.Or(c.MissingKey.HTTP, def.MissingKey.HTTP)
}

// Validate reports every invalid setting, each a *configcheck.FieldError
// naming its command key.
func (c DecoderConfig) Validate() error {
	var v configcheck.Errors
	v.Positive("command.maxBytes", c.MaxBytes)
	configcheck.OneOf(&v, "command.missingKey.bus", c.MissingKey.Bus, MissingKeyReject, MissingKeyMessageID, MissingKeyDerive, MissingKeyGenerate)
	// HTTP requests have no transport message id to fall back on.
	configcheck.OneOf(&v, "command.missingKey.http", c.MissingKey.HTTP, MissingKeyReject, MissingKeyDerive, MissingKeyGenerate)
	if c.KeyExpression != "" {
		if _, err := jmespath.Compile(c.KeyExpression); err != nil {
			v.Fail("command.keyExpression", "must be a JMESPath expression: %v", err)
		}
	}
	return v.Err()
}
