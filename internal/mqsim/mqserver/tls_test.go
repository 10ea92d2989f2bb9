package mqserver

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tlsTestServer serves the default channels plus a TLS 1.3-only one with
// a self-signed certificate (the C client's checks of the certificate are
// internal/mq/ibmmq's tests).
func tlsTestServer(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(1),
		Subject: pkix.Name{CommonName: "QM1"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)},
		&x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "QM1"}}, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := TLSConfig{CertificateFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
	for path, block := range map[string]*pem.Block{cfg.CertificateFile: {Type: "CERTIFICATE", Bytes: der},
		cfg.KeyFile: {Type: "PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	channels := append(DefaultChannels(), Channel{Name: "TLS13.SVRCONN", Users: []string{AppUser}, CipherSpec: "ANY_TLS13"})
	srv, err := Listen("127.0.0.1:0", Config{Channels: channels, Users: []User{{Name: AppUser}, {Name: AdminUser, Password: "x"}}, TLS: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Addr().String()
}

// dialTLS is dial over TLS with at most maxVersion.
func dialTLS(t *testing.T, addr string, maxVersion uint16) *client {
	t.Helper()
	nc, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, MaxVersion: maxVersion}) // the certificate is not what is tested
	if err != nil {
		t.Fatalf("TLS dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}
}

func TestTLSChannelsTakeOnlyTheirTransport(t *testing.T) {
	addr := tlsTestServer(t)
	cases := []struct {
		name    string
		client  func() *client
		channel string
		rc      int32
	}{
		{"TLS on the TLS channel", func() *client { return dialTLS(t, addr, tls.VersionTLS13) }, TLSChannel, rcNone},
		{"TLS 1.2 on the TLS channel", func() *client { return dialTLS(t, addr, tls.VersionTLS12) }, TLSChannel, rcNone},
		{"plain TCP on the TLS channel", func() *client { return dial(t, addr) }, TLSChannel, rcQMgrNotAvailable},
		{"TLS on a plain channel", func() *client { return dialTLS(t, addr, tls.VersionTLS13) }, AppChannel, rcSSLInitializationError},
		{"TLS 1.2 on a TLS 1.3 channel", func() *client { return dialTLS(t, addr, tls.VersionTLS12) }, "TLS13.SVRCONN", rcSSLInitializationError},
		{"plain TCP on a plain channel", func() *client { return dial(t, addr) }, AppChannel, rcNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := c.client().connect(connectArgs{qmgr: "QM1", channel: c.channel})
			want := ccOK
			if c.rc != rcNone {
				want = ccFailed
			}
			wantRC(t, "connect", r, want, c.rc)
		})
	}
}

func TestTLSHandshakeWithoutCertificateIsRefused(t *testing.T) {
	srv, err := Listen("127.0.0.1:0", Config{Users: []User{{Name: AppUser}, {Name: AdminUser, Password: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	nc, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := tls.Client(nc, &tls.Config{InsecureSkipVerify: true}).Handshake(); err == nil {
		t.Fatal("TLS handshake with a server that has no certificate succeeded")
	}
}

func TestTLSClientHelloIsToldFromAConnectFrame(t *testing.T) {
	for _, c := range []struct {
		first []byte
		tls   bool
	}{
		{[]byte{0x16, 0x03, 0x01}, true},
		{[]byte{0x16, 0x03, 0x03}, true},
		{[]byte{0x16, 0x03, 0x00}, false}, // a CONNECT of 0x316 bytes
		{[]byte{0x16, 0x00, 0x00}, false}, // a CONNECT of 0x16 bytes
		{[]byte{0x40, 0x00, 0x00}, false},
	} {
		if got := isTLSClientHello(c.first); got != c.tls {
			t.Errorf("isTLSClientHello(%x) = %v, want %v", c.first, got, c.tls)
		}
	}
}

func TestPeerNamePatterns(t *testing.T) {
	// As encoded (openssl req -subj /C=GB/O=Example/OU=EMEA/OU=Payments/CN=app1),
	// shown CN first: CN=app1, OU=Payments, OU=EMEA, O=Example, C=GB.
	attr := func(oid asn1.ObjectIdentifier, v string) pkix.AttributeTypeAndValue {
		return pkix.AttributeTypeAndValue{Type: oid, Value: v}
	}
	attrs := []pkix.AttributeTypeAndValue{attr(asn1.ObjectIdentifier{2, 5, 4, 6}, "GB"),
		attr(asn1.ObjectIdentifier{2, 5, 4, 10}, "Example"), attr(asn1.ObjectIdentifier{2, 5, 4, 11}, "EMEA"),
		attr(asn1.ObjectIdentifier{2, 5, 4, 11}, "Payments"), attr(asn1.ObjectIdentifier{2, 5, 4, 3}, "app1")}
	const subject = "CN=app1, OU=Payments, OU=EMEA, O=Example, C=GB"
	for _, c := range []struct {
		pattern string
		match   bool
	}{
		{"CN=app1", true},
		{"cn=APP*, o=example", true},
		{"CN=app1;OU=Payments;OU=EMEA", true},
		{"CN=app1, OU=EMEA, OU=Payments", false}, // OUs in the name's order
		{"CN=app2", false},
		{"CN=app1, L=London", false},
		{"C=GB, CN=app1", true},
	} {
		p, err := parsePeerName(c.pattern)
		if err != nil {
			t.Errorf("parsePeerName(%q): %v", c.pattern, err)
			continue
		}
		if got := p.matches(attrs); got != c.match {
			t.Errorf("%q matches %v: %v, want %v", c.pattern, subject, got, c.match)
		}
	}
	for _, bad := range []string{"", "app1", "XX=app1", "CN=app1, nonsense"} {
		if _, err := parsePeerName(bad); err == nil {
			t.Errorf("parsePeerName(%q) accepted", bad)
		}
	}
}

func TestConfigRejectsBadTLSSettings(t *testing.T) {
	users := []User{{Name: AppUser}}
	for _, c := range []struct {
		ch   Channel
		want string
	}{
		{Channel{Name: "A", Users: []string{AppUser}, CipherSpec: "TLS_RSA_WITH_DES_CBC_SHA"}, "channels[0].cipherSpec"},
		{Channel{Name: "A", Users: []string{AppUser}, ClientAuthRequired: true}, "need a cipherSpec"},
		{Channel{Name: "A", Users: []string{AppUser}, CipherSpec: "ANY", PeerName: "nonsense"}, "channels[0].peerName"},
	} {
		err := Config{Channels: []Channel{c.ch}, Users: users}.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.ch, err, c.want)
		}
	}
}

// TestChannelStatusShowsTLS: the command server shows a TLS channel's
// CipherSpec in its definition, and the CipherSpec a connection
// negotiated in its channel status, as IBM's SSLCIPH does; a plain
// connection shows none.
func TestChannelStatusShowsTLS(t *testing.T) {
	addr := tlsTestServer(t)
	c := dialTLS(t, addr, tls.VersionTLS12)
	r, _ := c.connect(connectArgs{qmgr: "QM1", channel: TLSChannel})
	wantRC(t, "connect", r, ccOK, rcNone)
	plain := dial(t, addr)
	r, _ = plain.connect(connectArgs{qmgr: "QM1", channel: AppChannel})
	wantRC(t, "connect", r, ccOK, rcNone)

	def := c.mustCommand(cmdInquireChannel, little().str(cachChannelName, TLSChannel))
	if got := def[0].params[cachSSLCipherSpec]; got != TLSChannelCipherSpec {
		t.Errorf("INQUIRE_CHANNEL %s SSLCIPH %q, want %q", TLSChannel, got, TLSChannelCipherSpec)
	}
	status := c.mustCommand(cmdInquireChannelStatus, little().str(cachChannelName, "DEV.*"))
	ciphers := map[string]any{}
	for _, s := range status {
		ciphers[s.params[cachChannelName].(string)] = s.params[cachSSLCipherSpec]
	}
	// The server's certificate is ECDSA; TLS 1.2 settles on an ECDHE_ECDSA suite.
	if got, _ := ciphers[TLSChannel].(string); !strings.HasPrefix(got, "ECDHE_ECDSA_") || ciphers[AppChannel] != "" {
		t.Errorf("channel status SSLCIPH by channel %v, want an ECDHE_ECDSA CipherSpec for %s and none for %s", ciphers, TLSChannel, AppChannel)
	}
}
