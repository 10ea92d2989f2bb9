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
		{"command beats all", Input{Body: []byte(eventBridgeBody(withKey)), Transport: TransportBus, MessageID: "m"}, "from-command", KeyFromCommand},
		{"command and metadata agreeing", Input{Body: []byte(eventBridgeBody(withKey)), Transport: TransportBus, IdempotencyKey: "from-command", MessageID: "m"}, "from-command", KeyFromCommand},
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
	// Beside a command's own key it is a second, different key: refused
	// as a conflict, without echoing it.
	body := mutate(t, minimalDepth, edit{"idempotencyKey", "ok"})
	if verr := mustReject(t, d, Input{Body: []byte(body), Transport: TransportBus, IdempotencyKey: "tab\there"}); verr.Code != CodeKeyConflict ||
		strings.Contains(verr.Error(), "tab") {
		t.Errorf("got %v", verr)
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
		{"bus reject", DecoderConfig{MissingKey: MissingKeyConfig{Bus: MissingKeyReject}}, bus(minimalDepth), "", nil, CodeMissingKey},
		{"bus derive", DecoderConfig{MissingKey: MissingKeyConfig{Bus: MissingKeyDerive}}, bus(minimalDepth), KeyDerived, func(d Decoded) string { return d.RequestHash }, ""},
		{"bus generate", DecoderConfig{MissingKey: MissingKeyConfig{Bus: MissingKeyGenerate}}, bus(minimalDepth), KeyGenerated, nil, ""},
		{"HTTP default is generate", DecoderConfig{}, httpIn(Depth, minimalDepth), KeyGenerated, nil, ""},
		{"HTTP reject", DecoderConfig{MissingKey: MissingKeyConfig{HTTP: MissingKeyReject}}, httpIn(Depth, minimalDepth), "", nil, CodeMissingKey},
		{"HTTP derive", DecoderConfig{MissingKey: MissingKeyConfig{HTTP: MissingKeyDerive}}, httpIn(Depth, minimalDepth), KeyDerived, func(d Decoded) string { return d.RequestHash }, ""},
		{"HTTP policy ignores bus setting", DecoderConfig{MissingKey: MissingKeyConfig{Bus: MissingKeyReject}}, httpIn(Depth, minimalDepth), KeyGenerated, nil, ""},
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
	if got := d.Config(); got.MaxBytes != 262144 || got.MissingKey.Bus != MissingKeyMessageID || got.MissingKey.HTTP != MissingKeyGenerate {
		t.Errorf("defaults = %+v", got)
	}
	bad := []DecoderConfig{
		{MaxBytes: -1},
		{MissingKey: MissingKeyConfig{Bus: "drop"}},
		{MissingKey: MissingKeyConfig{HTTP: "MessageId"}},
		{MissingKey: MissingKeyConfig{HTTP: MissingKeyMessageID}},
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

func TestEchoKey(t *testing.T) {
	long := strings.Repeat("k", 100000)
	tests := []struct{ name, key, want string }{
		{"valid: unchanged", "order-42 #7", "order-42 #7"},
		{"valid at the limit: unchanged", strings.Repeat("v", 255), strings.Repeat("v", 255)},
		{"too long: cut, the rest counted", long, strings.Repeat("k", MaxEchoedKeyLength) + "…(+99936 more)"},
		{"control characters escaped", "cmd\n1\x00\x1b[31m", `cmd\n1\x00\x1b[31m`},
		{"non-ASCII escaped", "ключ\tkey\xff", `\u043a\u043b\u044e\u0447\tkey\xff`},
		{"quotes escaped", `a"b\c` + "\x01", `a\"b\\c\x01`},
		{"escapes cut whole", strings.Repeat("\x00", 20), strings.Repeat(`\x00`, 16) + "…(+4 more)"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EchoKey(tt.key)
			if got != tt.want {
				t.Errorf("EchoKey = %q, want %q", got, tt.want)
			}
			if ValidKey(tt.key) {
				return
			}
			shown, _, _ := strings.Cut(got, "…(+")
			if len(shown) > MaxEchoedKeyLength || strings.IndexFunc(shown, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
				t.Errorf("EchoKey shows %q: want at most %d printable ASCII characters", shown, MaxEchoedKeyLength)
			}
		})
	}
}

// TestRejectionsNameTheKeyGiven: a rejected command carries the key it gave
// (to be shown through EchoKey), wherever it came from and whatever else is
// wrong; the message never holds an invalid key whole.
func TestRejectionsNameTheKeyGiven(t *testing.T) {
	long := strings.Repeat("k", 100000)
	d := newDecoder(t, DecoderConfig{})
	brokenDepth := mutate(t, minimalDepth, edit{"tags/n", 1})
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"metadata key, malformed JSON", Input{Body: []byte(`{"operationType":`), Transport: TransportBus, IdempotencyKey: "hdr-1"}, "hdr-1"},
		{"metadata key, schema violation", Input{Body: []byte(brokenDepth), Transport: TransportHTTP, Operation: Depth, IdempotencyKey: "hdr-2"}, "hdr-2"},
		{"command's key, schema violation", bus(mutate(t, brokenDepth, edit{"idempotencyKey", "body-1"})), "body-1"},
		{"SNS attribute key", bus(snsBody(t, brokenDepth, map[string]any{"Idempotency-Key": map[string]any{"Type": "String", "Value": "sns-attr-1"}})), "sns-attr-1"},
		{"invalid metadata key", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, IdempotencyKey: long}, long},
		{"invalid command key", bus(mutate(t, minimalDepth, edit{"idempotencyKey", "a\x00b"})), "a\x00b"},
		{"none", bus(`[]`), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verr := mustReject(t, d, tt.in)
			if verr.Key != tt.want {
				t.Errorf("Key = %.80q, want %.80q", verr.Key, tt.want)
			}
			if len(tt.want) > maxKeyLength && strings.Contains(verr.Error(), tt.want[:maxKeyLength]) {
				t.Errorf("the message holds the key: %.300s", verr.Error())
			}
		})
	}
}

// TestKeyConflictNamesBothSources: a command whose idempotencyKey differs
// from its transport's key is rejected naming both keys and where each
// came from, instead of the command's key silently winning.
func TestKeyConflictNamesBothSources(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	withKey := mutate(t, minimalDepth, edit{"idempotencyKey", "body-1"})
	snsAttr := map[string]any{"Idempotency-Key": map[string]any{"Type": "String", "Value": "sns-1"}}
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"HTTP header", Input{Body: []byte(withKey), Transport: TransportHTTP, Operation: Depth, IdempotencyKey: "hdr-1"},
			`idempotencyKey "body-1" in the command disagrees with "hdr-1" in the Idempotency-Key header`},
		{"SQS attribute", Input{Body: []byte(withKey), Transport: TransportBus, IdempotencyKey: "attr-1"},
			`idempotencyKey "body-1" in the command disagrees with "attr-1" in the SQS message attribute Idempotency-Key`},
		{"SNS attribute", bus(snsBody(t, withKey, snsAttr)),
			`idempotencyKey "body-1" in the command disagrees with "sns-1" in the SNS notification's message attribute Idempotency-Key`},
		{"invalid header key", Input{Body: []byte(withKey), Transport: TransportHTTP, Operation: Depth, IdempotencyKey: "a\x00b"},
			`idempotencyKey "body-1" in the command disagrees with another key in the Idempotency-Key header`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verr := mustReject(t, d, tt.in)
			if verr.Code != CodeKeyConflict || verr.Key != "body-1" || len(verr.Problems) != 1 ||
				verr.Problems[0].Path != "/idempotencyKey" || !strings.Contains(verr.Problems[0].Message, tt.want) {
				t.Errorf("%+v\nwant KEY_CONFLICT with %q", verr, tt.want)
			}
		})
	}
}
