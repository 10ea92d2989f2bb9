// Package configcheck owns the vocabulary every package's Config validates
// itself with: FieldError, a broken rule naming the dotted configuration
// key (mq.pool.maxWait), and Errors, which collects them so that a file's
// every problem is reported at once. It knows no package's settings.
package configcheck

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// FieldError is one broken rule: Key is the dotted key, Rule what it must be.
type FieldError struct {
	Key  string
	Rule string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Rule }

// Errors collects broken rules; the zero value is ready to use.
type Errors struct{ errs []error }

// Fail records that key breaks the rule format describes.
func (v *Errors) Fail(key, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Key: key, Rule: fmt.Sprintf(format, args...)})
}

// Add records err, flattening a joined error so that every rule stays one
// entry of Err's join.
func (v *Errors) Add(err error) {
	if err == nil {
		return
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			v.Add(e)
		}
		return
	}
	v.errs = append(v.errs, err)
}

// Err joins the broken rules, nil when there is none.
func (v *Errors) Err() error { return errors.Join(v.errs...) }

// OneOf requires got to be one of allowed.
func OneOf[T ~string](v *Errors, key string, got T, allowed ...T) {
	if !slices.Contains(allowed, got) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		v.Fail(key, "must be one of %s (got %q)", strings.Join(names, ", "), got)
	}
}

// Positive requires n > 0.
func (v *Errors) Positive(key string, n int) {
	if n <= 0 {
		v.Fail(key, "must be greater than 0 (got %d)", n)
	}
}

// NonNegative requires n >= 0.
func (v *Errors) NonNegative(key string, n int) {
	if n < 0 {
		v.Fail(key, "must not be negative (got %d)", n)
	}
}

// Between requires lo <= n <= hi.
func (v *Errors) Between(key string, n, lo, hi int) {
	if n < lo || n > hi {
		v.Fail(key, "must be between %d and %d (got %d)", lo, hi, n)
	}
}

// PositiveDuration requires d > 0.
func (v *Errors) PositiveDuration(key string, d time.Duration) {
	if d <= 0 {
		v.Fail(key, "must be greater than 0s (got %s)", FormatDuration(d))
	}
}

// NonNegativeDuration requires d >= 0.
func (v *Errors) NonNegativeDuration(key string, d time.Duration) {
	if d < 0 {
		v.Fail(key, "must not be negative (got %s)", FormatDuration(d))
	}
}

// IsMQName reports whether s is in IBM MQ's character set for object
// names: A-Z a-z 0-9 . / _ %. The empty name is one too; callers that
// require a name check that first.
func IsMQName(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '.', c == '/', c == '_', c == '%':
		default:
			return false
		}
	}
	return true
}

// MQName requires an IBM MQ object name of at most maxLen characters and
// reports whether name is one.
func (v *Errors) MQName(key, name string, maxLen int) bool {
	if name == "" {
		v.Fail(key, "required")
		return false
	}
	if len(name) > maxLen || !IsMQName(name) {
		v.Fail(key, "must be an MQ name of at most %d characters A-Z a-z 0-9 . _ %% / (got %q)", maxLen, name)
		return false
	}
	return true
}

// Patterns requires allowlist patterns (* and ? wildcards) matching re, or
// only non-empty ones when re is nil.
func (v *Errors) Patterns(key string, patterns []string, re *regexp.Regexp) {
	for i, p := range patterns {
		if p == "" || (re != nil && !re.MatchString(p)) {
			v.Fail(fmt.Sprintf("%s[%d]", key, i), "must be a non-empty pattern of name characters, * and ? (got %q)", p)
		}
	}
}

// FormatDuration renders d as a configuration file writes it, without the
// zero minutes and seconds time.Duration.String keeps ("24h0m0s" → "24h").
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
