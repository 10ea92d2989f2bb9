//go:build ibmmq

package ibmmq

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"
)

// Automatic client reconnection through IBM's Go binding and the client
// library, against an mqserver process killed (SIGKILL) and started again
// on the same data directory.

// connectTo connects to QM1 at connName through DEV.APP.SVRCONN with the
// MQCNO options and MQCD DefReconnect given, and opens DEV.QUEUE.1 for
// output and input.
func connectTo(t *testing.T, connName string, cnoOptions, defReconnect int32) (mqi.MQQueueManager, mqi.MQObject) {
	t.Helper()
	cno := mqi.NewMQCNO()
	cno.Options = mqi.MQCNO_CLIENT_BINDING | cnoOptions
	cd := mqi.NewMQCD()
	cd.ChannelName = "DEV.APP.SVRCONN"
	cd.ConnectionName = connName
	cd.DefReconnect = defReconnect
	cno.ClientConn = cd
	qm, err := mqi.Connx("QM1", cno)
	if err != nil {
		t.Fatalf("MQCONNX: %v", err)
	}
	t.Cleanup(func() { qm.Disc() })
	od := mqi.NewMQOD()
	od.ObjectName = "DEV.QUEUE.1"
	q, err := qm.Open(od, mqi.MQOO_OUTPUT|mqi.MQOO_INPUT_SHARED)
	if err != nil {
		t.Fatalf("MQOPEN: %v", err)
	}
	return qm, q
}

func putText(q mqi.MQObject, text string, pmoOptions int32) error {
	md := mqi.NewMQMD()
	md.Persistence = mqi.MQPER_PERSISTENT
	md.Format = mqi.MQFMT_STRING
	pmo := mqi.NewMQPMO()
	pmo.Options = pmoOptions
	return q.Put(md, pmo, []byte(text))
}

func getText(q mqi.MQObject) (string, error) {
	gmo := mqi.NewMQGMO()
	gmo.Options = mqi.MQGMO_NO_SYNCPOINT
	buf := make([]byte, 1024)
	n, err := q.Get(mqi.NewMQMD(), gmo, buf)
	return string(buf[:n]), err
}

// mqrcOf is the MQRC of err, 0 for none.
func mqrcOf(err error) int32 {
	var mqret *mqi.MQReturn
	if errors.As(err, &mqret) {
		return mqret.MQRC
	}
	return 0
}

func wantReason(t *testing.T, what string, err error, rc int32) {
	t.Helper()
	if got := mqrcOf(err); got != rc || (rc != 0) != (err != nil) {
		t.Errorf("%s: %v, want reason %d", what, err, rc)
	}
}

// noClientIni keeps the machine's mqclient.ini files out of a test.
func noClientIni(t *testing.T) {
	t.Helper()
	t.Setenv("MQCLNTCF", filepath.Join(t.TempDir(), "none.ini"))
}

func TestReconnectAfterAServerRestart(t *testing.T) {
	noClientIni(t)
	srv := startServerProcess(t, filepath.Join(t.TempDir(), "data"))
	_, reconnecting := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT, mqi.MQRCN_NO)
	reconnectingQM, sameQMgr := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT_Q_MGR, mqi.MQRCN_NO)
	_, byChannel := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT_AS_DEF, mqi.MQRCN_YES)
	_, byDefault := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT_AS_DEF, mqi.MQRCN_NO)
	_, disabled := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT_DISABLED, mqi.MQRCN_YES)

	wantReason(t, "put before the restart", putText(reconnecting, "before", mqi.MQPMO_NO_SYNCPOINT), 0)
	wantReason(t, "put in a unit of work", putText(sameQMgr, "in flight", mqi.MQPMO_SYNCPOINT), 0)

	srv.Down(t)
	srv.Up(t)

	// Without reconnection the connection is lost, as today.
	wantReason(t, "put without MQCNO_RECONNECT", putText(byDefault, "x", mqi.MQPMO_NO_SYNCPOINT), mqi.MQRC_CONNECTION_BROKEN)
	wantReason(t, "put with MQCNO_RECONNECT_DISABLED", putText(disabled, "x", mqi.MQPMO_NO_SYNCPOINT), mqi.MQRC_CONNECTION_BROKEN)

	// The next call reconnects and reopens the handle it uses.
	wantReason(t, "put with MQCNO_RECONNECT", putText(reconnecting, "after", mqi.MQPMO_NO_SYNCPOINT), 0)
	wantReason(t, "put with the channel's DefReconnect", putText(byChannel, "by the channel's DEFRECON", mqi.MQPMO_NO_SYNCPOINT), 0)

	// The unit of work in flight went with the old connection.
	wantReason(t, "put in the lost unit of work", putText(sameQMgr, "x", mqi.MQPMO_SYNCPOINT), mqi.MQRC_BACKED_OUT)
	wantReason(t, "MQCMIT of the lost unit of work", reconnectingQM.Cmit(), mqi.MQRC_BACKED_OUT)
	wantReason(t, "put in a new unit of work", putText(sameQMgr, "committed after", mqi.MQPMO_SYNCPOINT), 0)
	wantReason(t, "MQCMIT of the new unit of work", reconnectingQM.Cmit(), 0)

	for _, want := range []string{"before", "after", "by the channel's DEFRECON", "committed after"} {
		got, err := getText(reconnecting)
		if err != nil || got != want {
			t.Fatalf("get = %q, %v; want %q", got, err, want)
		}
	}
	_, err := getText(reconnecting)
	wantReason(t, "get from the emptied queue", err, mqi.MQRC_NO_MSG_AVAILABLE)
}

// TestReconnectTimesOut: a server that stays down ends a reconnection
// after mqclient.ini's MQReconnectTimeout with MQRC_RECONNECT_TIMED_OUT,
// and DefRecon=YES makes a connection without reconnect options
// reconnectable.
func TestReconnectTimesOut(t *testing.T) {
	ini := filepath.Join(t.TempDir(), "mqclient.ini")
	if err := os.WriteFile(ini, []byte("CHANNELS:\n  DefRecon=YES\n  MQReconnectTimeout=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQCLNTCF", ini)
	srv := startServerProcess(t, filepath.Join(t.TempDir(), "data"))
	_, q := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT_AS_DEF, mqi.MQRCN_NO)
	srv.Down(t)
	start := time.Now()
	wantReason(t, "put while the server stays down", putText(q, "x", mqi.MQPMO_NO_SYNCPOINT), mqi.MQRC_RECONNECT_TIMED_OUT)
	if took := time.Since(start); took < time.Second {
		t.Errorf("gave up after %v, before the 2 s MQReconnectTimeout", took)
	}
}

// TestReconnectRestartsAGetWait: an MQGET waiting when the server dies is
// issued again on the new connection and gets a message put after the
// restart.
func TestReconnectRestartsAGetWait(t *testing.T) {
	noClientIni(t)
	srv := startServerProcess(t, filepath.Join(t.TempDir(), "data"))
	_, waiting := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT, mqi.MQRCN_NO)
	type result struct {
		text string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		gmo := mqi.NewMQGMO()
		gmo.Options = mqi.MQGMO_NO_SYNCPOINT | mqi.MQGMO_WAIT
		gmo.WaitInterval = 120 * 1000
		buf := make([]byte, 1024)
		n, err := waiting.Get(mqi.NewMQMD(), gmo, buf)
		got <- result{string(buf[:n]), err}
	}()
	// Nothing outside the server shows the get waiting; it almost always
	// is by the time the kill lands, and a get the kill beats finds the
	// connection lost as it starts, and reconnects as any call does.
	srv.Down(t)
	srv.Up(t)
	_, putter := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT_DISABLED, mqi.MQRCN_NO)
	wantReason(t, "put after the restart", putText(putter, "for the waiting get", mqi.MQPMO_NO_SYNCPOINT), 0)
	select {
	case r := <-got:
		if r.err != nil || r.text != "for the waiting get" {
			t.Fatalf("waiting get = %q, %v; want the message put after the restart", r.text, r.err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the waiting get did not return within 60 s of the restart")
	}
}

// TestReconnectQMgrWantsTheSameQueueManager: a server without a data
// directory comes back as a new queue manager (a new QMID), which an
// MQCNO_RECONNECT_Q_MGR connection refuses with 2546 and an
// MQCNO_RECONNECT one accepts.
func TestReconnectQMgrWantsTheSameQueueManager(t *testing.T) {
	noClientIni(t)
	srv := startServerProcess(t, "")
	_, sameQMgr := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT_Q_MGR, mqi.MQRCN_NO)
	_, anyQMgr := connectTo(t, srv.ConnName(), mqi.MQCNO_RECONNECT, mqi.MQRCN_NO)
	srv.Down(t)
	srv.Up(t)
	wantReason(t, "MQCNO_RECONNECT_Q_MGR to a new queue manager", putText(sameQMgr, "x", mqi.MQPMO_NO_SYNCPOINT), mqi.MQRC_RECONNECT_QMID_MISMATCH)
	wantReason(t, "MQCNO_RECONNECT to a new queue manager", putText(anyQMgr, "x", mqi.MQPMO_NO_SYNCPOINT), 0)
}
