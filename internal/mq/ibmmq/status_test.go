//go:build ibmmq

package ibmmq

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// The backend suite's status case, with queue monitoring on: the oldest
// message's age and the last put come from the command server.
func TestBackendSuiteMonitored(t *testing.T) {
	mqtest.RunBackendSuite(t, mqtest.HarnessFunc(func(tb testing.TB) mqtest.Env {
		srv := mqsimtest.StartMonitored(tb)
		return mqtest.Env{Backend: New(), Target: srv.Target(), Faults: srv.Faults()}
	}))
}

// With MONQ on, INQUIRE_Q_STATUS says the queue is monitored; with it off
// (IBM's default) it says it is not.
func TestQueueStatusFollowsMONQ(t *testing.T) {
	for _, tc := range []struct {
		name      string
		start     func(testing.TB) *mqsimtest.Server
		monitored bool
	}{
		{"MONQ(MEDIUM)", mqsimtest.StartMonitored, true},
		{"MONQ(OFF)", mqsimtest.Start, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := New().Connect(ctx, srv.Target())
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer c.Close()
			q, err := c.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer q.Close()
			if _, err := q.Put(ctx, &mq.Message{Payload: []byte("x")}, mq.PutOptions{}); err != nil {
				t.Fatalf("put: %v", err)
			}
			st, err := c.InquireQueueStatus(ctx, "DEV.QUEUE.1")
			if err != nil {
				t.Fatalf("status: %v", err)
			}
			if st.Monitored != tc.monitored || st.CurrentDepth != 1 || (st.LastPut.IsZero() == tc.monitored) {
				t.Errorf("got %+v, want monitored %t, depth 1, last put only when monitored", st, tc.monitored)
			}
		})
	}
}

// Over TLS with a client certificate, the channel instance's status names
// the CipherSpec in use and the certificate's subject and issuer.
func TestChannelStatusOverTLS(t *testing.T) {
	pki := mqsimtest.NewPKI(t)
	repo := filepath.Join(t.TempDir(), "client.p12")
	pki.KeyRepository(t, repo, "status-passw0rd", true, true)
	srv := mqsimtest.StartWithPKI(t, pki)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	target := srv.TLSTarget(repo, "")
	target.TLS.CertLabel = mqsimtest.ClientLabel
	c, err := New().Connect(ctx, target)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close()
	st, err := c.InquireChannelStatus(ctx)
	if err != nil {
		t.Fatalf("channel status: %v", err)
	}
	if st.Channel != "DEV.TLS.SVRCONN" || st.Instances != 1 || !strings.HasPrefix(st.Cipher, "TLS_") ||
		!strings.Contains(st.PeerName, "CN=") || !strings.Contains(st.CertIssuer, "CN=") {
		t.Errorf("channel status over TLS: %+v", st)
	}
	// The queue manager's own certificate, as it presents it.
	pemBytes, err := os.ReadFile(pki.ServerCertFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemBytes)
	want, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.QueueManagerCertificate; got == nil || got.Subject != want.Subject.String() || got.Issuer != want.Issuer.String() ||
		!got.NotAfter.Equal(want.NotAfter) {
		t.Errorf("queue manager certificate %+v (unread: %q), want %s issued by %s until %s",
			got, st.CertificateUnread, want.Subject, want.Issuer, want.NotAfter)
	}
}

// sniName maps channel names as IBM MQ documents, with its own examples.
func TestSNIName(t *testing.T) {
	for channel, want := range map[string]string{
		"TO.QMGR1":        "to2e-qmgr1.chl.mq.ibm.com",
		"to.qmgr1":        "74-6f-2e-71-6d-67-72-1.chl.mq.ibm.com",
		"DEV.APP.SVRCONN": "dev2e-app2e-svrconn.chl.mq.ibm.com",
		"A_B%C/D-E":       "a5f-b25-c2f-d2d-e.chl.mq.ibm.com",
	} {
		if got := sniName(channel); got != want {
			t.Errorf("sniName(%q) = %q, want %q", channel, got, want)
		}
	}
}

// A connection's PCF commands share one reply queue, opened by the first
// and deleted when the connection closes: after the first, a DEPTH's
// status inquiry creates and deletes no queue on the queue manager.
func TestStatusInquiriesShareOneReplyQueue(t *testing.T) {
	srv := mqsimtest.StartMonitored(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := New().Connect(ctx, srv.Target())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer c.Close()
	replyQueues := func() []string {
		defs, err := srv.Backend().QueueDefinitions("QM1")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range defs {
			if strings.HasPrefix(d.Name, strings.TrimSuffix(replyDynamicQName, "*")) {
				names = append(names, d.Name)
			}
		}
		return names
	}
	var first []string
	for i := range 3 {
		if _, err := c.InquireQueueStatus(ctx, "DEV.QUEUE.1"); err != nil {
			t.Fatalf("status %d: %v", i, err)
		}
		if _, err := c.InquireChannelStatus(ctx); err != nil {
			t.Fatalf("channel status %d: %v", i, err)
		}
		got := replyQueues()
		if i == 0 {
			first = got
		}
		if len(got) != 1 || got[0] != first[0] {
			t.Fatalf("after %d inquiries the reply queues are %v, want the first one's %v alone", 2*(i+1), got, first)
		}
	}
	// Deleted under it (an operator's DELETE QLOCAL): the inquiry that
	// finds it gone fails, and the next opens a reply queue afresh.
	if err := srv.Backend().DeleteQueue("QM1", first[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InquireQueueStatus(ctx, "DEV.QUEUE.1"); !mq.IsReason(err, mq.Reason(2052)) {
		t.Fatalf("status with its reply queue deleted: %v, want MQRC_Q_DELETED (2052)", err)
	}
	if _, err := c.InquireQueueStatus(ctx, "DEV.QUEUE.1"); err != nil {
		t.Fatalf("status after the reply queue was deleted and the failure seen: %v", err)
	}
	if got := replyQueues(); len(got) != 1 || got[0] == first[0] {
		t.Fatalf("after the deletion the reply queues are %v, want one new one", got)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if left := replyQueues(); len(left) != 0 {
		t.Errorf("closing the connection left %v", left)
	}
}
