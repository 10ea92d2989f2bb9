package mqsimtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
)

// PKI is a certificate authority made for one test, with the queue
// manager's certificate and a client's, as PEM files in Dir.
type PKI struct {
	Dir string
	// CAFile is the authority's certificate; ServerCertFile and
	// ServerKeyFile the queue manager's (RSA, so that the TLS_RSA_*
	// CipherSpecs work); ClientCertFile and ClientKeyFile a client's.
	CAFile, ServerCertFile, ServerKeyFile, ClientCertFile, ClientKeyFile string
}

// Subjects of the certificates a PKI issues.
const (
	ServerDN = "CN=QM1,OU=Simulator,O=mqprobe"
	ClientDN = "CN=mqprobe-client,OU=Tests,O=mqprobe"
	// ClientLabel is the client certificate's label in key repositories.
	ClientLabel = "mqprobe-client"
)

// NewPKI issues a CA, a server and a client certificate into a temporary
// directory.
func NewPKI(tb testing.TB) *PKI {
	tb.Helper()
	dir := tb.TempDir()
	p := &PKI{Dir: dir, CAFile: filepath.Join(dir, "ca.pem"),
		ServerCertFile: filepath.Join(dir, "server.pem"), ServerKeyFile: filepath.Join(dir, "server.key"),
		ClientCertFile: filepath.Join(dir, "client.pem"), ClientKeyFile: filepath.Join(dir, "client.key")}
	caKey := ecKey(tb)
	caTemplate := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mqprobe test CA " + tb.Name()},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER := issue(tb, caTemplate, caTemplate, caKey.Public(), caKey)
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		tb.Fatalf("mqsimtest: CA certificate: %v", err)
	}
	writePEM(tb, p.CAFile, "CERTIFICATE", caDER)

	serverKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatalf("mqsimtest: server key: %v", err)
	}
	leaf := func(serial int64, subject pkix.Name, usage x509.ExtKeyUsage) *x509.Certificate {
		return &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: subject,
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, DNSNames: []string{"localhost"}}
	}
	serverDER := issue(tb, leaf(2, pkix.Name{CommonName: "QM1", OrganizationalUnit: []string{"Simulator"}, Organization: []string{"mqprobe"}},
		x509.ExtKeyUsageServerAuth), ca, serverKey.Public(), caKey)
	writePEM(tb, p.ServerCertFile, "CERTIFICATE", serverDER)
	writePEM(tb, p.ServerKeyFile, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(serverKey))

	clientKey := ecKey(tb)
	clientDER := issue(tb, leaf(3, pkix.Name{CommonName: "mqprobe-client", OrganizationalUnit: []string{"Tests"}, Organization: []string{"mqprobe"}},
		x509.ExtKeyUsageClientAuth), ca, clientKey.Public(), caKey)
	writePEM(tb, p.ClientCertFile, "CERTIFICATE", clientDER)
	der, err := x509.MarshalPKCS8PrivateKey(clientKey)
	if err != nil {
		tb.Fatalf("mqsimtest: client key: %v", err)
	}
	writePEM(tb, p.ClientKeyFile, "PRIVATE KEY", der)
	return p
}

func ecKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("mqsimtest: key: %v", err)
	}
	return k
}

func issue(tb testing.TB, template, parent *x509.Certificate, pub crypto.PublicKey, signer crypto.Signer) []byte {
	tb.Helper()
	der, err := x509.CreateCertificate(rand.Reader, template, parent, pub, signer)
	if err != nil {
		tb.Fatalf("mqsimtest: certificate %s: %v", template.Subject, err)
	}
	return der
}

func writePEM(tb testing.TB, path, kind string, der []byte) {
	tb.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		tb.Fatalf("mqsimtest: %v", err)
	}
}

// ServerTLS is the queue manager's TLS configuration: its certificate, and
// the CA as the authority of client certificates.
func (p *PKI) ServerTLS() mqserver.TLSConfig {
	return mqserver.TLSConfig{CertificateFile: p.ServerCertFile, KeyFile: p.ServerKeyFile, TrustFile: p.CAFile}
}

// KeyRepository writes a client key repository: PKCS #12 at path (a .p12
// or, as the simulator's client reads one, a .kdb) protected by password,
// holding the CA certificate and, when withClientCert, the client's
// certificate and key labelled ClientLabel. The stash file beside it
// (path's stem + .sth) holds the password when stash is set.
//
// The file is written by the openssl CLI (`openssl pkcs12 -export`), the
// reference implementation of the format the client library reads with
// the same OpenSSL; Go's standard library writes no PKCS #12.
func (p *PKI) KeyRepository(tb testing.TB, path, password string, withClientCert, stash bool) {
	tb.Helper()
	args := []string{"pkcs12", "-export", "-out", path, "-passout", "pass:" + password}
	if withClientCert {
		args = append(args, "-in", p.ClientCertFile, "-inkey", p.ClientKeyFile, "-certfile", p.CAFile, "-name", ClientLabel)
	} else {
		args = append(args, "-nokeys", "-in", p.CAFile)
	}
	if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
		tb.Fatalf("mqsimtest: openssl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if stash {
		WriteStash(tb, strings.TrimSuffix(strings.TrimSuffix(path, ".p12"), ".kdb")+".sth", password)
	}
}

// WriteStash writes a stash file as the simulator's client reads one:
// GSKit's classic format, each byte of the password XORed with 0xF5 and a
// byte that decodes to NUL after it.
func WriteStash(tb testing.TB, path, password string) {
	tb.Helper()
	stash := make([]byte, len(password)+1)
	for i := range len(password) {
		stash[i] = password[i] ^ 0xF5
	}
	stash[len(password)] = 0xF5
	if err := os.WriteFile(path, stash, 0o600); err != nil {
		tb.Fatalf("mqsimtest: stash: %v", err)
	}
}

// Channels of StartTLS besides mqserver's defaults (whose DEV.TLS.SVRCONN
// has ANY_TLS12_OR_HIGHER and SSLCAUTH(OPTIONAL)).
const (
	// TLS13Channel accepts only the CipherSpec TLS_AES_256_GCM_SHA384.
	TLS13Channel = "TLS.AES256.SVRCONN"
	// ClientAuthChannel has SSLCAUTH(REQUIRED) and SSLPEER ClientDN.
	ClientAuthChannel = "TLS.CAUTH.SVRCONN"
	// WrongPeerChannel has SSLCAUTH(REQUIRED) and an SSLPEER that
	// ClientDN does not match.
	WrongPeerChannel = "TLS.PEER.SVRCONN"
)

// StartTLS is Start with TLS: mqserver's DEV.TLS.SVRCONN and the channels
// above, the queue manager's certificate from a new PKI, which it returns.
func StartTLS(tb testing.TB) (*Server, *PKI) {
	tb.Helper()
	pki := NewPKI(tb)
	return StartWithPKI(tb, pki), pki
}

// StartWithPKI is StartTLS with the certificates of pki, which may serve
// several servers.
func StartWithPKI(tb testing.TB, pki *PKI) *Server {
	tb.Helper()
	channels := append(mqserver.DefaultChannels(),
		mqserver.Channel{Name: TLS13Channel, Users: []string{mqserver.AppUser}, CipherSpec: "TLS_AES_256_GCM_SHA384"},
		mqserver.Channel{Name: ClientAuthChannel, Users: []string{mqserver.AppUser}, CipherSpec: "ANY_TLS12_OR_HIGHER",
			ClientAuthRequired: true, PeerName: "CN=mqprobe-*, OU=Tests"},
		mqserver.Channel{Name: WrongPeerChannel, Users: []string{mqserver.AppUser}, CipherSpec: "ANY_TLS12_OR_HIGHER",
			ClientAuthRequired: true, PeerName: "CN=someone-else"})
	return start(tb, channels, pki.ServerTLS(), "")
}

// TLSTarget is QM1 on the server through DEV.TLS.SVRCONN as User, with
// CipherSpec ANY_TLS12_OR_HIGHER and the key repository keyRepository
// (opened by its stash or password).
func (s *Server) TLSTarget(keyRepository, password string) mq.Target {
	t := s.Target()
	t.Channel = mqserver.TLSChannel
	t.TLS = mq.TLS{CipherSpec: mqserver.TLSChannelCipherSpec, KeyRepository: keyRepository, KeyRepositoryPassword: password}
	return t
}
