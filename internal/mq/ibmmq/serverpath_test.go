//go:build ibmmq

package ibmmq

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// Tests of the adapter against what a real queue manager does, on the
// server path: this package, the client library (internal/mqsim/clientlib),
// and a queue manager served by mqserver in this process, whose Stats count
// the connections and handles the adapter leaves open.

// serverEnv is a queue manager server (mqsimtest) with IBM's developer
// objects (QM1, DEV.QUEUE.1, the alias DEV.ALIAS.1 and the remote
// definition DEV.REMOTE.1) and a target reaching it.
type serverEnv struct {
	t      *testing.T
	ctx    context.Context
	server *mqsimtest.Server
	target mq.Target
}

func newServerEnv(t *testing.T) *serverEnv {
	t.Helper()
	s := mqsimtest.Start(t)
	return &serverEnv{t: t, ctx: context.Background(), server: s, target: s.Target()}
}

// openOnServer connects to a fresh server and opens queue for output; the
// connection closes with the test.
func openOnServer(t *testing.T, queue string) (*serverEnv, mq.Conn, mq.Queue) {
	t.Helper()
	e := newServerEnv(t)
	c, err := New().Connect(e.ctx, e.target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	q, err := c.OpenQueue(e.ctx, queue, mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	return e, c, q
}

// settled waits for the server to see the client's closes (a disconnect
// reaches it after MQDISC returns) and returns its counts.
func (e *serverEnv) settled(want mqserver.Stats) mqserver.Stats {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := e.server.Stats()
		if st == want || time.Now().After(deadline) {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerWarnedConnectIsKeptAndClosed: a connect the client library
// answers with a warning holds a live connection on the queue manager; the
// adapter keeps it, uses it, and its Close leaves nothing open there.
func TestServerWarnedConnectIsKeptAndClosed(t *testing.T) {
	e := newServerEnv(t)
	realConnx := connx
	t.Cleanup(func() { connx = realConnx })
	connx = func(name string, cno *mqi.MQCNO) (mqi.MQQueueManager, error) {
		qm, err := realConnx(name, cno)
		if err != nil {
			return qm, err
		}
		return qm, &mqi.MQReturn{MQCC: mqi.MQCC_WARNING, MQRC: mqi.MQRC_SSL_ALREADY_INITIALIZED}
	}
	var logged bytes.Buffer
	backend := &Backend{Log: slog.New(slog.NewTextHandler(&logged, nil))}
	for range 3 {
		c, err := backend.Connect(e.ctx, e.target)
		if err != nil {
			t.Fatalf("warned connect: %v", err)
		}
		if st := e.server.Stats(); st.Connections != 1 {
			t.Errorf("server holds %d connections after one connect, want 1", st.Connections)
		}
		if _, err := mq.InquireQueue(e.ctx, c, "DEV.QUEUE.1"); err != nil {
			t.Errorf("inquire on the warned connection: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if st := e.settled(mqserver.Stats{}); st != (mqserver.Stats{}) {
			t.Fatalf("after close the server holds %+v, want nothing", st)
		}
	}
	if n := strings.Count(logged.String(), "MQRC_SSL_ALREADY_INITIALIZED (2391)"); n != 3 {
		t.Errorf("%d warnings logged, want 3: %s", n, logged.String())
	}
}

// TestServerInquireByQueueType: the queue manager answers an inquiry of a
// local queue's attributes on an alias or a remote definition with warning
// 2068 and no values; the adapter asks each type for its own attributes.
func TestServerInquireByQueueType(t *testing.T) {
	e, c, q := openOnServer(t, "DEV.QUEUE.1")
	if _, err := q.Put(e.ctx, &mq.Message{Payload: []byte("m")}, mq.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	for queue, want := range map[string]mq.QueueInfo{
		"DEV.QUEUE.1": {Name: "DEV.QUEUE.1", Type: mq.QueueLocal, CurrentDepth: 1, MaxDepth: 5000, OpenOutputCount: 1,
			MaxMsgLength: 4 * 1024 * 1024},
		"DEV.ALIAS.1":  {Name: "DEV.ALIAS.1", Type: mq.QueueAlias, BaseQueue: "DEV.QUEUE.1"},
		"DEV.REMOTE.1": {Name: "DEV.REMOTE.1", Type: mq.QueueRemote, RemoteQueue: "DEV.QUEUE.1", RemoteQueueManager: "QM2"},
	} {
		info, err := mq.InquireQueue(e.ctx, c, queue)
		if err != nil || info != want {
			t.Errorf("inquire %s = %+v, %v; want %+v", queue, info, err, want)
		}
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if st := e.server.Stats(); st.Handles != 0 {
		t.Errorf("the inquiries left %d handles open", st.Handles)
	}
}

// TestServerWrongQueueManagerName: a listener of another queue manager
// answers 2059; the pool retries it within the Acquire, then fails for good,
// naming the likely causes, and leaves no connection behind.
func TestServerWrongQueueManagerName(t *testing.T) {
	e := newServerEnv(t)
	var retries int
	pool, err := mq.NewPool(New(), mq.PoolConfig{
		Backoff: mq.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxAttempts: 3},
		OnRetry: func(mq.Target, int, time.Duration, error) { retries++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	wrong := e.target
	wrong.QueueManager = "QM9"
	_, err = pool.Acquire(e.ctx, wrong)
	e2059 := mqtest.WantReason(t, err, mq.ReasonQMgrNotAvailable)
	if e2059 != nil && (e2059.Transient() || retries != 2) {
		t.Errorf("2059 after %d retries, transient %v; want 2 retries, then permanent", retries, e2059.Transient())
	}
	for _, cause := range []string{`queue manager "QM9"`, "is the name (case included) of the queue manager listening there", "listener"} {
		if err != nil && !strings.Contains(err.Error(), cause) {
			t.Errorf("error %q does not say %q", err, cause)
		}
	}
	if st := e.settled(mqserver.Stats{}); st != (mqserver.Stats{}) {
		t.Errorf("refused connects left %+v on the server", st)
	}
}

// TestServerErrorPathsLeaveNothingOpen: failed calls close what they
// opened; the queue manager counts no connection or handle left behind.
func TestServerErrorPathsLeaveNothingOpen(t *testing.T) {
	e := newServerEnv(t)
	backend := New()
	unknownChannel := e.target
	unknownChannel.Channel = "NO.SUCH.SVRCONN"
	_, err := backend.Connect(e.ctx, unknownChannel)
	mqtest.WantReason(t, err, mq.ReasonUnknownChannelName)

	c, err := backend.Connect(e.ctx, e.target)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.OpenQueue(e.ctx, "NO.SUCH.QUEUE", mq.OpenOutput)
	mqtest.WantReason(t, err, mq.ReasonUnknownObjectName)
	if _, err := c.InquireQueueManager(e.ctx); err != nil {
		t.Fatal(err)
	}
	q, err := c.OpenQueue(e.ctx, "DEV.QUEUE.1", mq.OpenInquire)
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Put(e.ctx, &mq.Message{Payload: []byte("m"), Properties: mq.Properties{"p": "v"}}, mq.PutOptions{})
	mqtest.WantReason(t, err, mq.ReasonNotOpenForOutput)
	if st := e.server.Stats(); st != (mqserver.Stats{Connections: 1, Handles: 1}) {
		t.Errorf("with one queue open the server holds %+v, want 1 connection and 1 handle", st)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if st := e.settled(mqserver.Stats{}); st != (mqserver.Stats{}) {
		t.Errorf("after the failures and closes the server holds %+v, want nothing", st)
	}
}
