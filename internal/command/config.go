package command

import (
	"errors"
	"fmt"

	"github.com/jmespath-community/go-jmespath"
)

// DefaultMaxBytes is the largest raw command accepted: the SQS message
// limit, applied to HTTP too so both transports accept the same commands.
const DefaultMaxBytes = 256 * 1024

// DecoderConfig configures a Decoder. The zero value is usable.
type DecoderConfig struct {
	// MaxBytes caps the raw body, envelope included (default 262144).
	MaxBytes int `json:"maxBytes" yaml:"maxBytes"`
	// KeyExpression is an optional JMESPath over the unwrapped message
	// yielding the idempotency key (the third key source, after the command and the transport).
	KeyExpression string `json:"keyExpression" yaml:"keyExpression"`
	// MissingKeyBus applies to bus commands without a key (default
	// messageId: redeliveries dedupe).
	MissingKeyBus MissingKeyPolicy `json:"missingKeyBus" yaml:"missingKeyBus"`
	// MissingKeyHTTP applies to HTTP commands without a key (default
	// generate: a retry without a key runs again, as plain HTTP would).
	MissingKeyHTTP MissingKeyPolicy `json:"missingKeyHTTP" yaml:"missingKeyHTTP"`
}

func (c *DecoderConfig) setDefaults() {
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MissingKeyBus == "" {
		c.MissingKeyBus = MissingKeyMessageID
	}
	if c.MissingKeyHTTP == "" {
		c.MissingKeyHTTP = MissingKeyGenerate
	}
}

// Validate reports every invalid setting; unset ones take their defaults.
func (c DecoderConfig) Validate() error {
	var errs []error
	if c.MaxBytes < 0 {
		errs = append(errs, fmt.Errorf("maxBytes: must be >= 0 (0: default %d), got %d", DefaultMaxBytes, c.MaxBytes))
	}
	if c.MissingKeyBus != "" && !c.MissingKeyBus.Valid() {
		errs = append(errs, fmt.Errorf("missingKeyBus: unknown policy %q (want reject, messageId, derive or generate)", c.MissingKeyBus))
	}
	if c.MissingKeyHTTP != "" && !c.MissingKeyHTTP.Valid() {
		errs = append(errs, fmt.Errorf("missingKeyHTTP: unknown policy %q (want reject, messageId, derive or generate)", c.MissingKeyHTTP))
	}
	if c.MissingKeyHTTP == MissingKeyMessageID {
		// HTTP requests carry no message id: every keyless one would fail.
		errs = append(errs, errors.New("missingKeyHTTP: messageId needs a message id, which HTTP requests lack"))
	}
	if c.KeyExpression != "" {
		if _, err := jmespath.Compile(c.KeyExpression); err != nil {
			errs = append(errs, fmt.Errorf("keyExpression: %w", err))
		}
	}
	return errors.Join(errs...)
}
