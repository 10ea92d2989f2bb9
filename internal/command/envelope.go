package command

import (
	"regexp"
	"strings"
)

// EnvelopeKind is what wrapped the command on the bus.
type EnvelopeKind string

// Envelope kinds.
const (
	EnvelopeRaw         EnvelopeKind = "raw"
	EnvelopeSNS         EnvelopeKind = "sns"
	EnvelopeEventBridge EnvelopeKind = "eventbridge"
)

// Attribute names looked up in an envelope's MessageAttributes.
const (
	attrTraceParent    = "traceparent"
	attrIdempotencyKey = "Idempotency-Key"
	attrExpirySeconds  = "Idempotency-Expiry-Seconds"
)

// envelope is the unwrapped message plus what the wrapper told us.
type envelope struct {
	kind    EnvelopeKind
	id      string // SNS MessageId or EventBridge id
	command any    // the command document, parsed
	// attrs are the envelope's MessageAttributes with a string value:
	// without SNS raw delivery they travel in the body, not as SQS
	// attributes.
	attrs map[string]string
}

// unwrap recognises an SNS notification or an EventBridge event and
// returns the command inside; anything else is the command itself.
func unwrap(doc any) (envelope, *ValidationError) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return envelope{kind: EnvelopeRaw, command: doc}, nil
	}
	if isSNS(obj) {
		return unwrapSNS(obj)
	}
	if isEventBridge(obj) {
		return unwrapEventBridge(obj)
	}
	return envelope{kind: EnvelopeRaw, command: doc}, nil
}

// isSNS matches the fields every SNS notification has; a command never has
// "Type" (unknown fields are rejected), so there is no ambiguity.
func isSNS(obj map[string]any) bool {
	typ, _ := obj["Type"].(string)
	_, hasMessage := obj["Message"]
	return typ == "Notification" && hasMessage
}

// isEventBridge matches the fields every EventBridge event has.
func isEventBridge(obj map[string]any) bool {
	for _, name := range []string{"version", "id", "detail-type", "source", "detail"} {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	return true
}

func unwrapSNS(obj map[string]any) (envelope, *ValidationError) {
	msg, ok := obj["Message"].(string)
	if !ok {
		return envelope{}, reject(CodeSchemaViolation, "/Message", "type",
			"SNS notification Message must be a string holding the command")
	}
	cmd, verr := parseJSON([]byte(msg))
	if verr != nil {
		verr.Problems[0].Path = "/Message"
		verr.Problems[0].Message = "SNS notification Message: " + verr.Problems[0].Message
		return envelope{}, verr
	}
	env := envelope{kind: EnvelopeSNS, command: cmd, attrs: attributes(obj)}
	env.id, _ = obj["MessageId"].(string)
	return env, nil
}

func unwrapEventBridge(obj map[string]any) (envelope, *ValidationError) {
	detail, ok := obj["detail"].(map[string]any)
	if !ok {
		return envelope{}, reject(CodeSchemaViolation, "/detail", "type",
			"EventBridge event detail must be an object holding the command")
	}
	env := envelope{kind: EnvelopeEventBridge, command: detail, attrs: attributes(obj)}
	env.id, _ = obj["id"].(string)
	return env, nil
}

// attributes reads an envelope's MessageAttributes, in the SNS shape
// {"name": {"Type": "String", "Value": "..."}}, the SQS shape some
// emulators write ({"DataType": "String", "StringValue": "..."}) or as plain
// strings; non-string values are skipped.
func attributes(obj map[string]any) map[string]string {
	raw, _ := obj["MessageAttributes"].(map[string]any)
	attrs := make(map[string]string, len(raw))
	for name, a := range raw {
		switch a := a.(type) {
		case string:
			attrs[name] = a
		case map[string]any:
			if value, ok := a["Value"].(string); ok {
				attrs[name] = value
			} else if value, ok := a["StringValue"].(string); ok {
				attrs[name] = value
			}
		}
	}
	return attrs
}

// traceParentPattern is the W3C version-00 traceparent; anything else is
// ignored, as the Trace Context spec asks.
var traceParentPattern = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// attr looks a name up ignoring case: publishers spell these differently.
func (e envelope) attr(name string) string {
	if v, ok := e.attrs[name]; ok {
		return v
	}
	for k, v := range e.attrs {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func (e envelope) traceParent() string {
	tp := e.attr(attrTraceParent)
	if !traceParentPattern.MatchString(tp) {
		return ""
	}
	return tp
}
