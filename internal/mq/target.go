package mq

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// Target says how to reach one queue manager. It is comparable: the pool
// keys connections by the whole normalized value, so two targets that differ
// in user, password or TLS never share a connection.
//
// Password is the resolved secret. String, GoString, LogValue and JSON never
// show it.
type Target struct {
	QueueManager string // required for client connections; "" means the default queue manager
	Channel      string // SVRCONN channel; required with ConnName
	ConnName     string // "host(port),host(port)" (host:port is accepted and normalized)
	CCDTURL      string // file:// or http(s):// client channel definition table; excludes Channel/ConnName
	TLS          TLS
	User         string
	Password     string `json:"-"`
	// ApplName is the application name the queue manager shows for the
	// connection (up to 28 characters); defaults to "mqprobe".
	ApplName string
}

// TLS configures channel encryption. It is on when CipherSpec is set.
type TLS struct {
	CipherSpec string // e.g. ANY_TLS13_OR_HIGHER, TLS_AES_128_GCM_SHA256
	// KeyRepository is a CMS key database's path stem (/var/mqm/ssl/key for
	// key.kdb with its key.sth stash file) or a PKCS #12 file's path
	// (/var/mqm/ssl/key.p12). It holds the client certificate, if any, and
	// the CA certificates the client trusts.
	KeyRepository string
	// KeyRepositoryPassword opens a PKCS #12 key repository without a stash
	// file (MQSCO KeyRepoPassword). Never shown, like Password.
	KeyRepositoryPassword string `json:"-"`
	CertLabel             string // optional client certificate label
	PeerName              string // optional distinguished-name filter for the server certificate
}

// Enabled reports whether the channel is to use TLS.
func (t TLS) Enabled() bool { return t.CipherSpec != "" }

// IBM's object-name limits.
const (
	maxQMgrNameLength    = 48
	maxChannelNameLength = 20
	maxApplNameLength    = 28
	defaultPort          = 1414
	defaultApplName      = "mqprobe"
)

// Normalized returns t with surrounding spaces trimmed, ConnName in
// "host(port),..." form and ApplName defaulted, so equal targets compare
// equal. An unparsable ConnName is left as it is for Validate to report.
func (t Target) Normalized() Target {
	t.QueueManager = strings.TrimSpace(t.QueueManager)
	t.Channel = strings.TrimSpace(t.Channel)
	t.CCDTURL = strings.TrimSpace(t.CCDTURL)
	t.User = strings.TrimSpace(t.User)
	t.ApplName = strings.TrimSpace(t.ApplName)
	if t.ApplName == "" {
		t.ApplName = defaultApplName
	}
	if eps, err := ParseConnName(t.ConnName); err == nil {
		t.ConnName = FormatConnName(eps)
	}
	return t
}

// Validate reports every setting that is out of range. A target with neither
// ConnName nor CCDTURL is a local (bindings or embedded) connection.
func (t Target) Validate() error {
	var errs []error
	if len(t.QueueManager) > maxQMgrNameLength {
		errs = append(errs, fmt.Errorf("mq target: queueManager must be at most %d characters", maxQMgrNameLength))
	} else if t.QueueManager != "" && !configcheck.IsMQName(t.QueueManager) {
		errs = append(errs, fmt.Errorf("mq target: queueManager %q may contain only A-Z a-z 0-9 . / _ %%", t.QueueManager))
	}
	if len(t.Channel) > maxChannelNameLength {
		errs = append(errs, fmt.Errorf("mq target: channel must be at most %d characters", maxChannelNameLength))
	} else if t.Channel != "" && !configcheck.IsMQName(t.Channel) {
		errs = append(errs, fmt.Errorf("mq target: channel %q may contain only A-Z a-z 0-9 . / _ %%", t.Channel))
	}
	if t.ConnName != "" {
		if _, err := ParseConnName(t.ConnName); err != nil {
			errs = append(errs, fmt.Errorf("mq target: connName: %w", err))
		}
		if t.Channel == "" {
			errs = append(errs, errors.New("mq target: channel is required with connName"))
		}
	}
	if t.CCDTURL != "" && (t.ConnName != "" || t.Channel != "") {
		errs = append(errs, errors.New("mq target: set either ccdtUrl or channel+connName, not both"))
	}
	if t.Password != "" && t.User == "" {
		errs = append(errs, errors.New("mq target: a password needs a user"))
	}
	if t.TLS.KeyRepositoryPassword != "" && t.TLS.KeyRepository == "" {
		errs = append(errs, errors.New("mq target: a key repository password needs a key repository"))
	}
	if !t.TLS.Enabled() && (t.TLS.KeyRepository != "" || t.TLS.CertLabel != "" || t.TLS.PeerName != "") {
		errs = append(errs, errors.New("mq target: tls settings need tls.cipherSpec"))
	}
	if len(t.ApplName) > maxApplNameLength {
		errs = append(errs, fmt.Errorf("mq target: applName must be at most %d characters", maxApplNameLength))
	}
	return errors.Join(errs...)
}

// Endpoint is one host and port of a connName list.
type Endpoint struct {
	Host string
	Port int
}

// ParseConnName parses IBM's "host(port),host(port)" list. It also accepts
// "host:port" and a bare host (port 1414) so hand-written configs work.
func ParseConnName(s string) ([]Endpoint, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty connName")
	}
	var eps []Endpoint
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		ep, err := parseEndpoint(part)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", part, err)
		}
		eps = append(eps, ep)
	}
	return eps, nil
}

func parseEndpoint(s string) (Endpoint, error) {
	host, portText := s, ""
	switch {
	case strings.HasSuffix(s, ")"):
		open := strings.IndexByte(s, '(')
		if open < 0 {
			return Endpoint{}, errors.New("unbalanced parentheses")
		}
		host, portText = strings.TrimSpace(s[:open]), strings.TrimSpace(s[open+1:len(s)-1])
	case strings.Count(s, ":") == 1 || strings.HasPrefix(s, "["):
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return Endpoint{}, err
		}
		host, portText = h, p
	}
	if host == "" {
		return Endpoint{}, errors.New("missing host")
	}
	if err := checkHost(host); err != nil {
		return Endpoint{}, err
	}
	port := defaultPort
	if portText != "" {
		p, err := strconv.Atoi(portText)
		if err != nil || p < 1 || p > 65535 {
			return Endpoint{}, fmt.Errorf("port %q must be 1-65535", portText)
		}
		port = p
	}
	return Endpoint{Host: host, Port: port}, nil
}

// checkHost accepts an IP address (IPv6 without a zone) or a DNS name:
// labels of 1-63 letters, digits, '-' or '_', at most 253 characters. What
// reaches MQCONNX is a C string, so anything else (a NUL, a control
// character, a space) would let the name a pattern matched differ from the
// host connected to.
func checkHost(host string) error {
	if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return fmt.Errorf("host %q: an IPv6 zone is not allowed", host)
		}
		return nil
	}
	if len(host) > 253 {
		return fmt.Errorf("host %.40q...: longer than 253 characters", host)
	}
	for label := range strings.SplitSeq(strings.TrimSuffix(host, "."), ".") {
		if len(label) == 0 || len(label) > 63 {
			return fmt.Errorf("host %q is neither an IP address nor a DNS name (labels are 1-63 characters)", host)
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("host %q is neither an IP address nor a DNS name (character %q)", host, c)
			}
		}
	}
	return nil
}

// FormatConnName renders endpoints as IBM's "host(port),host(port)".
func FormatConnName(eps []Endpoint) string {
	var b strings.Builder
	for i, ep := range eps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(ep.Host)
		b.WriteByte('(')
		b.WriteString(strconv.Itoa(ep.Port))
		b.WriteByte(')')
	}
	return b.String()
}

const redacted = "REDACTED"

// String describes the target without its password, e.g.
// "QM1 via DEV.APP.SVRCONN/mq1(1414) user=app password=REDACTED tls=ANY_TLS13".
func (t Target) String() string {
	var b strings.Builder
	b.WriteString(cmp.Or(t.QueueManager, "(default queue manager)"))
	switch {
	case t.CCDTURL != "":
		b.WriteString(" via ccdt ")
		b.WriteString(t.CCDTURL)
	case t.ConnName != "":
		b.WriteString(" via ")
		b.WriteString(t.Channel)
		b.WriteByte('/')
		b.WriteString(t.ConnName)
	}
	if t.User != "" {
		b.WriteString(" user=")
		b.WriteString(t.User)
	}
	if t.Password != "" {
		b.WriteString(" password=" + redacted)
	}
	if t.TLS.Enabled() {
		b.WriteString(" tls=")
		b.WriteString(t.TLS.CipherSpec)
	}
	return b.String()
}

// GoString keeps %#v from printing the password.
func (t Target) GoString() string { return "mq.Target{" + t.String() + "}" }

// LogValue makes slog print the target without its password.
func (t Target) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("queueManager", t.QueueManager)}
	if t.Channel != "" {
		attrs = append(attrs, slog.String("channel", t.Channel))
	}
	if t.ConnName != "" {
		attrs = append(attrs, slog.String("connName", t.ConnName))
	}
	if t.CCDTURL != "" {
		attrs = append(attrs, slog.String("ccdtUrl", t.CCDTURL))
	}
	if t.TLS.Enabled() {
		attrs = append(attrs, slog.String("cipherSpec", t.TLS.CipherSpec))
	}
	if t.User != "" {
		attrs = append(attrs, slog.String("user", t.User))
	}
	if t.Password != "" {
		attrs = append(attrs, slog.String("password", redacted))
	}
	return slog.GroupValue(attrs...)
}

// IsSystemQueue reports whether queue is one of the queue manager's own
// (SYSTEM.*), which mqprobe never writes to on a caller's behalf. MQ names
// are case-sensitive; any case of the prefix counts, to be safe.
func IsSystemQueue(queue string) bool {
	return len(queue) >= len("SYSTEM.") && strings.EqualFold(queue[:len("SYSTEM.")], "SYSTEM.")
}
