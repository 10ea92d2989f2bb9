package targets_test

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/targets"
)

func TestHostPatternMatchesByValueNotByText(t *testing.T) {
	cases := []struct {
		pattern string
		host    string
		port    int
		want    bool
	}{
		{"10.0.0.*", "10.0.0.7", 1414, true},
		{"10.0.0.*", "10.0.0.evil.example", 1414, false}, // a name never matches an IP pattern
		{"10.0.0.*", "10.0.0.1.nip.io", 443, false},
		{"10.0.0.*", "10.0.1.7", 1414, false},
		{"10.0.0.0/24", "10.0.0.255", 1, true},
		{"10.0.0.0/24:1414", "10.0.0.9", 1415, false},
		{"10.*.*.*", "10.200.3.4", 1414, true},
		{"10.0.0.5", "10.0.0.5", 1414, true},
		{"10.0.0.5", "10.0.0.50", 1414, false},
		{"[2001:db8::/32]:1414", "2001:db8::1", 1414, true},
		{"2001:db8::/32", "2001:db9::1", 1414, false},
		{"10.0.0.0/8", "::ffff:10.1.2.3", 1414, true}, // IPv4-mapped is the IPv4 address
		{"*.mq.example.com", "qm1.mq.example.com", 1414, true},
		{"*.mq.example.com", "QM1.MQ.Example.COM", 1414, true},
		{"*.mq.example.com", "a.b.mq.example.com", 1414, false}, // * is exactly one label
		{"*.mq.example.com", "mq.example.com", 1414, false},
		{"*.mq.example.com", "10.0.0.1", 1414, false}, // an address never matches a DNS pattern
		{"qm-?.mq.example.com:14*", "qm-1.mq.example.com", 1415, true},
		{"qm-?.mq.example.com:14*", "qm-10.mq.example.com", 1415, false},
		{"*.*.*.*", "10.0.0.1", 1414, true}, // four * octets: any IPv4 address...
		{"*.*.*.*", "a.b.c.d", 1414, false}, // ...and no name
	}
	for _, tc := range cases {
		p, err := targets.ParseHostPattern(tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := p.Matches(mq.Endpoint{Host: tc.host, Port: tc.port}); got != tc.want {
			t.Errorf("%q matching %s:%d = %v, want %v", tc.pattern, tc.host, tc.port, got, tc.want)
		}
	}
}

func TestHostPatternRefusesWhatItCannotMatchExactly(t *testing.T) {
	for pattern, says := range map[string]string{
		"10.*.0.1":          "trailing octets",
		"10.0.0.0/33":       "CIDR",
		"mq host":           "DNS label pattern",
		"a..example.com":    "DNS label pattern",
		"a.example.com:14x": "port",
		"fe80::1%eth0":      "zone",
		"":                  "no host",
	} {
		if _, err := targets.ParseHostPattern(pattern); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want an error saying %q", pattern, err, says)
		}
	}
}
