package targets

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// HostPattern is one entry of targets.inline.hosts, parsed. Its host part is
// either an IP pattern or a DNS pattern, never text to glob:
//   - an address (10.0.0.5, 2001:db8::1), a CIDR block (10.0.0.0/24,
//     2001:db8::/32), or IPv4 with trailing * octets (10.0.0.* is
//     10.0.0.0/24): it matches IP addresses only, by value;
//   - a DNS name whose labels may be * (exactly one label) or hold * and ?
//     within the label (qm-?.mq.example.com): it matches names only, label
//     by label, case-insensitively.
//
// An optional :port (or :* or a glob such as 14*) follows; IPv6 with a port
// is written [2001:db8::/32]:1414. Without a port, any port matches.
type HostPattern struct {
	prefix netip.Prefix // IP patterns
	labels []string     // DNS patterns, lower case
	port   string
}

// ParseHostPattern parses one targets.inline.hosts entry.
func ParseHostPattern(s string) (HostPattern, error) {
	host, port := s, "*"
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(s, "[") {
		return HostPattern{}, fmt.Errorf("%q: %w", s, err)
	}
	if port == "" || strings.Trim(port, "0123456789*?") != "" {
		return HostPattern{}, fmt.Errorf("%q: the port must be digits, * or ?", s)
	}
	if host == "" {
		return HostPattern{}, fmt.Errorf("%q: no host", s)
	}
	p := HostPattern{port: port}
	if prefix, ok, err := ipPattern(host); ok {
		if err != nil {
			return HostPattern{}, fmt.Errorf("%q: %w", s, err)
		}
		p.prefix = prefix
		return p, nil
	}
	for label := range strings.SplitSeq(strings.ToLower(host), ".") {
		if label == "" || len(label) > 63 || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-_*?") != "" {
			return HostPattern{}, fmt.Errorf("%q: %q is not a DNS label pattern (1-63 of a-z 0-9 - _ * ?)", s, label)
		}
		p.labels = append(p.labels, label)
	}
	return p, nil
}

// ipPattern reads host as an IP pattern; ok is false when host is not
// written as one (it is then a DNS pattern).
func ipPattern(host string) (prefix netip.Prefix, ok bool, err error) {
	if strings.Contains(host, "/") {
		prefix, err = netip.ParsePrefix(host)
		if err != nil {
			return netip.Prefix{}, true, fmt.Errorf("not a CIDR block: %w", err)
		}
		return prefix.Masked(), true, nil
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return netip.Prefix{}, true, errors.New("an IPv6 zone is not allowed")
		}
		return netip.PrefixFrom(addr, addr.BitLen()), true, nil
	}
	octets := strings.Split(host, ".")
	if len(octets) != 4 || strings.Trim(host, "0123456789.*") != "" || !strings.Contains(host, "*") {
		return netip.Prefix{}, false, nil
	}
	bits := 0
	for i, o := range octets {
		if o == "*" {
			for _, rest := range octets[i:] {
				if rest != "*" {
					return netip.Prefix{}, true, errors.New("* may only replace trailing octets (10.0.*.*); use a CIDR block")
				}
			}
			break
		}
		bits += 8
	}
	addr, err := netip.ParseAddr(strings.ReplaceAll(host, "*", "0"))
	if err != nil {
		return netip.Prefix{}, true, err
	}
	return netip.PrefixFrom(addr, bits).Masked(), true, nil
}

// Matches reports whether the endpoint is one the pattern admits. An
// address never matches a DNS pattern nor a name an IP pattern.
func (p HostPattern) Matches(ep mq.Endpoint) bool {
	if !Match(p.port, strconv.Itoa(ep.Port), false) {
		return false
	}
	if addr, err := netip.ParseAddr(ep.Host); err == nil {
		return p.prefix.IsValid() && p.prefix.Contains(addr.Unmap())
	}
	if p.prefix.IsValid() {
		return false
	}
	labels := strings.Split(strings.ToLower(strings.TrimSuffix(ep.Host, ".")), ".")
	if len(labels) != len(p.labels) {
		return false
	}
	for i, l := range labels {
		if !Match(p.labels[i], l, false) {
			return false
		}
	}
	return true
}
