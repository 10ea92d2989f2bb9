package mq

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzParseConnName: whatever ParseConnName accepts has hosts with no
// control or space characters (what MQCONNX reads as a C string is what was
// matched), and formatting then parsing gives the same endpoints.
func FuzzParseConnName(f *testing.F) {
	for _, seed := range []string{"mq1(1414)", "a.example.com(1414),10.0.0.1(1415)", "2001:db8::1(1414)",
		"[::1]:1414", "host", "169.254.169.254\x00.mq.example.com(1414)", "a b(1)", "x(0)", "fe80::1%eth0(1414)"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		eps, err := ParseConnName(s)
		if err != nil {
			return
		}
		for _, ep := range eps {
			if i := strings.IndexFunc(ep.Host, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }); i >= 0 {
				t.Fatalf("%q: accepted host %q with a control or space character", s, ep.Host)
			}
			if ep.Port < 1 || ep.Port > 65535 {
				t.Fatalf("%q: port %d", s, ep.Port)
			}
		}
		again, err := ParseConnName(FormatConnName(eps))
		if err != nil || len(again) != len(eps) {
			t.Fatalf("%q formats as %q, which parses as %v, %v", s, FormatConnName(eps), again, err)
		}
		for i := range eps {
			if again[i] != eps[i] {
				t.Fatalf("%q: %v became %v", s, eps[i], again[i])
			}
		}
	})
}
