package executor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// markReplay returns recorded result data with its top-level replay field
// turned true and every other byte as recorded, so that a replay answers
// what the first execution answered and says truthfully that it is one.
// ok is false when the data is not an object with a boolean replay field.
func markReplay(recorded []byte) (body []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(recorded))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		if tok != "replay" {
			continue
		}
		// The decoder stops right after the value it returned.
		end := int(dec.InputOffset())
		start := end - len(value)
		if start < 0 || !bytes.Equal(recorded[start:end], value) {
			return nil, false
		}
		switch string(value) {
		case "true":
			return recorded, true
		case "false":
			return bytes.Join([][]byte{recorded[:start], []byte("true"), recorded[end:]}, nil), true
		}
		return nil, false
	}
	return nil, false
}

// keyReusedMessage says why a command was refused for its key, and what to
// do instead: a new key, or evicting the record that holds this one.
func keyReusedMessage(req idempotency.Request) string {
	evict := "mqprobe store evict " + req.OperationType + " " + shellWord(req.IdempotencyKey)
	if req.Tenant != "" {
		evict += " --tenant " + shellWord(req.Tenant)
	}
	return fmt.Sprintf("key %s is recorded for a different %s request: send this one with a new key, "+
		"or evict the record first to reuse the key (DELETE /idempotency/%s/%s, or %s)",
		req.IdempotencyKey, req.OperationType, req.OperationType, url.PathEscape(req.IdempotencyKey), evict)
}

// shellWord quotes s for a POSIX shell when it holds more than letters,
// digits and ._:/@+=- (keys are printable ASCII, spaces and quotes included).
func shellWord(s string) string {
	plain := strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:/@+=-", r))
	}) < 0
	if plain && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
