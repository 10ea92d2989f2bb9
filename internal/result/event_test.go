package result_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestInvalidKeyIsOneCode: a key the engine refuses reads the same as one
// the decoder refuses.
func TestInvalidKeyIsOneCode(t *testing.T) {
	if result.CodeInvalidKey != string(command.CodeInvalidKey) {
		t.Errorf("result.CodeInvalidKey %q, command.CodeInvalidKey %q", result.CodeInvalidKey, command.CodeInvalidKey)
	}
}

// TestEncodedDataIsCarriedAsGiven: an event made from encoded data writes
// those bytes as its data — the same JSON New's event writes when they are
// Data's encoding, and what a record holds verbatim when replayed, fields
// this version does not know included — and a cut to fit re-encodes the
// data it changed.
func TestEncodedDataIsCarriedAsGiven(t *testing.T) {
	now := time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC)
	data := result.Data{OperationType: "CONSUME", IdempotencyKey: "k1", Status: result.StatusCompleted,
		Result: json.RawMessage(`{"messages":[{"id":"a"},{"id":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}],"count":2}`)}
	plain := result.New("mqprobe/i", data, now)
	encoded, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	once := result.NewEncoded("mqprobe/i", data, encoded, now)
	once.ID = plain.ID
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(once)
	if string(a) != string(b) {
		t.Errorf("encoded once:\n%s\nencoded from Data:\n%s", b, a)
	}

	recorded := []byte(`{"operationType":"CONSUME","idempotencyKey":"k1","status":"COMPLETED","replay":true,"newerField":1,"result":{"messages":[{"id":"a"},{"id":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}],"count":2}}`)
	replay := result.NewEncoded("mqprobe/i", data, recorded, now)
	body, err := result.Encode(replay, 0)
	if err != nil || !strings.HasSuffix(string(body), `"data":`+string(recorded)+`}`) {
		t.Errorf("replayed event %s (%v): want the recorded data verbatim", body, err)
	}
	cut, err := result.Encode(replay, len(body)-5)
	if err != nil || !strings.Contains(string(cut), `"truncated":true`) || strings.Contains(string(cut), `"id":"bbb`) {
		t.Errorf("event cut to fit: %s (%v), want the first message only, truncated", cut, err)
	}
}
