package executor

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"slices"
	"strings"

	"github.com/mqprobe/mqprobe/internal/secrets"
)

// redactedValue replaces a secret in a rejected command's raw body.
const redactedValue = "<redacted>"

// secretWords are what the name of a member holding a secret contains.
var secretWords = []string{"password", "keystore"}

// redactBody replaces, in a rejected command's body, the value of every
// member whose name holds "password" or "keystore" (any case) unless it is a
// secret reference: a password pasted into passwordRef must not travel on in
// the result event. It reads the body as text, not as a document, so it
// also finds such members where the body does not parse (invalid or
// truncated JSON, a value cut off) and inside JSON carried in strings (an
// SNS Message, an SQS Body) escaped any number of times; everything else is
// kept byte for byte. Names are matched as written, not through \u escapes.
func redactBody(body []byte) []byte {
	var out []byte
	kept, next := 0, 0 // body[:kept] is in out; body[:next] is scanned
	for _, at := range secretWordsAt(body) {
		if at < next {
			continue // in a name or value already scanned
		}
		start, end := nameAround(body, at, next)
		next = end
		v, ok := secretValue(body, start, end)
		if !ok {
			continue
		}
		out = append(out, body[kept:v.start]...)
		out = append(out, v.replacement...)
		kept, next = v.end, v.end
	}
	if out == nil {
		return body
	}
	return append(out, body[kept:]...)
}

// secretWordsAt returns the offsets of the secretWords in body, in order,
// ignoring ASCII case.
func secretWordsAt(body []byte) []int {
	lower := make([]byte, len(body))
	for i, c := range body {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	var at []int
	for _, w := range secretWords {
		for i := 0; ; i += len(w) {
			j := bytes.Index(lower[i:], []byte(w))
			if j < 0 {
				break
			}
			i += j
			at = append(at, i)
		}
	}
	slices.Sort(at)
	return at
}

// nameAround widens body[at:] to the text around it that a member name may
// hold: up to a quote, a backslash or a control character, not before from.
func nameAround(body []byte, at, from int) (start, end int) {
	inName := func(c byte) bool { return c != '"' && c != '\\' && c >= 0x20 }
	start, end = at, at
	for start > from && inName(body[start-1]) {
		start--
	}
	for end < len(body) && inName(body[end]) {
		end++
	}
	return start, end
}

// span is a value to replace: body[start:end] becomes replacement.
type span struct {
	start, end  int
	replacement string
}

// secretValue finds the value of the member named by body[start:end] when
// that is a quoted name followed by a colon, and says whether it must be
// redacted. Inside a string escaped n times, quotes are preceded by 2^n-1
// backslashes: the name's quotes give its escaping level, and its value
// must be at the same level.
func secretValue(body []byte, start, end int) (span, bool) {
	if start == 0 || body[start-1] != '"' {
		return span{}, false
	}
	slashes := backslashesBefore(body, start-1, 0)
	if slashes&(slashes+1) != 0 { // not 2^n-1: an escaped quote, not a delimiter
		return span{}, false
	}
	level := bits.Len(uint(slashes))
	quote := strings.Repeat(`\`, slashes) + `"`
	if !hasPrefixAt(body, end, quote) {
		return span{}, false
	}
	p := skipSpace(body, end+len(quote), level)
	if p >= len(body) || body[p] != ':' {
		return span{}, false
	}
	p = skipSpace(body, p+1, level)
	switch {
	case p >= len(body):
		return span{}, false // cut off before the value: nothing to hide
	case hasPrefixAt(body, p, quote):
		return stringValue(body, p+len(quote), level)
	case body[p] == '{' || body[p] == '[' || body[p] == '\\' || body[p] == '"':
		// An object or array (its members are scanned on their own), or a
		// quote of another level: not this member's value.
		return span{}, false
	}
	// A bare value (a number, or unquoted text in invalid JSON).
	e := p
	for e < len(body) && !strings.ContainsRune(",}] \t\r\n\\\"", rune(body[e])) {
		e++
	}
	switch string(body[p:e]) {
	case "null", "true", "false":
		return span{}, false
	}
	return span{start: p, end: e, replacement: quote + redactedValue + quote}, true
}

// stringValue is the string value starting at body[start] at the given
// escaping level: it ends at the first quote delimiting a string of that
// level or an enclosing one, or at the end of a truncated body. It is kept
// when its content is a secret reference.
func stringValue(body []byte, start, level int) (span, bool) {
	end := len(body)
	for q := start; q < len(body); q++ {
		if body[q] != '"' {
			continue
		}
		slashes := backslashesBefore(body, q, start)
		if ones := bits.TrailingZeros(^uint(slashes)); ones <= level {
			end = q - (1<<ones - 1)
			break
		}
	}
	if value, ok := unescape(string(body[start:end]), level+1); ok && secrets.IsReference(value) {
		return span{}, false
	}
	return span{start: start, end: end, replacement: redactedValue}, true
}

// unescape decodes s as the content of a JSON string, times times.
func unescape(s string, times int) (string, bool) {
	for range times {
		if json.Unmarshal([]byte(`"`+s+`"`), &s) != nil {
			return "", false
		}
	}
	return s, true
}

// backslashesBefore counts the backslashes right before body[i], not
// looking before body[from].
func backslashesBefore(body []byte, i, from int) int {
	n := 0
	for i-n-1 >= from && body[i-n-1] == '\\' {
		n++
	}
	return n
}

func hasPrefixAt(body []byte, i int, prefix string) bool {
	return i <= len(body) && bytes.HasPrefix(body[i:], []byte(prefix))
}

// skipSpace skips whitespace, written as is or, inside an escaped string
// (level > 0), as escapes such as \n.
func skipSpace(body []byte, p, level int) int {
	for p < len(body) {
		switch c := body[p]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p++
		case c == '\\' && level > 0:
			q := p
			for q < len(body) && body[q] == '\\' {
				q++
			}
			if q >= len(body) || !strings.ContainsRune("nrt", rune(body[q])) {
				return p
			}
			p = q + 1
		default:
			return p
		}
	}
	return p
}
