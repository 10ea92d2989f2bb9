package mqserver

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

// TLSConfig is the queue manager's certificate and the certificate
// authorities it trusts for client certificates (its key repository,
// SSLKEYR, as PEM files).
type TLSConfig struct {
	// CertificateFile and KeyFile are the server certificate (its chain
	// after it) and its private key, PEM. Without them no channel speaks
	// TLS: a TLS connection is refused.
	CertificateFile string
	KeyFile         string
	// TrustFile holds the PEM certificates of the certificate authorities
	// whose client certificates are accepted; empty means the system's.
	TrustFile string
}

// enabled reports whether a certificate is configured.
func (c TLSConfig) enabled() bool { return c.CertificateFile != "" || c.KeyFile != "" }

// tlsHandshakeTimeout bounds a TLS handshake, so that a client that starts
// one and stops does not hold its connection.
const tlsHandshakeTimeout = 30 * time.Second

// cipherSpec is what an IBM CipherSpec name allows: TLS versions, and one
// cipher suite or (0) any.
type cipherSpec struct {
	minVersion, maxVersion uint16
	suite                  uint16
}

// cipherSpecs are IBM MQ's CipherSpec names for TLS 1.2 and 1.3 that both
// Go's crypto/tls (the server) and OpenSSL (the client library) implement.
// The client library keeps the same table (clientlib/src/tls.c).
var cipherSpecs = map[string]cipherSpec{
	// Alias CipherSpecs. IBM's ANY also allows older protocols; this
	// server speaks TLS 1.2 at the least.
	"ANY":                 {tls.VersionTLS12, tls.VersionTLS13, 0},
	"ANY_TLS12":           {tls.VersionTLS12, tls.VersionTLS12, 0},
	"ANY_TLS12_OR_HIGHER": {tls.VersionTLS12, tls.VersionTLS13, 0},
	"ANY_TLS13":           {tls.VersionTLS13, tls.VersionTLS13, 0},
	"ANY_TLS13_OR_HIGHER": {tls.VersionTLS13, tls.VersionTLS13, 0},
	// TLS 1.3.
	"TLS_AES_128_GCM_SHA256":       {tls.VersionTLS13, tls.VersionTLS13, tls.TLS_AES_128_GCM_SHA256},
	"TLS_AES_256_GCM_SHA384":       {tls.VersionTLS13, tls.VersionTLS13, tls.TLS_AES_256_GCM_SHA384},
	"TLS_CHACHA20_POLY1305_SHA256": {tls.VersionTLS13, tls.VersionTLS13, tls.TLS_CHACHA20_POLY1305_SHA256},
	// TLS 1.2.
	"ECDHE_ECDSA_AES_128_CBC_SHA256":       {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256},
	"ECDHE_ECDSA_AES_128_GCM_SHA256":       {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
	"ECDHE_ECDSA_AES_256_GCM_SHA384":       {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384},
	"ECDHE_ECDSA_CHACHA20_POLY1305_SHA256": {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256},
	"ECDHE_RSA_AES_128_CBC_SHA256":         {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256},
	"ECDHE_RSA_AES_128_GCM_SHA256":         {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
	"ECDHE_RSA_AES_256_GCM_SHA384":         {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
	"ECDHE_RSA_CHACHA20_POLY1305_SHA256":   {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256},
	"TLS_RSA_WITH_AES_128_CBC_SHA256":      {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_RSA_WITH_AES_128_CBC_SHA256},
	"TLS_RSA_WITH_AES_128_GCM_SHA256":      {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_RSA_WITH_AES_128_GCM_SHA256},
	"TLS_RSA_WITH_AES_256_GCM_SHA384":      {tls.VersionTLS12, tls.VersionTLS12, tls.TLS_RSA_WITH_AES_256_GCM_SHA384},
}

// negotiatedCipherSpec is the CipherSpec name of the suite st
// negotiated, as channel status shows it (SSLCIPH); "" for plain TCP.
func negotiatedCipherSpec(st *tls.ConnectionState) string {
	if st == nil {
		return ""
	}
	for name, spec := range cipherSpecs {
		if spec.suite == st.CipherSuite {
			return name
		}
	}
	return ""
}

// tls12Suites are the TLS 1.2 suites the handshake accepts: every one a
// CipherSpec names. Go offers the TLS_RSA_* and CBC ones only when listed.
func tls12Suites() []uint16 {
	var suites []uint16
	for _, spec := range cipherSpecs {
		if spec.suite != 0 && spec.maxVersion == tls.VersionTLS12 {
			suites = append(suites, spec.suite)
		}
	}
	return suites
}

// allows reports whether a connection negotiated as st meets the spec.
func (c cipherSpec) allows(st *tls.ConnectionState) bool {
	return st.Version >= c.minVersion && st.Version <= c.maxVersion && (c.suite == 0 || c.suite == st.CipherSuite)
}

// serverTLS builds the handshake's configuration: every CipherSpec's
// version and suite, a client certificate verified against the trust
// store when one is sent. Which of them a channel accepts is decided at
// CONNECT, when the channel is known (checkChannelTLS). Nil without a
// certificate.
func (c TLSConfig) serverTLS() (*tls.Config, error) {
	if !c.enabled() {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(c.CertificateFile, c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("tls: certificate: %w", err)
	}
	var trust *x509.CertPool
	if c.TrustFile != "" {
		pem, err := os.ReadFile(c.TrustFile)
		if err != nil {
			return nil, fmt.Errorf("tls: trustFile: %w", err)
		}
		trust = x509.NewCertPool()
		if !trust.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls: trustFile %s holds no PEM certificate", c.TrustFile)
		}
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		CipherSuites: tls12Suites(),
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    trust,
	}, nil
}

// validateTLS checks a channel's TLS attributes.
func (ch Channel) validateTLS(at string) []error {
	var errs []error
	if _, ok := cipherSpecs[ch.CipherSpec]; ch.CipherSpec != "" && !ok {
		errs = append(errs, fmt.Errorf("%s.cipherSpec: %q is not a CipherSpec this server implements (ANY, ANY_TLS12, ANY_TLS12_OR_HIGHER, ANY_TLS13, ANY_TLS13_OR_HIGHER or a TLS 1.2/1.3 name such as TLS_AES_128_GCM_SHA256)", at, ch.CipherSpec))
	}
	if ch.CipherSpec == "" && (ch.ClientAuthRequired || ch.PeerName != "") {
		errs = append(errs, fmt.Errorf("%s: clientAuthRequired and peerName need a cipherSpec", at))
	}
	if ch.PeerName != "" {
		if _, err := parsePeerName(ch.PeerName); err != nil {
			errs = append(errs, fmt.Errorf("%s.peerName: %w", at, err))
		}
	}
	return errs
}

// Reasons a channel's TLS check gives the client. A handshake the channel
// does not accept (CipherSpec, client certificate) is the client's
// MQRC_SSL_INITIALIZATION_ERROR, as from IBM's client when the queue
// manager ends the handshake; a channel the client reached without TLS, or
// whose SSLPEER the client certificate does not match, ends as a refused
// channel, MQRC_Q_MGR_NOT_AVAILABLE.
const (
	rcSSLInitializationError int32 = 2393
)

// checkChannelTLS decides whether a connection with TLS state st (nil:
// plain TCP) may use ch: rc and why when not.
func checkChannelTLS(ch Channel, st *tls.ConnectionState) (rc int32, why string) {
	switch {
	case ch.CipherSpec == "" && st == nil:
		return 0, ""
	case ch.CipherSpec == "":
		return rcSSLInitializationError, "TLS on a channel without a CipherSpec (SSLCIPH)"
	case st == nil:
		return rcQMgrNotAvailable, "the channel has CipherSpec " + ch.CipherSpec + " and the client did not use TLS"
	}
	if !cipherSpecs[ch.CipherSpec].allows(st) {
		return rcSSLInitializationError, fmt.Sprintf("negotiated %s %s, the channel's CipherSpec is %s",
			tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), ch.CipherSpec)
	}
	if len(st.PeerCertificates) == 0 {
		if ch.ClientAuthRequired || ch.PeerName != "" {
			return rcSSLInitializationError, "the channel requires a client certificate (SSLCAUTH(REQUIRED) or SSLPEER) and the client sent none"
		}
		return 0, ""
	}
	if ch.PeerName != "" {
		pattern, _ := parsePeerName(ch.PeerName) // validated with the configuration
		if dn := st.PeerCertificates[0].Subject; !pattern.matches(dn.Names) {
			return rcQMgrNotAvailable, fmt.Sprintf("client certificate %q does not match SSLPEER %q", dn.String(), ch.PeerName)
		}
	}
	return 0, ""
}

// peerNamePattern is an SSLPEER value: attribute=value pairs, each value
// matched without regard to case, a trailing * matching any rest.
type peerNamePattern []struct{ attr, value string }

// dnAttributes are the attribute names IBM MQ's SSLPEER takes.
var dnAttributes = map[string]string{
	"2.5.4.3": "CN", "2.5.4.12": "T", "2.5.4.11": "OU", "2.5.4.10": "O", "2.5.4.7": "L",
	"2.5.4.8": "ST", "2.5.4.6": "C", "2.5.4.5": "SERIALNUMBER", "2.5.4.9": "STREET",
	"2.5.4.17": "PC", "2.5.4.46": "DNQ", "1.2.840.113549.1.9.1": "MAIL",
	"0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}

// dnAliases are other names IBM accepts for an attribute.
var dnAliases = map[string]string{"SP": "ST", "S": "ST", "E": "MAIL", "USERID": "UID", "POSTALCODE": "PC", "DNQUALIFIER": "DNQ"}

func parsePeerName(s string) (peerNamePattern, error) {
	var p peerNamePattern
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		attr, value, ok := strings.Cut(part, "=")
		attr = strings.ToUpper(strings.TrimSpace(attr))
		if alias, ok := dnAliases[attr]; ok {
			attr = alias
		}
		known := false
		for _, a := range dnAttributes {
			known = known || a == attr
		}
		if !ok || !known {
			return nil, fmt.Errorf("%q is not attribute=value with an attribute of a distinguished name (CN, OU, O, L, ST, C, ...)", strings.TrimSpace(part))
		}
		p = append(p, struct{ attr, value string }{attr, strings.TrimSpace(value)})
	}
	if len(p) == 0 {
		return nil, errors.New("empty distinguished-name pattern")
	}
	return p, nil
}

// matches reports whether a certificate subject (its attributes in the
// certificate's order) has every attribute of the pattern: the n-th OU of
// the pattern matches the n-th OU of the name, read from the most specific
// (CN) end as IBM shows a name.
func (p peerNamePattern) matches(names []pkix.AttributeTypeAndValue) bool {
	values := map[string][]string{}
	for i := len(names) - 1; i >= 0; i-- {
		if attr, ok := dnAttributes[names[i].Type.String()]; ok {
			if s, ok := names[i].Value.(string); ok {
				values[attr] = append(values[attr], s)
			}
		}
	}
	seen := map[string]int{}
	for _, pair := range p {
		n := seen[pair.attr]
		seen[pair.attr]++
		if n >= len(values[pair.attr]) || !matchDNValue(pair.value, values[pair.attr][n]) {
			return false
		}
	}
	return true
}

func matchDNValue(pattern, value string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return len(value) >= len(prefix) && strings.EqualFold(value[:len(prefix)], prefix)
	}
	return strings.EqualFold(pattern, value)
}

// isTLSClientHello reports whether a connection's first bytes are a TLS
// record carrying a handshake: 0x16, then a record version 0x03 0x01-0x04.
// A CONNECT frame's length is under 64 KiB, so its third byte is 0.
func isTLSClientHello(first []byte) bool {
	return len(first) == 3 && first[0] == 0x16 && first[1] == 0x03 && first[2] != 0
}

// bufferedConn reads through the session's reader, which has peeked at
// the first bytes, and writes to the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// startTLS looks at the connection's first bytes and, for a TLS
// ClientHello, completes the handshake and reads and writes through TLS
// from then on.
func (s *session) startTLS() error {
	first, err := s.r.Peek(3)
	if err != nil || !isTLSClientHello(first) {
		return nil // plain; a short connection ends in readFrame
	}
	if s.srv.tlsConfig == nil {
		return errors.New("a TLS handshake, and no certificate is configured (tls.certificateFile)")
	}
	tc := tls.Server(bufferedConn{Conn: s.nc, r: s.r}, s.srv.tlsConfig)
	if err := s.nc.SetDeadline(time.Now().Add(tlsHandshakeTimeout)); err != nil {
		return err
	}
	if err := tc.Handshake(); err != nil {
		return fmt.Errorf("TLS handshake: %w", err)
	}
	if err := s.nc.SetDeadline(time.Time{}); err != nil {
		return err
	}
	st := tc.ConnectionState()
	s.tls = &st
	s.r = bufio.NewReaderSize(tc, 64*1024)
	s.w = bufio.NewWriterSize(tc, 64*1024)
	return nil
}
