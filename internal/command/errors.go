package command

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Code classifies why a command was rejected. Every code means "never
// retry": the same bytes fail the same way.
type Code string

// Rejection codes.
const (
	CodeMalformedJSON    Code = "MALFORMED_JSON"
	CodeTooLarge         Code = "TOO_LARGE"
	CodeSchemaViolation  Code = "SCHEMA_VIOLATION"
	CodeUnknownOperation Code = "UNKNOWN_OPERATION"
	CodeInvalidKey       Code = "INVALID_KEY"
	CodeMissingKey       Code = "MISSING_KEY"
	// CodeKeyConflict: the command's idempotencyKey and the transport's
	// (Idempotency-Key header or message attribute) differ.
	CodeKeyConflict Code = "KEY_CONFLICT"
)

// Problem is one violation: where (a JSON Pointer into the unwrapped
// command; into the envelope for envelope faults; "" for the whole body or
// for transport metadata), which schema keyword failed ("minimum",
// "required", "enum", ...; "json" and "maxBytes" before parsing), and a
// sentence for humans that never echoes a value that failed a pattern.
type Problem struct {
	Path    string `json:"path"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// ValidationError rejects a command. Decode returns it for everything the
// sender got wrong; any other error is the daemon's fault.
type ValidationError struct {
	Code     Code      `json:"code"`
	Problems []Problem `json:"problems"`
	// Source names where the offending key came from (INVALID_KEY only).
	Source KeySource `json:"source,omitempty"`
	// Key is the idempotency key the command gave, as given (it may be the
	// invalid one): its idempotencyKey, else the transport's; "" when none
	// was found before the rejection. Show it through EchoKey.
	Key string `json:"-"`
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid command: ")
	b.WriteString(string(e.Code))
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if p.Path != "" {
			b.WriteString(p.Path)
			b.WriteString(": ")
		}
		b.WriteString(p.Message)
		if p.Rule != "" {
			b.WriteString(" (")
			b.WriteString(p.Rule)
			b.WriteString(")")
		}
	}
	return b.String()
}

func reject(code Code, path, rule, format string, args ...any) *ValidationError {
	return &ValidationError{Code: code, Problems: []Problem{{Path: path, Rule: rule, Message: fmt.Sprintf(format, args...)}}}
}

// schemaProblems flattens the library's error tree to its leaves, so each
// Problem names the field that is wrong rather than the keyword
// ($ref, allOf, then) that led there.
func (r *registry) schemaProblems(err *jsonschema.ValidationError) []Problem {
	var out []Problem
	r.flatten(err, &out)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

func (r *registry) flatten(e *jsonschema.ValidationError, out *[]Problem) {
	at := pointer(e.InstanceLocation)
	add := func(path, rule, format string, args ...any) {
		*out = append(*out, Problem{Path: path, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			add(at+"/"+escapeToken(name), "required", "is required")
		}
		return
	case *kind.AdditionalProperties:
		// Maps (tags, headers) constrain names with patternProperties;
		// say which names are allowed rather than "unknown field".
		var patterns []string
		if sch := r.byLocation[e.SchemaURL]; sch != nil {
			for re := range sch.PatternProperties {
				patterns = append(patterns, re.String())
			}
		}
		sort.Strings(patterns)
		for _, name := range k.Properties {
			if why, removed := removedFields[name]; removed {
				add(at+"/"+escapeToken(name), "additionalProperties", "%s", why)
				continue
			}
			if len(patterns) > 0 {
				add(at+"/"+escapeToken(name), "additionalProperties", "name %s must match %s", quoteValue(name), strings.Join(patterns, " or "))
			} else {
				add(at+"/"+escapeToken(name), "additionalProperties", "is not a known field")
			}
		}
		return
	case *kind.OneOf, *kind.AnyOf:
		if names := r.requiredAlternatives(e); names != nil {
			add(at, e.ErrorKind.KeywordPath()[0], "%s", alternativesMessage(k, names))
			return
		}
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			r.flatten(c, out)
		}
		return
	}
	add(at, rule(e.ErrorKind), "%s", describe(e.ErrorKind))
}

// removedFields are fields commands once accepted, with why they are gone,
// said instead of "is not a known field".
var removedFields = map[string]string{
	"trustStoreRef": "is not supported: the IBM MQ client trusts the CA certificates in its key repository; add them to the one keyStoreRef names",
}

// requiredAlternatives recognises "oneOf/anyOf of required-only branches"
// (target|targetRef, durationSeconds|count) and returns the field names, so
// the message can say "exactly one of" instead of listing each branch.
func (r *registry) requiredAlternatives(e *jsonschema.ValidationError) []string {
	sch := r.byLocation[e.SchemaURL]
	if sch == nil {
		return nil
	}
	branches := sch.OneOf
	if _, ok := e.ErrorKind.(*kind.AnyOf); ok {
		branches = sch.AnyOf
	}
	var names []string
	for _, b := range branches {
		if len(b.Required) != 1 || b.Properties != nil || b.Types != nil {
			return nil
		}
		names = append(names, b.Required[0])
	}
	return names
}

func alternativesMessage(k jsonschema.ErrorKind, names []string) string {
	list := quoteList(names)
	if o, ok := k.(*kind.OneOf); ok {
		if len(o.Subschemas) == 0 {
			return "exactly one of " + list + " is required, found none"
		}
		return "exactly one of " + list + " is allowed, found " +
			quoteValue(names[o.Subschemas[0]]) + " and " + quoteValue(names[o.Subschemas[1]])
	}
	return "at least one of " + list + " is required"
}

func rule(k jsonschema.ErrorKind) string {
	kw := k.KeywordPath()
	if len(kw) == 0 {
		return "schema"
	}
	return kw[0]
}

// describe words the leaf errors the command schemas can produce; anything
// else falls back to the library's own text.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be %s but found %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s but found %s", ratString(k.Want), ratString(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s but found %s", ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be > %s but found %s", ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be < %s but found %s", ratString(k.Want), ratString(k.Got))
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters long but has %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long but has %d", k.Want, k.Got)
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %d entries but has %d", k.Want, k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %d entries but has %d", k.Want, k.Got)
	case *kind.Pattern:
		// The value is not echoed: a literal password sent as passwordRef
		// fails here and must not reach logs or result events.
		return fmt.Sprintf("must match %s", k.Want)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = displayValue(w)
		}
		return fmt.Sprintf("must be one of %s but found %s", strings.Join(want, ", "), displayValue(k.Got))
	case *kind.Const:
		return fmt.Sprintf("must be %s but found %s", displayValue(k.Want), displayValue(k.Got))
	case *kind.ContentEncoding:
		return fmt.Sprintf("must be %s encoded: %v", k.Want, k.Err)
	case *kind.Format:
		// Not k.Err: parser errors quote the value, which may hold userinfo.
		return fmt.Sprintf("must be a valid %s", k.Want)
	case *kind.FalseSchema:
		return "is not allowed"
	}
	return k.LocalizedString(printer)
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// quoteValue shows a value the sender sent, escaped and cut short so a
// hostile field cannot flood logs or result events.
func quoteValue(s string) string {
	const max = 64
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return strconv.Quote(s)
}

func displayValue(v any) string {
	switch v := v.(type) {
	case string:
		return quoteValue(v)
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	default:
		return fmt.Sprint(v)
	}
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// pointer renders instance tokens as an RFC 6901 JSON Pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
