package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mqprobe/mqprobe/internal/mq"

	"github.com/gowebpki/jcs"
	"github.com/jmespath-community/go-jmespath"
)

// Transport is how a command arrived; it picks the missing-key policy.
type Transport string

// Transports.
const (
	TransportHTTP Transport = "http"
	TransportBus  Transport = "bus"
)

// Input is one raw command and its transport metadata.
type Input struct {
	Body      []byte
	Transport Transport
	// Operation comes from the HTTP route and then wins over the body;
	// "" on the bus, where the body's operationType decides.
	Operation Operation
	// IdempotencyKey is the Idempotency-Key header or SQS message attribute.
	IdempotencyKey string
	// ExpirySeconds is the raw Idempotency-Expiry-Seconds header or attribute.
	ExpirySeconds string
	// MessageID is the SQS message id (the missing-key policy messageId).
	MessageID string
}

// KeyGenerated reports whether the command gave no key and one was
// generated for it: nothing dedupes it, the same request again runs again.
func (d Decoded) KeyGenerated() bool { return d.KeySource == KeyGenerated }

// Decoded is a validated command ready for the idempotency engine.
type Decoded struct {
	// Command is Canonical typed, with IdempotencyKey and ExpirySeconds set.
	Command Command
	// Canonical is the command with defaults applied, without the
	// transport-only idempotencyKey and expirySeconds, in RFC 8785 form.
	Canonical []byte
	// RequestHash is HashCanonical(Canonical): SHA-256 hex of it.
	RequestHash    string
	IdempotencyKey string
	KeySource      KeySource
	// TTL is the requested record lifetime; 0 when none was given.
	TTL         time.Duration
	Envelope    EnvelopeKind
	EnvelopeID  string // SNS MessageId or EventBridge id
	TraceParent string // from the envelope's MessageAttributes, if valid
}

// Decoder turns raw commands into Decoded ones. It is immutable and safe
// for concurrent use.
type Decoder struct {
	cfg  DecoderConfig
	reg  *registry
	expr jmespath.JMESPath
}

// NewDecoder validates cfg, applies its defaults and loads the schemas.
func NewDecoder(cfg DecoderConfig) (*Decoder, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("command decoder config: %w", err)
	}
	reg, err := loadRegistry()
	if err != nil {
		return nil, fmt.Errorf("command schemas: %w", err)
	}
	d := &Decoder{cfg: cfg, reg: reg}
	if cfg.KeyExpression != "" {
		if d.expr, err = jmespath.Compile(cfg.KeyExpression); err != nil {
			return nil, fmt.Errorf("command decoder config: keyExpression: %w", err)
		}
	}
	return d, nil
}

// Config returns the effective configuration, defaults applied.
func (d *Decoder) Config() DecoderConfig { return d.cfg }

// Schema returns op's raw JSON Schema document (it references common.json;
// see SchemaFS).
func (d *Decoder) Schema(op Operation) (json.RawMessage, bool) {
	name, ok := schemaFiles[op]
	if !ok {
		return nil, false
	}
	return d.reg.raw[name], true
}

// Decode checks size, parses, unwraps, validates, applies defaults, finds
// the idempotency key and hashes. Everything wrong with the
// input is a *ValidationError, naming the key given when one was found;
// any other error is an internal fault.
func (d *Decoder) Decode(in Input) (dec Decoded, err error) {
	given := in.IdempotencyKey
	defer func() {
		var verr *ValidationError
		if errors.As(err, &verr) && verr.Key == "" {
			verr.Key = given
		}
	}()
	policy, err := d.policy(in.Transport)
	if err != nil {
		return Decoded{}, err
	}
	if len(in.Body) > d.cfg.MaxBytes {
		// Checked before parsing so an oversize body costs nothing.
		return Decoded{}, reject(CodeTooLarge, "", "maxBytes",
			"command is %d bytes, more than the %d allowed", len(in.Body), d.cfg.MaxBytes)
	}
	doc, verr := parseJSON(in.Body)
	if verr != nil {
		return Decoded{}, verr
	}
	env := envelope{kind: EnvelopeRaw, command: doc}
	if in.Transport == TransportBus {
		if env, verr = unwrap(doc); verr != nil {
			return Decoded{}, verr
		}
	}
	if given == "" {
		given = env.attr(attrIdempotencyKey)
	}
	cmd, ok := env.command.(map[string]any)
	if !ok {
		return Decoded{}, reject(CodeSchemaViolation, "", "type", "must be object but found %s", jsonType(env.command))
	}
	if k, ok := cmd["idempotencyKey"].(string); ok {
		given = k // as resolveKey: the command's own key comes first
	}
	var exprInput any
	if d.expr != nil {
		exprInput = jmespathValue(cmd) // a copy: defaults must not show
	}
	op, verr := operation(cmd, in.Operation)
	if verr != nil {
		return Decoded{}, verr
	}
	if verr := d.validate(op, cmd); verr != nil {
		return Decoded{}, verr
	}
	ttl, verr := expiry(cmd, in.ExpirySeconds, env)
	if verr != nil {
		return Decoded{}, verr
	}
	applyDefaults(d.reg.compiled[op], cmd)

	canonical, err := canonicalize(cmd)
	if err != nil {
		return Decoded{}, err
	}
	hash := HashCanonical(canonical) // canonical already: no second RFC 8785 pass
	key, source, verr := d.resolveKey(keyRequest{
		command: cmd, exprInput: exprInput, env: env, in: in, policy: policy, requestHash: hash,
	})
	if verr != nil {
		return Decoded{}, verr
	}
	var typed Command
	if err := json.Unmarshal(canonical, &typed); err != nil {
		return Decoded{}, fmt.Errorf("decode validated %s command: %w", op, err)
	}
	typed.IdempotencyKey = key
	typed.ExpirySeconds = int(ttl / time.Second)
	return Decoded{
		Command:        typed,
		Canonical:      canonical,
		RequestHash:    hash,
		IdempotencyKey: key,
		KeySource:      source,
		TTL:            ttl,
		Envelope:       env.kind,
		EnvelopeID:     env.id,
		TraceParent:    env.traceParent(),
	}, nil
}

func (d *Decoder) policy(t Transport) (MissingKeyPolicy, error) {
	switch t {
	case TransportHTTP:
		return d.cfg.MissingKey.HTTP, nil
	case TransportBus:
		return d.cfg.MissingKey.Bus, nil
	}
	return "", fmt.Errorf("decode command: unknown transport %q", t)
}

// validate runs the schema. A command whose only fault is its own
// idempotencyKey is INVALID_KEY, so key trouble reads the same whatever
// the key's source.
func (d *Decoder) validate(op Operation, cmd map[string]any) *ValidationError {
	problems := d.reg.validate(op, cmd)
	if problems == nil {
		return checkPropertyNames(cmd)
	}
	verr := &ValidationError{Code: CodeSchemaViolation, Problems: problems}
	for _, p := range problems {
		if p.Path != "/idempotencyKey" {
			return verr
		}
	}
	verr.Code, verr.Source = CodeInvalidKey, KeyFromCommand
	return verr
}

// checkPropertyNames applies to the headers' names the IBM MQ rules a
// JSON Schema pattern cannot state (selector keywords in any case, reserved
// prefixes, dots), so such a command is rejected here rather than failing
// at MQPUT with MQRC_PROPERTY_NAME_ERROR.
func checkPropertyNames(cmd map[string]any) *ValidationError {
	headers, _ := cmd["headers"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		if err := mq.CheckPropertyName(name); err != nil {
			// The schema's pattern keeps names to [A-Za-z0-9_.]: no pointer escaping.
			return reject(CodeSchemaViolation, "/headers/"+name, "propertyName", "%v (IBM MQ would refuse it: MQRC_PROPERTY_NAME_ERROR)", err)
		}
	}
	return nil
}

// operation picks the schema: the route's operation when given (and the
// body must agree or be silent), else the body's operationType.
func operation(cmd map[string]any, route Operation) (Operation, *ValidationError) {
	body, present := cmd["operationType"]
	if route != "" {
		if !route.Valid() {
			return "", reject(CodeUnknownOperation, "/operationType", "enum", "unknown operation %s", quoteValue(string(route)))
		}
		if !present {
			cmd["operationType"] = string(route) // the route said it
			return route, nil
		}
		if s, ok := body.(string); !ok || Operation(s) != route {
			return "", reject(CodeSchemaViolation, "/operationType", "const",
				"must be %s (from the route) but found %s", quoteValue(string(route)), displayValue(body))
		}
		return route, nil
	}
	if !present {
		return "", reject(CodeUnknownOperation, "/operationType", "required", "is required to pick the operation")
	}
	s, _ := body.(string)
	if op := Operation(s); op.Valid() {
		return op, nil
	}
	names := make([]string, len(Operations))
	for i, op := range Operations {
		names[i] = string(op)
	}
	return "", reject(CodeUnknownOperation, "/operationType", "enum",
		"must be one of %s but found %s", quoteList(names), displayValue(body))
}

// maxExpirySeconds mirrors common.json's expirySeconds maximum.
const maxExpirySeconds = 2147483647

// expiry is the command's expirySeconds, else the header/attribute value.
func expiry(cmd map[string]any, raw string, env envelope) (time.Duration, *ValidationError) {
	if n, ok := cmd["expirySeconds"].(json.Number); ok {
		secs, err := strconv.ParseFloat(n.String(), 64) // "60.0" is a valid integer
		if err != nil {
			return 0, reject(CodeSchemaViolation, "/expirySeconds", "type", "must be integer but found %s", n)
		}
		return time.Duration(secs) * time.Second, nil
	}
	if raw == "" {
		raw = env.attr(attrExpirySeconds)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return 0, nil
	}
	secs, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) || (err == nil && secs > maxExpirySeconds):
		return 0, reject(CodeSchemaViolation, "/expirySeconds", "maximum",
			"Idempotency-Expiry-Seconds must be <= %d but found %s", maxExpirySeconds, quoteValue(raw))
	case err != nil:
		return 0, reject(CodeSchemaViolation, "/expirySeconds", "type",
			"Idempotency-Expiry-Seconds must be integer but found %s", quoteValue(raw))
	case secs < 1:
		return 0, reject(CodeSchemaViolation, "/expirySeconds", "minimum",
			"Idempotency-Expiry-Seconds must be >= 1 but found %d", secs)
	}
	return time.Duration(secs) * time.Second, nil
}

// canonicalize drops the transport-only fields and renders RFC 8785 JSON,
// which also normalises number spellings (1.0 → 1) so the typed decode and
// the hash agree.
func canonicalize(cmd map[string]any) ([]byte, error) {
	hashed := make(map[string]any, len(cmd))
	for k, v := range cmd {
		if k != "idempotencyKey" && k != "expirySeconds" {
			hashed[k] = v
		}
	}
	raw, err := json.Marshal(hashed)
	if err != nil {
		return nil, fmt.Errorf("marshal command: %w", err)
	}
	canonical, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canonicalize command: %w", err)
	}
	return canonical, nil
}

// parseJSON parses one JSON value, keeping numbers exact (json.Number) so
// the schema sees what was sent.
func parseJSON(body []byte) (any, *ValidationError) {
	if !utf8.Valid(body) {
		return nil, reject(CodeMalformedJSON, "", "json", "invalid UTF-8 at offset %d", invalidUTF8Offset(body))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var syn *json.SyntaxError
		switch {
		case errors.As(err, &syn):
			return nil, reject(CodeMalformedJSON, "", "json", "%s at offset %d", syn.Error(), syn.Offset)
		case errors.Is(err, io.EOF):
			return nil, reject(CodeMalformedJSON, "", "json", "empty body")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, reject(CodeMalformedJSON, "", "json", "unexpected end of JSON at offset %d", len(body))
		default:
			return nil, reject(CodeMalformedJSON, "", "json", "%v", err)
		}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, reject(CodeMalformedJSON, "", "json", "unexpected data after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
