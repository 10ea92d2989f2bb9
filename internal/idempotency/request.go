package idempotency

import (
	"fmt"
	"time"
)

// Argument names used in ArgumentError.
const (
	ArgOperationType  = "operationType"
	ArgTenant         = "tenant"
	ArgIdempotencyKey = "idempotencyKey"
	ArgRequestHash    = "requestHash"
	ArgTTL            = "ttl"
)

// MaxKeyLength is the longest idempotency key accepted.
const MaxKeyLength = 255

// Request asks the engine to claim one command.
type Request struct {
	OperationType string // e.g. PRODUCE
	// Tenant scopes the record (see PK); empty for the implicit tenant.
	Tenant         string
	IdempotencyKey string // 1–255 printable ASCII characters
	RequestHash    string // fingerprint of the command, see command.RequestHash
	Target         string // "QM1:DEV.QUEUE.1", kept for audit
	TraceID        string
	// ReadOnly says running the command changes nothing (DEPTH,
	// CONNECTION_TEST, a CONSUME that browses): running it again after a
	// crash costs a second answer, never a second effect. Its claim may be
	// answered before it is durable; its completion never is.
	ReadOnly bool

	ttl        time.Duration
	ttlSet     bool
	decideOnly bool
}

// DecideOnly returns r for a Begin that claims nothing: a command that may
// not run now (no room, over its rate) learns whether its record decides
// it all the same (Replay, Conflict, InProgress), and is otherwise
// answered Claimable with nothing written.
func (r Request) DecideOnly() Request {
	r.decideOnly = true
	return r
}

// WithTTL returns r with a per-call record TTL, clamped to the engine's
// maximum. A TTL that is not positive is rejected by Begin.
func (r Request) WithTTL(ttl time.Duration) Request {
	r.ttl, r.ttlSet = ttl, true
	return r
}

// PK is the record key, see PK.
func (r Request) PK() string { return PK(r.OperationType, r.Tenant, r.IdempotencyKey) }

// PK joins an operation type, a tenant and an idempotency key into a record
// key: <operationType>#<key> for the implicit tenant (tenant ""), and
// <operationType>@<tenant>#<key> for a named one. Operation types hold no
// '@' and tenant names no '#', so what precedes the first '#' tells the
// scopes apart whatever the key holds: two tenants' keys never meet.
func PK(operationType, tenant, key string) string {
	if tenant == "" {
		return operationType + "#" + key
	}
	return operationType + "@" + tenant + "#" + key
}

func (r Request) validate() error {
	if err := ValidateKey(r.IdempotencyKey); err != nil {
		return err
	}
	if err := validateScope(r.OperationType, r.Tenant); err != nil {
		return err
	}
	if r.RequestHash == "" {
		return &ArgumentError{Arg: ArgRequestHash, Rule: "must not be empty"}
	}
	if len(r.RequestHash) > 128 {
		return &ArgumentError{Arg: ArgRequestHash, Rule: "must be at most 128 characters"}
	}
	if r.ttlSet && r.ttl <= 0 {
		return &ArgumentError{Arg: ArgTTL, Rule: fmt.Sprintf("must be positive (got %s)", r.ttl)}
	}
	return nil
}

// validateScope checks the parts of a pk besides the key.
func validateScope(operationType, tenant string) error {
	if err := validateOperationType(operationType); err != nil {
		return err
	}
	return validateTenant(tenant)
}

func validateOperationType(operationType string) error {
	if operationType == "" {
		return &ArgumentError{Arg: ArgOperationType, Rule: "must not be empty"}
	}
	for _, c := range operationType {
		if !(c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9') {
			return &ArgumentError{Arg: ArgOperationType, Rule: fmt.Sprintf("must be upper-case letters, digits and '_' (found %q)", c)}
		}
	}
	return nil
}

func validateTenant(tenant string) error {
	for _, c := range tenant {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return &ArgumentError{Arg: ArgTenant, Rule: fmt.Sprintf("must be lower-case letters, digits and '-' (found %q)", c)}
		}
	}
	return nil
}

// ValidateKey checks an idempotency key: 1–255 printable ASCII characters.
func ValidateKey(key string) error {
	if key == "" {
		return &ArgumentError{Arg: ArgIdempotencyKey, Rule: "must not be empty"}
	}
	if len(key) > MaxKeyLength {
		return &ArgumentError{Arg: ArgIdempotencyKey, Rule: fmt.Sprintf("must be at most %d characters (got %d)", MaxKeyLength, len(key))}
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			return &ArgumentError{Arg: ArgIdempotencyKey, Rule: fmt.Sprintf("must be printable ASCII (byte 0x%02x at offset %d)", c, i)}
		}
	}
	return nil
}
