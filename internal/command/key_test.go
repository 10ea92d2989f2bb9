package command

import (
	"strings"
	"testing"
)

func TestKeyPrecedence(t *testing.T) {
	d := newDecoder(t, DecoderConfig{KeyExpression: "tags.orderId"})
	withKey := mutate(t, minimalDepth, edit{"idempotencyKey", "from-command"}, edit{"tags/orderId", "from-expression"})
	withExpr := mutate(t, minimalDepth, edit{"tags/orderId", "from-expression"})
	tests := []struct {
		name       string
		in         Input
		wantKey    string
		wantSource KeySource
	}{
		{"command beats all", Input{Body: []byte(eventBridgeBody(withKey)), Transport: TransportBus, IdempotencyKey: "from-metadata", MessageID: "m"}, "from-command", KeyFromCommand},
		{"metadata beats expression", Input{Body: []byte(eventBridgeBody(withExpr)), Transport: TransportBus, IdempotencyKey: "from-metadata", MessageID: "m"}, "from-metadata", KeyFromMetadata},
		{"expression beats event id", Input{Body: []byte(eventBridgeBody(withExpr)), Transport: TransportBus, MessageID: "m"}, "from-expression", KeyFromExpression},
		{"event id beats policy", Input{Body: []byte(eventBridgeBody(minimalDepth)), Transport: TransportBus, MessageID: "m"}, "eb-event-1", KeyFromEventID},
		{"policy last", Input{Body: []byte(minimalDepth), Transport: TransportBus, MessageID: "m"}, "m", KeyFromMessageID},
		{"HTTP header", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, IdempotencyKey: "hdr"}, "hdr", KeyFromMetadata},
		{"expression over HTTP", Input{Body: []byte(withExpr), Transport: TransportHTTP, Operation: Depth}, "from-expression", KeyFromExpression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDecode(t, d, tt.in)
			if got.IdempotencyKey != tt.wantKey || got.KeySource != tt.wantSource || got.Command.IdempotencyKey != tt.wantKey {
				t.Errorf("key = %q from %s (Command %q), want %q from %s",
					got.IdempotencyKey, got.KeySource, got.Command.IdempotencyKey, tt.wantKey, tt.wantSource)
			}
		})
	}
}

func TestKeyExpressionResults(t *testing.T) {
	tests := []struct {
		name       string
		expr       string
		body       string
		wantKey    string
		wantSource KeySource
	}{
		{"null falls through", "tags.missing", minimalProduce, "sqs-msg-1", KeyFromMessageID},
		{"number is stringified", "batch.count", minimalProduce, "10", KeyFromExpression},
		{"object is canonical JSON", "target", mutate(t, minimalProduce, edit{"target/queue", "Q"}), `{"queue":"Q","queueManager":"QM1"}`, KeyFromExpression},
		{"sees the message, not defaults", "batch.messageSizeBytes", minimalProduce, "sqs-msg-1", KeyFromMessageID},
		{"function", "join('-', [target.queueManager, target.queue])", minimalProduce, "QM1-DEV.QUEUE.1", KeyFromExpression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDecoder(t, DecoderConfig{KeyExpression: tt.expr})
			got := mustDecode(t, d, bus(tt.body))
			if got.IdempotencyKey != tt.wantKey || got.KeySource != tt.wantSource {
				t.Errorf("key = %q from %s, want %q from %s", got.IdempotencyKey, got.KeySource, tt.wantKey, tt.wantSource)
			}
		})
	}
}

func TestKeyExpressionRejects(t *testing.T) {
	tests := []struct {
		name string
		expr string
		body string
		rule string
	}{
		{"empty string", "tags.k", mutate(t, minimalDepth, edit{"tags/k", ""}), "minLength"},
		{"too long", "tags.k", mutate(t, minimalDepth, edit{"tags/k", strings.Repeat("x", 256)}), "maxLength"},
		{"not ASCII", "tags.k", mutate(t, minimalDepth, edit{"tags/k", "ключ"}), "pattern"},
		{"runtime error", "abs(targetRef)", minimalDepth, "expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDecoder(t, DecoderConfig{KeyExpression: tt.expr})
			verr := mustReject(t, d, bus(tt.body))
			if verr.Code != CodeInvalidKey || verr.Source != KeyFromExpression || !hasProblem(verr, "", tt.rule) {
				t.Errorf("got %v (source %s), want INVALID_KEY from expression, rule %s", verr, verr.Source, tt.rule)
			}
		})
	}
}

func TestInvalidMetadataKeyNamesSource(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	verr := mustReject(t, d, Input{Body: []byte(minimalDepth), Transport: TransportBus, IdempotencyKey: "tab\there"})
	if verr.Code != CodeInvalidKey || verr.Source != KeyFromMetadata || !strings.Contains(verr.Error(), "metadata") {
		t.Errorf("got %v (source %s)", verr, verr.Source)
	}
	// An invalid key that is not used (the command has one) is not judged.
	body := mutate(t, minimalDepth, edit{"idempotencyKey", "ok"})
	if got := mustDecode(t, d, Input{Body: []byte(body), Transport: TransportBus, IdempotencyKey: "tab\there"}); got.IdempotencyKey != "ok" {
		t.Errorf("key = %q", got.IdempotencyKey)
	}
}

func TestMissingKeyPolicies(t *testing.T) {
	tests := []struct {
		name       string
		cfg        DecoderConfig
		in         Input
		wantSource KeySource
		wantKey    func(Decoded) string // nil: any valid key
		wantCode   Code                 // set: rejected
	}{
		{"bus default is messageId", DecoderConfig{}, bus(minimalDepth), KeyFromMessageID, func(Decoded) string { return "sqs-msg-1" }, ""},
		{"messageId prefers SNS MessageId", DecoderConfig{}, Input{Body: []byte(snsBody(t, minimalDepth, nil)), Transport: TransportBus, MessageID: "sqs"}, KeyFromMessageID, func(Decoded) string { return "sns-msg-1" }, ""},
		{"messageId without id", DecoderConfig{}, Input{Body: []byte(minimalDepth), Transport: TransportBus}, "", nil, CodeMissingKey},
		{"bus reject", DecoderConfig{MissingKeyBus: MissingKeyReject}, bus(minimalDepth), "", nil, CodeMissingKey},
		{"bus derive", DecoderConfig{MissingKeyBus: MissingKeyDerive}, bus(minimalDepth), KeyDerived, func(d Decoded) string { return d.RequestHash }, ""},
		{"bus generate", DecoderConfig{MissingKeyBus: MissingKeyGenerate}, bus(minimalDepth), KeyGenerated, nil, ""},
		{"HTTP default is generate", DecoderConfig{}, httpIn(Depth, minimalDepth), KeyGenerated, nil, ""},
		{"HTTP reject", DecoderConfig{MissingKeyHTTP: MissingKeyReject}, httpIn(Depth, minimalDepth), "", nil, CodeMissingKey},
		{"HTTP derive", DecoderConfig{MissingKeyHTTP: MissingKeyDerive}, httpIn(Depth, minimalDepth), KeyDerived, func(d Decoded) string { return d.RequestHash }, ""},
		{"HTTP policy ignores bus setting", DecoderConfig{MissingKeyBus: MissingKeyReject}, httpIn(Depth, minimalDepth), KeyGenerated, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDecoder(t, tt.cfg)
			if tt.wantCode != "" {
				verr := mustReject(t, d, tt.in)
				if verr.Code != tt.wantCode || !hasProblem(verr, "/idempotencyKey", "required") {
					t.Errorf("got %v, want %s", verr, tt.wantCode)
				}
				return
			}
			got := mustDecode(t, d, tt.in)
			if got.KeySource != tt.wantSource {
				t.Errorf("KeySource = %s, want %s", got.KeySource, tt.wantSource)
			}
			if tt.wantKey != nil && got.IdempotencyKey != tt.wantKey(got) {
				t.Errorf("key = %q, want %q", got.IdempotencyKey, tt.wantKey(got))
			}
			if _, ok := keyProblem(got.IdempotencyKey); !ok {
				t.Errorf("key %q breaks the key rule", got.IdempotencyKey)
			}
		})
	}
}

func TestGeneratedKeysDiffer(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	a := mustDecode(t, d, httpIn(Depth, minimalDepth))
	b := mustDecode(t, d, httpIn(Depth, minimalDepth))
	if a.IdempotencyKey == b.IdempotencyKey {
		t.Errorf("two generated keys are both %q", a.IdempotencyKey)
	}
	if a.RequestHash != b.RequestHash {
		t.Error("equal commands hash differently")
	}
}

func TestDecoderConfig(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	if got := d.Config(); got.MaxBytes != 262144 || got.MissingKeyBus != MissingKeyMessageID || got.MissingKeyHTTP != MissingKeyGenerate {
		t.Errorf("defaults = %+v", got)
	}
	bad := []DecoderConfig{
		{MaxBytes: -1},
		{MissingKeyBus: "drop"},
		{MissingKeyHTTP: "MessageId"},
		{MissingKeyHTTP: MissingKeyMessageID},
		{KeyExpression: "tags.["},
	}
	for _, cfg := range bad {
		if err := cfg.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", cfg)
		}
		if _, err := NewDecoder(cfg); err == nil {
			t.Errorf("NewDecoder(%+v) succeeded", cfg)
		}
	}
}
