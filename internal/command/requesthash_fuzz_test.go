package command_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/mqprobe/mqprobe/internal/command"
)

// FuzzRequestHash: any input either hashes to 64 hex digits or is refused;
// the hash ignores spelling (key order, whitespace, escapes), so a command
// re-encoded by encoding/json hashes the same; and hashing is deterministic.
func FuzzRequestHash(f *testing.F) {
	for _, s := range []string{
		`{"operationType":"PRODUCE","batch":{"count":1,"messageSizeBytes":2048},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`,
		`{"b":[1,2.5,-0,1e21,"\u00e9"],"a":{"z":null,"y":true}}`,
		`{"big":12345678901234567890,"small":1e-7,"neg":-1.5e300}`,
		`{"s":"\ud83d\ude00 tab\t nul\u0000"}`,
		`[]`, `"x"`, `0`, `{`, `{"a":1,"a":2}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		h, err := command.RequestHash(doc)
		if err != nil {
			return
		}
		if b, derr := hex.DecodeString(h); derr != nil || len(b) != 32 {
			t.Fatalf("hash %q of %q is not 64 hex digits", h, doc)
		}
		if again, _ := command.RequestHash(doc); again != h {
			t.Fatalf("hash of %q changed: %s then %s", doc, h, again)
		}
		// Re-encoding keeps the value, so it keeps the hash. Documents with
		// duplicate keys, invalid UTF-8 or escaped surrogates (which
		// encoding/json replaces, and I-JSON forbids unpaired) have no single
		// value.
		var v any
		dec := json.NewDecoder(bytes.NewReader(doc))
		if !utf8.Valid(doc) || surrogateEscape.Match(doc) || dec.Decode(&v) != nil || dec.More() || hasDuplicateKeys(doc) {
			return
		}
		reencoded, err := json.Marshal(v)
		if err != nil {
			return
		}
		if h2, err := command.RequestHash(reencoded); err != nil || h2 != h {
			t.Fatalf("re-encoded %q as %q: hash %s, %v; want %s", doc, reencoded, h2, err, h)
		}
	})
}

var surrogateEscape = regexp.MustCompile(`(?i)\\ud[89a-f]`)

// hasDuplicateKeys reports whether some object in doc repeats a key.
func hasDuplicateKeys(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				if top != nil && !top.expectKey && top.keys != nil {
					top.expectKey = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
			case '[':
				if top != nil && top.keys != nil {
					top.expectKey = true
				}
				stack = append(stack, &frame{})
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if top != nil && top.keys != nil && top.expectKey {
				if top.keys[tok] {
					return true
				}
				top.keys[tok] = true
				top.expectKey = false
				continue
			}
			if top != nil && top.keys != nil {
				top.expectKey = true
			}
		default:
			if top != nil && top.keys != nil {
				top.expectKey = true
			}
		}
	}
}
