package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	kind "github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/result"
)

// rejected executes msg, which must be rejected, and returns its outcome
// and event.
func (f *fixture) rejected(msg command.Input) (executor.Outcome, result.Event) {
	f.t.Helper()
	out := f.exec.Execute(context.Background(), msg)
	evs := f.events()
	if out.Kind != kind.Rejected || len(evs) == 0 {
		f.t.Fatalf("%.100s: %+v, want rejected with an event", msg.Body, out)
	}
	return out, evs[len(evs)-1]
}

// TestRejectedBodyIsRedactedThenCapped: the raw body is cut to
// results.maxRawBodyBytes only once redacted, so the cut can neither keep
// part of a password nor leave one whole.
func TestRejectedBodyIsRedactedThenCapped(t *testing.T) {
	const secret = "Hunter2-Pasted-Secret-0123456789"
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		inner := `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","auth":{"user":"app","passwordRef":"` + secret + `"}}}`
		message, _ := json.Marshal(inner)
		envelope := `{"Type":"Notification","MessageId":"m-1","Message":` + string(message) + `,"Pad":"`
		// The cap falls in the middle of the password as sent.
		at := strings.Index(envelope, secret) + len(secret)/2
		envelope = strings.Replace(envelope, `"Type"`, `"Pad0":"`+strings.Repeat("x", rawBodyCap-at-len(`"Pad0":"",`))+`","Type"`, 1)
		envelope += `"}`
		if i := strings.Index(envelope, secret); i >= rawBodyCap || i+len(secret) <= rawBodyCap {
			t.Fatalf("the password (at %d) does not straddle the cap %d", i, rawBodyCap)
		}
		_, ev := f.rejected(busMessage(envelope))
		raw := ev.Data.RawBody
		if strings.Contains(raw, secret[:6]) || len(raw) > rawBodyCap || !strings.Contains(raw, `\"passwordRef\":\"<redacted>\"`) {
			t.Errorf("rawBody (%d bytes, cap %d) keeps part of the password or lost the redaction:\n%s", len(raw), rawBodyCap, raw)
		}
	})
}

// TestInvalidKeysAreEchoedCapped: an invalid idempotency key shows in the
// rejected event at most command.MaxEchoedKeyLength characters, escaped, and
// is not offered for the Idempotency-Key header; a valid one is echoed as
// given.
func TestInvalidKeysAreEchoedCapped(t *testing.T) {
	long := strings.Repeat("k", 100000)
	body := `{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"tags":{"n":1}}`
	withBodyKey := `{"operationType":"DEPTH","idempotencyKey":"` + strings.Repeat("b", 300) + `","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	tests := []struct {
		name, key, body string
		wantKey         string
		header          bool
	}{
		{"100,000 characters", long, body, strings.Repeat("k", command.MaxEchoedKeyLength) + "…(+99936 more)", false},
		{"control characters", "cmd\r\n\x00X-Injected: 1", body, `cmd\r\n\x00X-Injected: 1`, false},
		{"too long in the command", "", withBodyKey, strings.Repeat("b", command.MaxEchoedKeyLength) + "…(+236 more)", false},
		{"valid", "order-42", body, "order-42", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
				msg := busMessage(tt.body)
				msg.IdempotencyKey = tt.key
				out, ev := f.rejected(msg)
				if ev.Data.IdempotencyKey != tt.wantKey {
					t.Errorf("event key %.100q, want %q", ev.Data.IdempotencyKey, tt.wantKey)
				}
				if wantHeader := map[bool]string{true: tt.key}[tt.header]; out.Key != wantHeader {
					t.Errorf("Outcome.Key %.100q, want %q", out.Key, wantHeader)
				}
				if e := ev.Data.Error; len(e.Message) > 1000 || strings.Contains(e.Message, strings.Repeat("k", 300)) {
					t.Errorf("the error message holds the key: %.300s", e.Message)
				}
			})
		})
	}
}

// TestAuditLineCarriesTheKey: a rejected command's audit line names the
// key it gave, as its result event shows it, even when it was rejected
// before its key was resolved.
func TestAuditLineCarriesTheKey(t *testing.T) {
	tests := []struct {
		name string
		msg  command.Input
		want string
	}{
		{"metadata key, malformed JSON", busMessage(`{"operationType":"DEPTH","target":`), key},
		{"key in the command, schema violation", command.Input{Transport: command.TransportBus,
			Body: []byte(`{"operationType":"DEPTH","idempotencyKey":"body-key-7","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"tags":{"n":1}}`)}, "body-key-7"},
		{"over-long metadata key", command.Input{Transport: command.TransportBus, IdempotencyKey: strings.Repeat("k", 1000),
			Body: []byte(`{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`)},
			strings.Repeat("k", command.MaxEchoedKeyLength) + "…(+936 more)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
				var logs bytes.Buffer
				f.exec.Log = slog.New(slog.NewJSONHandler(&logs, nil))
				_, ev := f.rejected(tt.msg)
				var line struct{ Msg, Key, Outcome string }
				if err := json.Unmarshal(logs.Bytes(), &line); err != nil || line.Msg != "command" {
					t.Fatalf("audit line %q: %v", logs.String(), err)
				}
				if line.Key != tt.want || line.Outcome != "rejected" || ev.Data.IdempotencyKey != tt.want {
					t.Errorf("audit key %q (outcome %s), event key %q; want %q", line.Key, line.Outcome, ev.Data.IdempotencyKey, tt.want)
				}
			})
		})
	}
}
