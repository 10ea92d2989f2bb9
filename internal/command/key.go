package command

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/gowebpki/jcs"
)

// KeySource says where a command's idempotency key came from.
type KeySource string

// Key sources, in precedence order.
const (
	KeyFromCommand    KeySource = "command"    // idempotencyKey in the command
	KeyFromMetadata   KeySource = "metadata"   // Idempotency-Key header or message attribute
	KeyFromExpression KeySource = "expression" // configured JMESPath over the message
	KeyFromEventID    KeySource = "eventId"    // EventBridge event id
	KeyFromMessageID  KeySource = "messageId"  // SNS or SQS message id (missing-key policy)
	KeyDerived        KeySource = "derived"    // the request hash (missing-key policy)
	KeyGenerated      KeySource = "generated"  // a fresh UUID (missing-key policy)
)

// MissingKeyPolicy decides the key of a command no source gave one.
type MissingKeyPolicy string

// Missing-key policies.
const (
	// MissingKeyReject rejects the command with MISSING_KEY.
	MissingKeyReject MissingKeyPolicy = "reject"
	// MissingKeyMessageID uses the SNS MessageId, else the SQS message id:
	// redeliveries of one message dedupe, resends do not.
	MissingKeyMessageID MissingKeyPolicy = "messageId"
	// MissingKeyDerive uses the request hash: equal commands dedupe.
	MissingKeyDerive MissingKeyPolicy = "derive"
	// MissingKeyGenerate uses a fresh UUID: nothing dedupes.
	MissingKeyGenerate MissingKeyPolicy = "generate"
)

// Valid reports whether p is a known policy.
func (p MissingKeyPolicy) Valid() bool {
	switch p {
	case MissingKeyReject, MissingKeyMessageID, MissingKeyDerive, MissingKeyGenerate:
		return true
	}
	return false
}

const maxKeyLength = 255

// keyRequest is what key resolution looks at.
type keyRequest struct {
	command map[string]any // the validated command
	// exprInput is the unwrapped message as sent (no defaults), already
	// converted by jmespathValue; nil without an expression.
	exprInput   any
	env         envelope
	in          Input
	policy      MissingKeyPolicy
	requestHash string
}

// resolveKey takes the first key found and checks it.
func (d *Decoder) resolveKey(r keyRequest) (string, KeySource, *ValidationError) {
	metadata, from := r.metadataKey()
	if k, ok := r.command["idempotencyKey"].(string); ok {
		// The schema already checked it. The transport's key, when there
		// is one, must be the same: two keys are a sender's mistake that
		// "the body wins" would hide.
		if metadata != "" && metadata != k {
			return "", KeyFromCommand, keyConflict(k, metadata, from)
		}
		return k, KeyFromCommand, nil
	}
	if metadata != "" {
		return checkedKey(metadata, KeyFromMetadata)
	}
	if d.expr != nil {
		k, found, verr := d.searchKey(r.exprInput)
		if verr != nil {
			return "", KeyFromExpression, verr
		}
		if found {
			return checkedKey(k, KeyFromExpression)
		}
	}
	if r.env.kind == EnvelopeEventBridge && r.env.id != "" {
		return checkedKey(r.env.id, KeyFromEventID)
	}
	switch r.policy {
	case MissingKeyMessageID:
		// The SNS MessageId survives SNS's own duplicate deliveries, which
		// arrive as distinct SQS messages.
		id := r.in.MessageID
		if r.env.kind == EnvelopeSNS && r.env.id != "" {
			id = r.env.id
		}
		if id == "" {
			return "", KeyFromMessageID, missingKey(r.policy, "no idempotency key and no message id")
		}
		return checkedKey(id, KeyFromMessageID)
	case MissingKeyDerive:
		return r.requestHash, KeyDerived, nil
	case MissingKeyGenerate:
		return uuid.NewString(), KeyGenerated, nil
	default:
		return "", "", missingKey(r.policy, "no idempotency key: set idempotencyKey or the Idempotency-Key header/attribute")
	}
}

// metadataKey is the transport's key, and where it came from as a sender
// would name it.
func (r keyRequest) metadataKey() (key, from string) {
	if r.in.IdempotencyKey != "" {
		if r.in.Transport == TransportHTTP {
			return r.in.IdempotencyKey, "the Idempotency-Key header"
		}
		return r.in.IdempotencyKey, "the SQS message attribute Idempotency-Key"
	}
	if k := r.env.attr(attrIdempotencyKey); k != "" {
		if r.env.kind == EnvelopeSNS {
			return k, "the SNS notification's message attribute Idempotency-Key"
		}
		return k, "the envelope's message attribute Idempotency-Key"
	}
	return "", ""
}

// keyConflict rejects a command whose idempotencyKey and transport key
// differ, naming both; a transport key that is not a valid key is not
// echoed.
func keyConflict(body, metadata, from string) *ValidationError {
	shown := strconv.Quote(metadata)
	if _, ok := keyProblem(metadata); !ok {
		shown = "another key"
	}
	verr := reject(CodeKeyConflict, "/idempotencyKey", "keyConflict",
		"idempotencyKey %q in the command disagrees with %s in %s: send one key, or the same in both", body, shown, from)
	verr.Key = body
	return verr
}

func missingKey(policy MissingKeyPolicy, msg string) *ValidationError {
	return reject(CodeMissingKey, "/idempotencyKey", "required", "%s (missing-key policy %s)", msg, policy)
}

// checkedKey enforces the key rule on keys the schema did not see.
func checkedKey(k string, src KeySource) (string, KeySource, *ValidationError) {
	if problem, ok := keyProblem(k); !ok {
		verr := reject(CodeInvalidKey, "", problem.Rule, "idempotency key from %s %s", src, problem.Message)
		verr.Source, verr.Key = src, k
		return "", src, verr
	}
	return k, src, nil
}

// ValidKey reports whether k is a valid idempotency key: 1-255 printable
// ASCII characters.
func ValidKey(k string) bool {
	_, ok := keyProblem(k)
	return ok
}

// MaxEchoedKeyLength is how many characters of an invalid idempotency key
// answers, result events and logs show.
const MaxEchoedKeyLength = 64

// EchoKey returns k as answers, result events and logs may show it: a valid
// key unchanged; an invalid one escaped as in a Go string literal (ASCII
// only, without the quotes) and cut to MaxEchoedKeyLength characters, then
// "…(+N more)" counting the characters left out. A hostile key can then
// neither flood nor inject anything.
func EchoKey(k string) string {
	if ValidKey(k) {
		return k
	}
	var b strings.Builder
	for i := 0; i < len(k); {
		_, size := utf8.DecodeRuneInString(k[i:])
		quoted := strconv.QuoteToASCII(k[i : i+size])
		escaped := quoted[1 : len(quoted)-1]
		if b.Len()+len(escaped) > MaxEchoedKeyLength {
			fmt.Fprintf(&b, "…(+%d more)", utf8.RuneCountInString(k[i:]))
			break
		}
		b.WriteString(escaped)
		i += size
	}
	return b.String()
}

// keyProblem mirrors common.json's idempotencyKey: 1-255 printable ASCII.
func keyProblem(k string) (Problem, bool) {
	switch {
	case k == "":
		return Problem{Rule: "minLength", Message: "must not be empty"}, false
	case len(k) > maxKeyLength:
		return Problem{Rule: "maxLength", Message: fmt.Sprintf("must be at most %d characters long but has %d", maxKeyLength, len(k))}, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return Problem{Rule: "pattern", Message: fmt.Sprintf("must be printable ASCII but has byte 0x%02x at %d", k[i], i)}, false
		}
	}
	return Problem{}, true
}

// searchKey evaluates the key expression. null means "no key here"; a
// string is the key; anything else is its RFC 8785 JSON, so the same value
// always yields the same key.
func (d *Decoder) searchKey(msg any) (key string, found bool, verr *ValidationError) {
	defer func() {
		// The expression runs over untrusted input inside a third-party
		// interpreter: a panic there must reject one message, not the process.
		if p := recover(); p != nil {
			verr = expressionError(fmt.Errorf("panic: %v", p))
		}
	}()
	res, err := d.expr.Search(msg)
	if err != nil {
		return "", false, expressionError(err)
	}
	switch res := res.(type) {
	case nil:
		return "", false, nil
	case string:
		return res, true, nil
	default:
		raw, err := json.Marshal(res)
		if err != nil {
			return "", false, expressionError(err)
		}
		canon, err := jcs.Transform(raw)
		if err != nil {
			return "", false, expressionError(err)
		}
		return string(canon), true, nil
	}
}

func expressionError(err error) *ValidationError {
	verr := reject(CodeInvalidKey, "", "expression", "idempotency key expression failed: %v", err)
	verr.Source = KeyFromExpression
	return verr
}

// jmespathValue converts json.Number to float64, the only number type the
// interpreter compares and computes with.
func jmespathValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = jmespathValue(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = jmespathValue(e)
		}
		return a
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return v.String() // out of float64 range: keep the spelling
		}
		return f
	default:
		return v
	}
}
