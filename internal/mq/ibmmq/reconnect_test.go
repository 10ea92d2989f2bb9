//go:build ibmmq

package ibmmq

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// Automatic client reconnection through IBM's Go binding and the client
// library, against an mqserver process killed (SIGKILL) and started again
// on the same data directory.

// connectTo connects to QM1 at connName through DEV.APP.SVRCONN with the
// MQCNO options and MQCD DefReconnect given, and opens DEV.QUEUE.1 for
// output and input.
func connectTo(t *testing.T, connName string, cnoOptions, defReconnect int32) (mqi.MQQueueManager, mqi.MQObject) {
	t.Helper()
	return connectOpen(t, connName, cnoOptions, defReconnect, mqi.MQOO_OUTPUT|mqi.MQOO_INPUT_SHARED)
}

// connectOpen is connectTo opening DEV.QUEUE.1 with openOptions.
func connectOpen(t *testing.T, connName string, cnoOptions, defReconnect, openOptions int32) (mqi.MQQueueManager, mqi.MQObject) {
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
	q, err := qm.Open(od, openOptions)
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

// TestAmqsgetReconnectsWithDefRecon: IBM's amqsget, unchanged, becomes
// reconnectable through DefRecon=YES in mqclient.ini, as IBM documents for
// existing programs: the server is killed and restarted while it waits for
// a second message, and it gets the message put after the restart.
func TestAmqsgetReconnectsWithDefRecon(t *testing.T) {
	bin := buildSamples(t, "amqsget")
	verdicts := sampleVerdicts(t)
	ini := filepath.Join(t.TempDir(), "mqclient.ini")
	if err := os.WriteFile(ini, []byte("CHANNELS:\n  DefRecon=YES\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQCLNTCF", ini)
	srv := startServerProcess(t, filepath.Join(t.TempDir(), "data"))
	// amqsget opens for exclusive input.
	_, putter := connectOpen(t, srv.ConnName(), mqi.MQCNO_RECONNECT, mqi.MQRCN_NO, mqi.MQOO_OUTPUT)
	wantReason(t, "first put", putText(putter, "before the restart", mqi.MQPMO_NO_SYNCPOINT), 0)

	verdicts.ran(t, "amqsget")
	cmd := exec.Command(filepath.Join(bin, "amqsget"), "DEV.QUEUE.1", "QM1")
	cmd.Env = sampleEnv(srv.ConnName())
	var stderr testenv.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var out []string
	next := func() (string, bool) {
		select {
		case line, ok := <-lines:
			if ok {
				out = append(out, line)
			}
			return line, ok
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("amqsget printed nothing for 60 s; so far:\n%s", strings.Join(out, "\n"))
			return "", false
		}
	}
	// Once it has the first message it waits (3 s) for another.
	for line, ok := next(); !strings.HasSuffix(line, ": before the restart"); line, ok = next() {
		if !ok {
			t.Fatalf("amqsget ended before getting the first message:\n%s\n%s", strings.Join(out, "\n"), stderr.String())
		}
	}
	srv.Down(t)
	srv.Up(t)
	wantReason(t, "put after the restart", putText(putter, "after the restart", mqi.MQPMO_NO_SYNCPOINT), 0)
	for _, ok := next(); ok; _, ok = next() {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("amqsget: %v\n%s\n%s", err, strings.Join(out, "\n"), stderr.String())
	}
	expectLines(t, "amqsget across a restart", out, []string{
		"Sample AMQSGET.GO start",
		"Connected to queue manager QM1",
		"Opened queue DEV.QUEUE.1",
		"Got message of length 18: before the restart",
		lineWithPrefix(t, out, "Message was put "),
		"Got message of length 17: after the restart",
		out[6],
		noMessage,
		"Closed queue",
		"Disconnected from queue manager QM1",
	})
}
