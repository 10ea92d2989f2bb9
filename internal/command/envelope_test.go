package command

import (
	"encoding/json"
	"testing"
)

const traceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func snsBody(t *testing.T, command string, attrs map[string]any) string {
	t.Helper()
	n := map[string]any{
		"Type":      "Notification",
		"MessageId": "sns-msg-1",
		"TopicArn":  "arn:aws:sns:eu-west-1:123456789012:mqprobe-commands",
		"Message":   command,
		"Timestamp": "2025-01-01T00:00:00.000Z",
	}
	if attrs != nil {
		n["MessageAttributes"] = attrs
	}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func eventBridgeBody(command string) string {
	return `{"version":"0","id":"eb-event-1","detail-type":"mqprobe command","source":"mqprobe.scheduler",` +
		`"account":"123456789012","time":"2025-01-01T00:00:00Z","region":"eu-west-1","resources":[],"detail":` + command + `}`
}

func TestDecodeSNS(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	raw := mustDecode(t, d, bus(minimalProduce))
	got := mustDecode(t, d, bus(snsBody(t, minimalProduce, map[string]any{
		"traceparent": map[string]any{"Type": "String", "Value": traceParent},
	})))
	if got.Envelope != EnvelopeSNS || got.EnvelopeID != "sns-msg-1" || got.TraceParent != traceParent {
		t.Errorf("Envelope = %s, EnvelopeID = %q, TraceParent = %q", got.Envelope, got.EnvelopeID, got.TraceParent)
	}
	// The SNS MessageId, not the SQS one, survives SNS's own duplicates.
	if got.IdempotencyKey != "sns-msg-1" || got.KeySource != KeyFromMessageID {
		t.Errorf("key = %q from %s, want the SNS MessageId", got.IdempotencyKey, got.KeySource)
	}
	if got.RequestHash != raw.RequestHash || got.Command.Batch.Count != 10 {
		t.Error("the envelope changed the command")
	}
}

func TestDecodeSNSAttributes(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	got := mustDecode(t, d, bus(snsBody(t, minimalDepth, map[string]any{
		"Idempotency-Key":            map[string]any{"Type": "String", "Value": "from-sns-attr"},
		"idempotency-expiry-seconds": map[string]any{"Type": "Number", "Value": "90"},
		"traceparent":                map[string]any{"Type": "String", "Value": "not-a-traceparent"},
	})))
	if got.IdempotencyKey != "from-sns-attr" || got.KeySource != KeyFromMetadata {
		t.Errorf("key = %q from %s", got.IdempotencyKey, got.KeySource)
	}
	if got.TTL.Seconds() != 90 {
		t.Errorf("TTL = %v", got.TTL)
	}
	if got.TraceParent != "" {
		t.Errorf("TraceParent = %q, want an invalid one dropped", got.TraceParent)
	}
	// Emulators write the attributes in the SQS shape.
	got = mustDecode(t, d, bus(snsBody(t, minimalDepth, map[string]any{
		"Idempotency-Key": map[string]any{"DataType": "String", "StringValue": "from-goaws"}})))
	if got.IdempotencyKey != "from-goaws" {
		t.Errorf("key = %q from an SQS-shaped attribute", got.IdempotencyKey)
	}
	// The SQS attribute outranks the one inside the body.
	in := bus(snsBody(t, minimalDepth, map[string]any{"Idempotency-Key": map[string]any{"Type": "String", "Value": "from-sns-attr"}}))
	in.IdempotencyKey = "from-sqs-attr"
	if got := mustDecode(t, d, in); got.IdempotencyKey != "from-sqs-attr" {
		t.Errorf("key = %q, want the SQS attribute", got.IdempotencyKey)
	}
}

func TestDecodeEventBridge(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	raw := mustDecode(t, d, bus(minimalProduce))
	got := mustDecode(t, d, bus(eventBridgeBody(minimalProduce)))
	if got.Envelope != EnvelopeEventBridge || got.EnvelopeID != "eb-event-1" {
		t.Errorf("Envelope = %s, EnvelopeID = %q", got.Envelope, got.EnvelopeID)
	}
	if got.IdempotencyKey != "eb-event-1" || got.KeySource != KeyFromEventID {
		t.Errorf("key = %q from %s, want the event id", got.IdempotencyKey, got.KeySource)
	}
	if got.RequestHash != raw.RequestHash {
		t.Error("the envelope changed the hash")
	}
}

func TestDecodeEnvelopeRejects(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	tests := []struct {
		name string
		in   Input
		code Code
		path string
		rule string
	}{
		{"SNS Message not a string", bus(`{"Type":"Notification","MessageId":"m","Message":{"operationType":"DEPTH"}}`), CodeSchemaViolation, "/Message", "type"},
		{"SNS Message not JSON", bus(snsBody(t, `{"operationType":`, nil)), CodeMalformedJSON, "/Message", "json"},
		{"SNS command invalid", bus(snsBody(t, mutate(t, minimalProduce, edit{"batch/count", 0}), nil)), CodeSchemaViolation, "/batch/count", "minimum"},
		{"EventBridge detail not an object", bus(`{"version":"0","id":"e","detail-type":"x","source":"y","detail":"{}"}`), CodeSchemaViolation, "/detail", "type"},
		{"EventBridge command invalid", bus(eventBridgeBody(`{"operationType":"CONSUME","targetRef":"x","waitSeconds":61}`)), CodeSchemaViolation, "/waitSeconds", "maximum"},
		// HTTP bodies are commands, never envelopes.
		{"SNS over HTTP", httpIn(Depth, snsBody(t, minimalDepth, nil)), CodeSchemaViolation, "/Type", "additionalProperties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verr := mustReject(t, d, tt.in)
			if verr.Code != tt.code || !hasProblem(verr, tt.path, tt.rule) {
				t.Errorf("got %v\nwant code %s at %q rule %q", verr, tt.code, tt.path, tt.rule)
			}
		})
	}
}
