//go:build ibmmq

package ibmmq

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// TestTLSChannels connects through the adapter's TLS settings (CipherSpec,
// key repository and its password, certificate label, peer name) over a
// TCP proxy to mqserver, and checks each outcome against IBM MQ's: the
// connection works over TLS, or fails with the reason IBM's client gives.
func TestTLSChannels(t *testing.T) {
	srv, pki := mqsimtest.StartTLS(t)
	proxy := mqsimtest.StartProxy(t, srv.Addr().String())
	dir := t.TempDir()
	const password = "repo-passw0rd"
	p12 := filepath.Join(dir, "client.p12")
	pki.KeyRepository(t, p12, password, false, true)
	kdbStem := filepath.Join(dir, "stashed")
	pki.KeyRepository(t, kdbStem+".kdb", password, false, true)
	withCert := filepath.Join(dir, "withcert.p12")
	pki.KeyRepository(t, withCert, password, true, false)
	cms := filepath.Join(dir, "cms")
	if err := os.WriteFile(cms+".kdb", []byte("\x00\x01not PKCS #12: a CMS key database"), 0o600); err != nil {
		t.Fatal(err)
	}
	mqsimtest.WriteStash(t, cms+".sth", password)
	untrusted := filepath.Join(dir, "untrusted.p12")
	mqsimtest.NewPKI(t).KeyRepository(t, untrusted, password, false, false)

	const tlsChannel = mqserver.TLSChannel
	target := func(channel, cipher, repo, repoPassword string) mq.Target {
		return mq.Target{QueueManager: "QM1", Channel: channel, ConnName: proxy.ConnName, User: mqsimtest.User,
			TLS: mq.TLS{CipherSpec: cipher, KeyRepository: repo, KeyRepositoryPassword: repoPassword}}
	}
	withPeer := func(tg mq.Target, peer string) mq.Target { tg.TLS.PeerName = peer; return tg }
	// A JSON CCDT's channel carries its own TLS settings; the target's
	// CipherSpec only makes the adapter pass the key repository (MQSCO).
	ccdt := func(name, security string) mq.Target {
		eps, err := mq.ParseConnName(proxy.ConnName)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".json")
		table := fmt.Sprintf(`{"channel":[{"name":%q,"type":"clientConnection","clientConnection":{"connection":[{"host":%q,"port":%d}],"queueManager":"QM1"},"transmissionSecurity":%s}]}`,
			tlsChannel, eps[0].Host, eps[0].Port, security)
		if err := os.WriteFile(path, []byte(table), 0o600); err != nil {
			t.Fatal(err)
		}
		return mq.Target{QueueManager: "QM1", CCDTURL: "file://" + path, User: mqsimtest.User,
			TLS: mq.TLS{CipherSpec: "ANY_TLS13", KeyRepository: p12, KeyRepositoryPassword: password}}
	}
	withLabel := func(tg mq.Target, label string) mq.Target { tg.TLS.CertLabel = label; return tg }
	cases := []struct {
		name   string
		target mq.Target
		want   mq.Reason // ReasonNone: connects, puts and gets
	}{
		{"PKCS #12 file with its password", target(tlsChannel, "ANY_TLS12_OR_HIGHER", p12, password), mq.ReasonNone},
		{"stem of a .kdb holding PKCS #12, password stashed", target(tlsChannel, "TLS_RSA_WITH_AES_128_CBC_SHA256", kdbStem, ""), mq.ReasonNone},
		{".p12 named in full, password stashed", target(mqsimtest.TLS13Channel, "TLS_AES_256_GCM_SHA384", p12, ""), mq.ReasonNone},
		{"TLS 1.2 named CipherSpec", target(tlsChannel, "ECDHE_RSA_AES_256_GCM_SHA384", p12, password), mq.ReasonNone},
		{"TLS 1.3 alias", target(tlsChannel, "ANY_TLS13", p12, password), mq.ReasonNone},
		{"wrong password", target(tlsChannel, "ANY_TLS12_OR_HIGHER", p12, "wrong"), 2381},
		{"no password and no stash", target(tlsChannel, "ANY_TLS12_OR_HIGHER", withCert, ""), 2381},
		{"a CMS .kdb", target(tlsChannel, "ANY_TLS12_OR_HIGHER", cms, ""), 2381},
		{"no key repository there", target(tlsChannel, "ANY_TLS12_OR_HIGHER", filepath.Join(dir, "nothing"), ""), 2381},
		{"server certificate not signed by a CA in the repository", target(tlsChannel, "ANY_TLS12_OR_HIGHER", untrusted, password), 2393},
		{"CipherSpec other than the channel's", target(mqsimtest.TLS13Channel, "TLS_AES_128_GCM_SHA256", p12, password), 2393},
		{"TLS 1.2 on a TLS 1.3 channel", target(mqsimtest.TLS13Channel, "ANY_TLS12", p12, password), 2393},
		{"unknown CipherSpec", target(tlsChannel, "TLS_NOT_A_CIPHERSPEC", p12, password), 2393},
		{"peer name matching the server's DN", withPeer(target(tlsChannel, "ANY_TLS12_OR_HIGHER", p12, password), "CN=QM1, OU=Simulator"), mq.ReasonNone},
		{"peer name pattern", withPeer(target(tlsChannel, "ANY_TLS12_OR_HIGHER", p12, password), "cn=qm*;O=MQPROBE"), mq.ReasonNone},
		{"peer name not matching", withPeer(target(tlsChannel, "ANY_TLS12_OR_HIGHER", p12, password), "CN=QM2"), 2398},
		{"malformed peer name", withPeer(target(tlsChannel, "ANY_TLS12_OR_HIGHER", p12, password), "QM1"), 2399},
		{"SSLCAUTH(REQUIRED) with the labelled client certificate", withLabel(target(mqsimtest.ClientAuthChannel, "ANY_TLS12_OR_HIGHER", withCert, password), mqsimtest.ClientLabel), mq.ReasonNone},
		{"SSLCAUTH(REQUIRED) over TLS 1.2", withLabel(target(mqsimtest.ClientAuthChannel, "ECDHE_RSA_AES_128_GCM_SHA256", withCert, password), mqsimtest.ClientLabel), mq.ReasonNone},
		{"SSLCAUTH(REQUIRED) without a certificate", target(mqsimtest.ClientAuthChannel, "ANY_TLS12_OR_HIGHER", p12, password), 2393},
		{"SSLCAUTH(REQUIRED), the default label ibmwebspheremq<user> not in the repository", target(mqsimtest.ClientAuthChannel, "ANY_TLS12_OR_HIGHER", withCert, password), 2393},
		{"a certificate label the repository does not hold", withLabel(target(tlsChannel, "ANY_TLS12_OR_HIGHER", withCert, password), "no-such-label"), 2393},
		{"client certificate not matching the channel's SSLPEER", withLabel(target(mqsimtest.WrongPeerChannel, "ANY_TLS12_OR_HIGHER", withCert, password), mqsimtest.ClientLabel), 2059},
		{"CCDT with cipherSpecification and certificatePeerName", ccdt("ccdt-good", `{"cipherSpecification":"ANY_TLS13","certificatePeerName":"CN=QM1"}`), mq.ReasonNone},
		{"CCDT whose certificatePeerName the server does not match", ccdt("ccdt-peer", `{"cipherSpecification":"ANY_TLS13","certificatePeerName":"CN=QM2"}`), 2398},
		{"CCDT with a certificateLabel the repository lacks", ccdt("ccdt-label", `{"cipherSpecification":"ANY_TLS13","certificateLabel":"no-such-label"}`), 2393},
		{"plain TCP on a TLS channel", target(tlsChannel, "", "", ""), 2059},
		{"TLS on a channel without a CipherSpec", target(mqserver.AppChannel, "ANY_TLS12_OR_HIGHER", p12, password), 2393},
	}
	backend := New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := proxy.FirstBytes()
			conn, err := backend.Connect(context.Background(), c.target)
			if c.want != mq.ReasonNone {
				if err == nil {
					conn.Close()
				}
				if got := mq.ReasonOf(err); got != c.want {
					t.Fatalf("connect: %v (reason %d), want reason %d", err, got, c.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer conn.Close()
			putAndGet(t, conn)
			// Every connection the client made spoke TLS from its first byte.
			if firsts := proxy.FirstBytes()[len(before):]; len(firsts) == 0 {
				t.Fatal("the proxy saw no connection")
			} else {
				for _, first := range firsts {
					if c.target.TLS.CipherSpec != "" && (len(first) < 3 || first[0] != 0x16 || first[1] != 0x03) {
						t.Errorf("first bytes %x, want a TLS handshake record (16 03 ..)", first)
					}
				}
			}
		})
	}
}

// TestBackendSuiteOverTLS runs the backend conformance suite, waits,
// units of work and broken connections included, over TLS.
func TestBackendSuiteOverTLS(t *testing.T) {
	pki := mqsimtest.NewPKI(t)
	repo := filepath.Join(t.TempDir(), "suite.p12")
	pki.KeyRepository(t, repo, "suite-passw0rd", false, true)
	mqtest.RunBackendSuite(t, mqtest.HarnessFunc(func(tb testing.TB) mqtest.Env {
		srv := mqsimtest.StartWithPKI(tb, pki)
		return mqtest.Env{Backend: New(), Target: srv.TLSTarget(repo, ""), Faults: srv.Faults()}
	}))
}

// putAndGet proves a connection carries MQI calls: a message put to
// DEV.QUEUE.1 comes back.
func putAndGet(t *testing.T, conn mq.Conn) {
	t.Helper()
	ctx := context.Background()
	q, err := conn.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput|mq.OpenInputShared)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer q.Close()
	body := []byte("over TLS")
	if _, err := q.Put(ctx, &mq.Message{Payload: body}, mq.PutOptions{}); err != nil {
		t.Fatalf("put: %v", err)
	}
	var got mq.Message
	if err := q.Get(ctx, &got, mq.GetOptions{}); err != nil || string(got.Payload) != string(body) {
		t.Fatalf("get: %v %q, want %q", err, got.Payload, body)
	}
}
