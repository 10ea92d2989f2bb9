package dynamodb

import (
	"regexp"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// Config is the idempotency.dynamodb section. The endpoint, region and
// credentials come from the standard AWS variables and files.
type Config struct {
	Table string `yaml:"table" desc:"DynamoDB table (hash key pk, TTL attribute ttl)"`
}

// DefaultConfig is the section's built-in value.
func DefaultConfig() Config { return Config{Table: DefaultTable} }

// tableNameRE is DynamoDB's rule for table names.
var tableNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)

// Validate checks the section, naming the idempotency.dynamodb key.
func (c Config) Validate() error {
	var v configcheck.Errors
	if !tableNameRE.MatchString(c.Table) {
		v.Fail("idempotency.dynamodb.table", "must be a DynamoDB table name, 3-255 of A-Z a-z 0-9 _ . - (got %q)", c.Table)
	}
	return v.Err()
}
