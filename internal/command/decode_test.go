package command

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestDecodeMinimalAppliesDefaults(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, c Command)
	}{
		{"PRODUCE", minimalProduce, func(t *testing.T, c Command) {
			if c.Target == nil || c.Target.String() != "QM1:DEV.QUEUE.1" {
				t.Errorf("Target = %v", c.Target)
			}
			want := Batch{Count: 10, MessageSizeBytes: 1024, RateLimitPerSec: nil, Transaction: Transaction{Enabled: true, TxSize: 100}}
			if c.Batch == nil || c.Batch.Count != want.Count || c.Batch.MessageSizeBytes != want.MessageSizeBytes ||
				c.Batch.RateLimitPerSec != nil || c.Batch.Transaction != want.Transaction {
				t.Errorf("Batch = %+v, want %+v", c.Batch, want)
			}
			if c.Payload == nil || *c.Payload != (Payload{Mode: PayloadRandom}) {
				t.Errorf("Payload = %+v", c.Payload)
			}
			wantProps := MQProps{Persistence: "nonpersistent", Priority: 0, ExpiryMs: 0, CorrelIDMode: CorrelNone}
			if c.MQProps == nil || *c.MQProps != wantProps {
				t.Errorf("MQProps = %+v, want %+v", c.MQProps, wantProps)
			}
			if c.Headers != nil {
				t.Errorf("Headers = %v, want none", c.Headers)
			}
		}},
		{"CONSUME", minimalConsume, func(t *testing.T, c Command) {
			if c.MaxMessages != 1 || c.WaitSeconds == nil || *c.WaitSeconds != 20 || c.BrowseOnly || c.Ack != AckCommit {
				t.Errorf("MaxMessages=%d WaitSeconds=%v BrowseOnly=%v Ack=%q", c.MaxMessages, c.WaitSeconds, c.BrowseOnly, c.Ack)
			}
			if c.Transaction == nil || *c.Transaction != (Transaction{Enabled: true, TxSize: 100}) {
				t.Errorf("Transaction = %+v", c.Transaction)
			}
			if c.Selector != nil {
				t.Errorf("Selector = %+v, want none", c.Selector)
			}
		}},
		{"DEPTH", minimalDepth, func(t *testing.T, c Command) {
			if c.TargetRef != "dev-qm1" || c.Target != nil || c.Batch != nil {
				t.Errorf("got %+v", c)
			}
		}},
		{"CONNECTION_TEST", minimalConnectionTest, func(t *testing.T, c Command) {
			if c.Target == nil || c.Target.Channel != "DEV.APP.SVRCONN" || c.Target.ConnName != "mq1(1414),mq2(1414)" {
				t.Errorf("Target = %+v", c.Target)
			}
		}},
		{"TEST", minimalTest, func(t *testing.T, c Command) {
			if c.DurationSeconds != 30 || c.Count != 0 || c.ProgressSeconds != 5 {
				t.Errorf("DurationSeconds=%d Count=%d ProgressSeconds=%d", c.DurationSeconds, c.Count, c.ProgressSeconds)
			}
			if c.Batch == nil || c.Batch.MessageSizeBytes != 1024 || c.Batch.Transaction != (Transaction{Enabled: true, TxSize: 100}) {
				t.Errorf("Batch = %+v", c.Batch)
			}
			if c.Payload == nil || c.Payload.Mode != PayloadRandom || c.MQProps == nil || c.MQProps.Persistence != "nonpersistent" {
				t.Errorf("Payload = %+v MQProps = %+v", c.Payload, c.MQProps)
			}
		}},
		{"STOP_TEST", minimalStopTest, func(t *testing.T, c Command) {
			if c.TestID != "t-123" || c.Target != nil {
				t.Errorf("got %+v", c)
			}
		}},
		{"REDRIVE", minimalRedrive, func(t *testing.T, c Command) {
			if c.TxSize != 50 || c.DryRun || c.Filter == nil || len(c.Filter.Reasons) != 2 || c.Filter.Reasons[0] != "MQRC_Q_FULL" || c.Filter.Reasons[1] != float64(2085) {
				t.Errorf("got %+v filter %+v", c, c.Filter)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDecode(t, d, bus(tt.body))
			if string(got.Command.OperationType) != tt.name {
				t.Errorf("OperationType = %q", got.Command.OperationType)
			}
			if got.Command.IdempotencyKey != got.IdempotencyKey || got.IdempotencyKey != "sqs-msg-1" || got.KeySource != KeyFromMessageID {
				t.Errorf("key = %q (%s), Command key %q", got.IdempotencyKey, got.KeySource, got.Command.IdempotencyKey)
			}
			if got.Envelope != EnvelopeRaw || got.TTL != 0 {
				t.Errorf("Envelope = %s, TTL = %v", got.Envelope, got.TTL)
			}
			tt.check(t, got.Command)
		})
	}
}

func TestDecodeCanonicalForm(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	got := mustDecode(t, d, bus(`{"idempotencyKey":"k1","expirySeconds":60,"operationType":"PRODUCE",
		"target":{"queueManager":"QM1","queue":"Q1"},"batch":{"count":1.0}}`))
	// Defaults filled, keys sorted, numbers normalised, transport-only fields gone.
	want := `{"batch":{"count":1,"messageSizeBytes":1024,"rateLimitPerSec":null,"transaction":{"enabled":true,"txSize":100}},` +
		`"mqProps":{"correlIdMode":"none","expiryMs":0,"persistence":"nonpersistent","priority":0},` +
		`"operationType":"PRODUCE","payload":{"mode":"random"},"target":{"queue":"Q1","queueManager":"QM1"}}`
	if string(got.Canonical) != want {
		t.Errorf("Canonical =\n%s\nwant\n%s", got.Canonical, want)
	}
	if got.TTL != time.Minute || got.Command.ExpirySeconds != 60 || got.Command.IdempotencyKey != "k1" {
		t.Errorf("TTL = %v, Command.ExpirySeconds = %d, key %q", got.TTL, got.Command.ExpirySeconds, got.Command.IdempotencyKey)
	}
}

func TestDecodeFullProduce(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	body := `{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"Q1","channel":"DEV.APP.SVRCONN",
		"connName":"mq.example.com(1414)","ccdtUrl":"https://config.example.com/ccdt.json",
		"ssl":{"cipherSpec":"ANY_TLS12_OR_HIGHER","keyStoreRef":"secret://mq/keystore"},
		"auth":{"user":"app","passwordRef":"env:MQ_PASSWORD"}},
		"tags":{"team":"payments"},
		"batch":{"count":1000,"messageSizeBytes":0,"rateLimitPerSec":50,"transaction":{"enabled":false}},
		"payload":{"mode":"fixed","fixedBase64":"aGVsbG8="},
		"mqProps":{"persistence":"persistent","priority":9,"expiryMs":60000,"correlIdMode":"fixed","fixedCorrelIdBase64":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		"headers":{"app.trace_id":"abc"}}`
	c := mustDecode(t, d, bus(body)).Command
	if c.Target.SSL == nil || !c.Target.SSL.Enabled || c.Target.SSL.KeyStoreRef != "secret://mq/keystore" {
		t.Errorf("SSL = %+v (an ssl block defaults to enabled)", c.Target.SSL)
	}
	if c.Target.Auth == nil || c.Target.Auth.PasswordRef != "env:MQ_PASSWORD" {
		t.Errorf("Auth = %+v", c.Target.Auth)
	}
	if c.Batch.RateLimitPerSec == nil || *c.Batch.RateLimitPerSec != 50 || c.Batch.Transaction != (Transaction{Enabled: false, TxSize: 100}) {
		t.Errorf("Batch = %+v", c.Batch)
	}
	if c.MQProps.CorrelIDMode != CorrelFixed || c.MQProps.Priority != 9 || c.MQProps.ExpiryMs != 60000 {
		t.Errorf("MQProps = %+v", c.MQProps)
	}
	if c.Headers["app.trace_id"] != "abc" || c.Tags["team"] != "payments" {
		t.Errorf("Headers = %v, Tags = %v", c.Headers, c.Tags)
	}
}

func TestDecodeHTTPOperationFromRoute(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	got := mustDecode(t, d, httpIn(Consume, `{"targetRef":"dev-qm1","maxMessages":5}`))
	if got.Command.OperationType != Consume || got.Command.MaxMessages != 5 {
		t.Errorf("Command = %+v", got.Command)
	}
	if !strings.Contains(string(got.Canonical), `"operationType":"CONSUME"`) {
		t.Errorf("Canonical lacks the route's operation: %s", got.Canonical)
	}
	same := mustDecode(t, d, httpIn(Consume, `{"operationType":"CONSUME","maxMessages":5,"targetRef":"dev-qm1"}`))
	if same.RequestHash != got.RequestHash {
		t.Error("an explicit matching operationType changed the hash")
	}
	if got.KeySource != KeyGenerated || len(got.IdempotencyKey) != 36 {
		t.Errorf("HTTP without key: key %q from %s, want a generated UUID", got.IdempotencyKey, got.KeySource)
	}
	if got.Envelope != EnvelopeRaw {
		t.Errorf("Envelope = %s", got.Envelope)
	}
}

func TestDecodeRejects(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	long := strings.Repeat("k", 256)
	tests := []struct {
		name string
		in   Input
		code Code
		path string
		rule string
	}{
		// ranges
		{"count 0", bus(mutate(t, minimalProduce, edit{"batch/count", 0})), CodeSchemaViolation, "/batch/count", "minimum"},
		{"count too big", bus(mutate(t, minimalProduce, edit{"batch/count", 10_000_001})), CodeSchemaViolation, "/batch/count", "maximum"},
		{"count fractional", bus(mutate(t, minimalProduce, edit{"batch/count", 1.5})), CodeSchemaViolation, "/batch/count", "type"},
		{"count as string", bus(mutate(t, minimalProduce, edit{"batch/count", "1"})), CodeSchemaViolation, "/batch/count", "type"},
		{"messageSizeBytes negative", bus(mutate(t, minimalProduce, edit{"batch/messageSizeBytes", -1})), CodeSchemaViolation, "/batch/messageSizeBytes", "minimum"},
		{"messageSizeBytes over 100 MiB", bus(mutate(t, minimalProduce, edit{"batch/messageSizeBytes", 104857601})), CodeSchemaViolation, "/batch/messageSizeBytes", "maximum"},
		{"rateLimitPerSec 0", bus(mutate(t, minimalProduce, edit{"batch/rateLimitPerSec", 0})), CodeSchemaViolation, "/batch/rateLimitPerSec", "minimum"},
		{"txSize 0", bus(mutate(t, minimalProduce, edit{"batch/transaction/txSize", 0})), CodeSchemaViolation, "/batch/transaction/txSize", "minimum"},
		{"priority 10", bus(mutate(t, minimalProduce, edit{"mqProps/priority", 10})), CodeSchemaViolation, "/mqProps/priority", "maximum"},
		{"connName with a NUL", bus(mutate(t, minimalProduce, edit{"target/connName", "169.254.169.254\u0000.mq.example.com(1414)"})), CodeSchemaViolation, "/target/connName", "pattern"},
		{"connName with a space", bus(mutate(t, minimalProduce, edit{"target/connName", "a b(1414)"})), CodeSchemaViolation, "/target/connName", "pattern"},
		{"priority -1", bus(mutate(t, minimalProduce, edit{"mqProps/priority", -1})), CodeSchemaViolation, "/mqProps/priority", "minimum"},
		{"expiryMs negative", bus(mutate(t, minimalProduce, edit{"mqProps/expiryMs", -1})), CodeSchemaViolation, "/mqProps/expiryMs", "minimum"},
		{"waitSeconds 61", bus(mutate(t, minimalConsume, edit{"waitSeconds", 61})), CodeSchemaViolation, "/waitSeconds", "maximum"},
		{"waitSeconds -1", bus(mutate(t, minimalConsume, edit{"waitSeconds", -1})), CodeSchemaViolation, "/waitSeconds", "minimum"},
		{"maxMessages 0", bus(mutate(t, minimalConsume, edit{"maxMessages", 0})), CodeSchemaViolation, "/maxMessages", "minimum"},
		{"maxMessages 10001", bus(mutate(t, minimalConsume, edit{"maxMessages", 10001})), CodeSchemaViolation, "/maxMessages", "maximum"},
		{"expirySeconds 0", bus(mutate(t, minimalDepth, edit{"expirySeconds", 0})), CodeSchemaViolation, "/expirySeconds", "minimum"},
		{"progressSeconds 0", bus(mutate(t, minimalTest, edit{"progressSeconds", 0})), CodeSchemaViolation, "/progressSeconds", "minimum"},
		{"durationSeconds 0", bus(mutate(t, minimalTest, edit{"durationSeconds", 0})), CodeSchemaViolation, "/durationSeconds", "minimum"},
		{"maxDepthShare 0", bus(mutate(t, minimalDepth, edit{"thresholds/maxDepthShare", 0})), CodeSchemaViolation, "/thresholds/maxDepthShare", "exclusiveMinimum"},
		{"maxDepthShare 1.5", bus(mutate(t, minimalDepth, edit{"thresholds/maxDepthShare", 1.5})), CodeSchemaViolation, "/thresholds/maxDepthShare", "maximum"},
		{"maxOldestMessageAgeSeconds -1", bus(mutate(t, minimalDepth, edit{"thresholds/maxOldestMessageAgeSeconds", -1})), CodeSchemaViolation, "/thresholds/maxOldestMessageAgeSeconds", "exclusiveMinimum"},
		{"thresholds empty", bus(mutate(t, minimalDepth, edit{"thresholds", map[string]any{}})), CodeSchemaViolation, "/thresholds", "minProperties"},
		{"thresholds unknown", bus(mutate(t, minimalDepth, edit{"thresholds/maxDepth", 10})), CodeSchemaViolation, "/thresholds/maxDepth", "additionalProperties"},
		// enums
		{"persistence", bus(mutate(t, minimalProduce, edit{"mqProps/persistence", "sometimes"})), CodeSchemaViolation, "/mqProps/persistence", "enum"},
		{"TEST mode unknown", bus(mutate(t, minimalTest, edit{"mode", "echo"})), CodeSchemaViolation, "/mode", "enum"},
		{"requestReply without replyQueue", bus(mutate(t, minimalTest, edit{"mode", "requestReply"})), CodeSchemaViolation, "/replyQueue", "required"},
		{"payload mode", bus(mutate(t, minimalProduce, edit{"payload/mode", "zeros"})), CodeSchemaViolation, "/payload/mode", "enum"},
		{"ack", bus(mutate(t, minimalConsume, edit{"ack", "maybe"})), CodeSchemaViolation, "/ack", "enum"},
		// base64
		{"fixedBase64 not base64", bus(mutate(t, minimalProduce, edit{"payload", map[string]any{"mode": "fixed", "fixedBase64": "not base64!"}})), CodeSchemaViolation, "/payload/fixedBase64", "contentEncoding"},
		{"fixedBase64 unpadded", bus(mutate(t, minimalProduce, edit{"payload", map[string]any{"mode": "fixed", "fixedBase64": "aGVsbG8"}})), CodeSchemaViolation, "/payload/fixedBase64", "contentEncoding"},
		{"fixedCorrelId not base64", bus(mutate(t, minimalProduce, edit{"mqProps", map[string]any{"correlIdMode": "fixed", "fixedCorrelIdBase64": "****"}})), CodeSchemaViolation, "/mqProps/fixedCorrelIdBase64", "contentEncoding"},
		{"fixedCorrelId 25 bytes", bus(mutate(t, minimalProduce, edit{"mqProps", map[string]any{"correlIdMode": "fixed", "fixedCorrelIdBase64": strings.Repeat("A", 36)}})), CodeSchemaViolation, "/mqProps/fixedCorrelIdBase64", "maxLength"},
		{"selector msgId not base64", bus(mutate(t, minimalConsume, edit{"selector/msgIdBase64", "@@@@"})), CodeSchemaViolation, "/selector/msgIdBase64", "contentEncoding"},
		{"selector correlId too long", bus(mutate(t, minimalConsume, edit{"selector/correlIdBase64", strings.Repeat("A", 36)})), CodeSchemaViolation, "/selector/correlIdBase64", "maxLength"},
		{"selector empty", bus(mutate(t, minimalConsume, edit{"selector", map[string]any{}})), CodeSchemaViolation, "/selector", "minProperties"},
		// conditional requirements
		{"fixed mode without fixedBase64", bus(mutate(t, minimalProduce, edit{"payload/mode", "fixed"})), CodeSchemaViolation, "/payload/fixedBase64", "required"},
		{"template mode without template", bus(mutate(t, minimalProduce, edit{"payload/mode", "template"})), CodeSchemaViolation, "/payload/template", "required"},
		{"fixed correlId without value", bus(mutate(t, minimalProduce, edit{"mqProps/correlIdMode", "fixed"})), CodeSchemaViolation, "/mqProps/fixedCorrelIdBase64", "required"},
		{"produce without batch", bus(mutate(t, minimalProduce, edit{"batch", deleteField})), CodeSchemaViolation, "/batch", "required"},
		{"batch without count", bus(mutate(t, minimalProduce, edit{"batch", map[string]any{}})), CodeSchemaViolation, "/batch/count", "required"},
		{"test without duration or count", bus(mutate(t, minimalTest, edit{"durationSeconds", deleteField})), CodeSchemaViolation, "", "anyOf"},
		{"redrive reason not an MQ name", bus(mutate(t, minimalRedrive, edit{"filter/reasons", []any{"Q_FULL"}})), CodeSchemaViolation, "/filter/reasons/0", "pattern"},
		{"redrive txSize over 1000", bus(mutate(t, minimalRedrive, edit{"txSize", 1001})), CodeSchemaViolation, "/txSize", "maximum"},
		{"redrive unknown filter", bus(mutate(t, minimalRedrive, edit{"filter/putApplName", "x"})), CodeSchemaViolation, "/filter/putApplName", "additionalProperties"},
		{"stop test without testId", bus(`{"operationType":"STOP_TEST"}`), CodeSchemaViolation, "/testId", "required"},
		{"stop test with target", bus(mutate(t, minimalStopTest, edit{"targetRef", "dev-qm1"})), CodeSchemaViolation, "/targetRef", "additionalProperties"},
		// target
		{"both target and targetRef", bus(mutate(t, minimalProduce, edit{"targetRef", "dev-qm1"})), CodeSchemaViolation, "", "oneOf"},
		{"neither target nor targetRef", bus(mutate(t, minimalProduce, edit{"target", deleteField})), CodeSchemaViolation, "", "oneOf"},
		{"target without queue", bus(mutate(t, minimalProduce, edit{"target/queue", deleteField})), CodeSchemaViolation, "/target/queue", "required"},
		{"queue name 49 chars", bus(mutate(t, minimalProduce, edit{"target/queue", strings.Repeat("Q", 49)})), CodeSchemaViolation, "/target/queue", "maxLength"},
		{"queue name bad char", bus(mutate(t, minimalProduce, edit{"target/queue", "DEV QUEUE"})), CodeSchemaViolation, "/target/queue", "pattern"},
		{"queue manager empty", bus(mutate(t, minimalProduce, edit{"target/queueManager", ""})), CodeSchemaViolation, "/target/queueManager", "minLength"},
		{"channel 21 chars", bus(mutate(t, minimalProduce, edit{"target/channel", strings.Repeat("C", 21)})), CodeSchemaViolation, "/target/channel", "maxLength"},
		{"connName without port", bus(mutate(t, minimalProduce, edit{"target/connName", "mq.example.com"})), CodeSchemaViolation, "/target/connName", "pattern"},
		{"connName bad list", bus(mutate(t, minimalProduce, edit{"target/connName", "a(1414),"})), CodeSchemaViolation, "/target/connName", "pattern"},
		{"ccdtUrl not a URL", bus(mutate(t, minimalProduce, edit{"target/ccdtUrl", "ccdt.json"})), CodeSchemaViolation, "/target/ccdtUrl", "format"},
		{"ccdtUrl bad scheme", bus(mutate(t, minimalProduce, edit{"target/ccdtUrl", "ftp://host/ccdt.json"})), CodeSchemaViolation, "/target/ccdtUrl", "pattern"},
		{"literal password", bus(mutate(t, minimalProduce, edit{"target/auth/passwordRef", "hunter2"})), CodeSchemaViolation, "/target/auth/passwordRef", "pattern"},
		{"literal keystore", bus(mutate(t, minimalProduce, edit{"target/ssl/keyStoreRef", "/etc/key.p12"})), CodeSchemaViolation, "/target/ssl/keyStoreRef", "pattern"},
		{"ssl enabled not boolean", bus(mutate(t, minimalProduce, edit{"target/ssl/enabled", "yes"})), CodeSchemaViolation, "/target/ssl/enabled", "type"},
		{"targetRef bad", bus(mutate(t, minimalDepth, edit{"targetRef", "../etc"})), CodeSchemaViolation, "/targetRef", "pattern"},
		// unknown fields
		{"unknown top-level field", bus(mutate(t, minimalProduce, edit{"bogus", 1})), CodeSchemaViolation, "/bogus", "additionalProperties"},
		{"unknown target field", bus(mutate(t, minimalProduce, edit{"target/port", 1414})), CodeSchemaViolation, "/target/port", "additionalProperties"},
		{"unknown batch field", bus(mutate(t, minimalProduce, edit{"batch/size", 1})), CodeSchemaViolation, "/batch/size", "additionalProperties"},
		{"consume field on produce", bus(mutate(t, minimalProduce, edit{"waitSeconds", 1})), CodeSchemaViolation, "/waitSeconds", "additionalProperties"},
		// maps
		{"too many tags", bus(mutate(t, minimalDepth, edit{"tags", manyStrings(51)})), CodeSchemaViolation, "/tags", "maxProperties"},
		{"tag value too long", bus(mutate(t, minimalDepth, edit{"tags/team", strings.Repeat("v", 257)})), CodeSchemaViolation, "/tags/team", "maxLength"},
		{"tag value not string", bus(mutate(t, minimalDepth, edit{"tags/n", 1})), CodeSchemaViolation, "/tags/n", "type"},
		{"header name bad", bus(mutate(t, minimalProduce, edit{"headers/1abc", "x"})), CodeSchemaViolation, "/headers/1abc", "additionalProperties"},
		{"header name with dash", bus(mutate(t, minimalProduce, edit{"headers/a-b", "x"})), CodeSchemaViolation, "/headers/a-b", "additionalProperties"},
		{"too many headers", bus(mutate(t, minimalProduce, edit{"headers", manyStrings(65)})), CodeSchemaViolation, "/headers", "maxProperties"},
		// names IBM MQ refuses with MQRC_PROPERTY_NAME_ERROR (2442)
		{"header name a selector keyword", bus(mutate(t, minimalProduce, edit{"headers/NULL", "x"})), CodeSchemaViolation, "/headers/NULL", "propertyName"},
		{"header name a keyword after usr.", bus(mutate(t, minimalProduce, edit{"headers/usr.between", "x"})), CodeSchemaViolation, "/headers/usr.between", "propertyName"},
		{"header name JMS", bus(mutate(t, minimalProduce, edit{"headers/JMSFoo", "x"})), CodeSchemaViolation, "/headers/JMSFoo", "propertyName"},
		{"header name usr.JMS", bus(mutate(t, minimalProduce, edit{"headers/usr.JMSx", "x"})), CodeSchemaViolation, "/headers/usr.JMSx", "propertyName"},
		{"header name two dots", bus(mutate(t, minimalProduce, edit{"headers/a..b", "x"})), CodeSchemaViolation, "/headers/a..b", "propertyName"},
		{"header name trailing dot", bus(mutate(t, minimalProduce, edit{"headers/a.", "x"})), CodeSchemaViolation, "/headers/a.", "propertyName"},
		{"header name Root", bus(mutate(t, minimalProduce, edit{"headers/Root.x", "x"})), CodeSchemaViolation, "/headers/Root.x", "propertyName"},
		{"header name Body", bus(mutate(t, minimalProduce, edit{"headers/Body", "x"})), CodeSchemaViolation, "/headers/Body", "propertyName"},
		{"header name mq with two dots", bus(mutate(t, minimalProduce, edit{"headers/mq.a.b", "x"})), CodeSchemaViolation, "/headers/mq.a.b", "propertyName"},
		{"header value over 1 KiB", bus(mutate(t, minimalProduce, edit{"headers/big", strings.Repeat("v", 1025)})), CodeSchemaViolation, "/headers/big", "maxLength"},
		// keys
		{"256-char key", bus(mutate(t, minimalDepth, edit{"idempotencyKey", long})), CodeInvalidKey, "/idempotencyKey", "maxLength"},
		{"control char in key", bus(mutate(t, minimalDepth, edit{"idempotencyKey", "a\x01b"})), CodeInvalidKey, "/idempotencyKey", "pattern"},
		{"non-ASCII key", bus(mutate(t, minimalDepth, edit{"idempotencyKey", "clé"})), CodeInvalidKey, "/idempotencyKey", "pattern"},
		{"empty key", bus(mutate(t, minimalDepth, edit{"idempotencyKey", ""})), CodeInvalidKey, "/idempotencyKey", "minLength"},
		{"256-char header key", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, IdempotencyKey: long}, CodeInvalidKey, "", "maxLength"},
		{"control char in header key", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, IdempotencyKey: "a\nb"}, CodeInvalidKey, "", "pattern"},
		// expiry metadata
		{"expiry header not a number", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, ExpirySeconds: "soon"}, CodeSchemaViolation, "/expirySeconds", "type"},
		{"expiry header fractional", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, ExpirySeconds: "1.5"}, CodeSchemaViolation, "/expirySeconds", "type"},
		{"expiry header zero", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, ExpirySeconds: "0"}, CodeSchemaViolation, "/expirySeconds", "minimum"},
		{"expiry header negative", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, ExpirySeconds: "-5"}, CodeSchemaViolation, "/expirySeconds", "minimum"},
		{"expiry header huge", Input{Body: []byte(minimalDepth), Transport: TransportHTTP, Operation: Depth, ExpirySeconds: "99999999999999999999"}, CodeSchemaViolation, "/expirySeconds", "maximum"},
		// operation
		{"unknown operation", bus(`{"operationType":"PURGE","targetRef":"x"}`), CodeUnknownOperation, "/operationType", "enum"},
		{"operation not a string", bus(`{"operationType":7,"targetRef":"x"}`), CodeUnknownOperation, "/operationType", "enum"},
		{"operation missing on bus", bus(`{"targetRef":"x"}`), CodeUnknownOperation, "/operationType", "required"},
		{"operation lower case", bus(`{"operationType":"depth","targetRef":"x"}`), CodeUnknownOperation, "/operationType", "enum"},
		{"operation mismatch on HTTP", httpIn(Produce, minimalConsume), CodeSchemaViolation, "/operationType", "const"},
		{"unknown route operation", httpIn("PURGE", minimalDepth), CodeUnknownOperation, "/operationType", "enum"},
		// raw input
		{"over 256 KiB", bus(oversize()), CodeTooLarge, "", "maxBytes"},
		{"malformed JSON", bus(`{"operationType":"DEPTH",`), CodeMalformedJSON, "", "json"},
		{"bad token", bus(`{"operationType":DEPTH}`), CodeMalformedJSON, "", "json"},
		{"trailing data", bus(minimalDepth + `{}`), CodeMalformedJSON, "", "json"},
		{"empty body", bus(``), CodeMalformedJSON, "", "json"},
		{"invalid UTF-8", bus("{\"operationType\":\"DEPTH\",\"targetRef\":\"a\xff\"}"), CodeMalformedJSON, "", "json"},
		{"array body", bus(`[1,2]`), CodeSchemaViolation, "", "type"},
		{"null body", bus(`null`), CodeSchemaViolation, "", "type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verr := mustReject(t, d, tt.in)
			if verr.Code != tt.code || !hasProblem(verr, tt.path, tt.rule) {
				t.Errorf("got %v\nwant code %s with a problem at %q rule %q", verr, tt.code, tt.path, tt.rule)
			}
			for _, p := range verr.Problems {
				if p.Message == "" || p.Rule == "" {
					t.Errorf("problem without message or rule: %+v", p)
				}
			}
			if strings.Contains(verr.Error(), "hunter2") {
				t.Errorf("the rejection echoes a secret: %v", verr)
			}
		})
	}
}

func TestDecodeRejectReportsEveryProblem(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	body := mutate(t, minimalProduce,
		edit{"batch/count", 0}, edit{"mqProps/priority", 10}, edit{"bogus", true}, edit{"targetRef", "x"})
	verr := mustReject(t, d, bus(body))
	want := []Problem{
		{"", "oneOf", `exactly one of "target", "targetRef" is allowed, found "target" and "targetRef"`},
		{"/batch/count", "minimum", "must be >= 1 but found 0"},
		{"/bogus", "additionalProperties", "is not a known field"},
		{"/mqProps/priority", "maximum", "must be <= 9 but found 10"},
	}
	if fmt.Sprint(verr.Problems) != fmt.Sprint(want) {
		t.Errorf("Problems =\n%v\nwant\n%v", verr.Problems, want)
	}
	if !strings.Contains(verr.Error(), "/batch/count: must be >= 1 but found 0 (minimum)") {
		t.Errorf("Error() = %q", verr.Error())
	}
}

// TestDecodeRejectsTrustStoreRef: IBM MQ's C client reads trusted CA
// certificates from the key repository only, so a trust store reference
// would be ignored; it is refused, saying where the certificates go.
func TestDecodeRejectsTrustStoreRef(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	body := mutate(t, minimalProduce, edit{"target/ssl", map[string]any{"cipherSpec": "ANY_TLS13", "keyStoreRef": "file:/k", "trustStoreRef": "file:/t.p12"}})
	verr := mustReject(t, d, bus(body))
	want := []Problem{{"/target/ssl/trustStoreRef", "additionalProperties",
		"is not supported: the IBM MQ client trusts the CA certificates in its key repository; add them to the one keyStoreRef names"}}
	if fmt.Sprint(verr.Problems) != fmt.Sprint(want) {
		t.Errorf("Problems =\n%v\nwant\n%v", verr.Problems, want)
	}
}

func TestDecodeTooLargeDoesNotParse(t *testing.T) {
	d := newDecoder(t, DecoderConfig{MaxBytes: 10})
	// Not JSON at all: only the size may be judged.
	verr := mustReject(t, d, bus(strings.Repeat("x", 11)))
	if verr.Code != CodeTooLarge {
		t.Errorf("Code = %s, want TOO_LARGE", verr.Code)
	}
	// Exactly at the limit is parsed (and fails as JSON).
	if verr := mustReject(t, d, bus(strings.Repeat("x", 10))); verr.Code != CodeMalformedJSON {
		t.Errorf("Code = %s, want MALFORMED_JSON", verr.Code)
	}
}

func TestDecodeExpiry(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	tests := []struct {
		name   string
		body   string
		header string
		want   time.Duration
	}{
		{"none", minimalDepth, "", 0},
		{"header", minimalDepth, "3600", time.Hour},
		{"header with spaces", minimalDepth, " 60 ", time.Minute},
		{"command", mutate(t, minimalDepth, edit{"expirySeconds", 120}), "", 2 * time.Minute},
		{"command wins over header", mutate(t, minimalDepth, edit{"expirySeconds", 120}), "3600", 2 * time.Minute},
		{"command spelled 60.0", strings.Replace(minimalDepth, `{`, `{"expirySeconds":60.0,`, 1), "", time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDecode(t, d, Input{Body: []byte(tt.body), Transport: TransportHTTP, Operation: Depth, ExpirySeconds: tt.header})
			if got.TTL != tt.want || got.Command.ExpirySeconds != int(tt.want/time.Second) {
				t.Errorf("TTL = %v, Command.ExpirySeconds = %d, want %v", got.TTL, got.Command.ExpirySeconds, tt.want)
			}
		})
	}
}

func TestDecodeUnknownTransport(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	_, err := d.Decode(Input{Body: []byte(minimalDepth)})
	if err == nil {
		t.Fatal("Decode without transport succeeded")
	}
	if _, ok := err.(*ValidationError); ok {
		t.Errorf("a caller bug reported as the sender's fault: %v", err)
	}
}

func manyStrings(n int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[fmt.Sprintf("k%d", i)] = "v"
	}
	return m
}

func oversize() string {
	pad := strings.Repeat("x", DefaultMaxBytes)
	return mutate(&testing.T{}, minimalDepth, edit{"tags/pad", pad})
}
