//go:build ibmmq

package ibmmq

import (
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// TestIBMSampleAMQSPCF runs IBM's amqspcf, which opens
// SYSTEM.ADMIN.COMMAND.QUEUE and SYSTEM.DEFAULT.MODEL.QUEUE (getting a
// temporary dynamic queue for the replies), sends INQUIRE_Q and prints
// the response's parameters: the queue's attributes come back from the
// command server, and the dynamic queue is gone once amqspcf closed it.
func TestIBMSampleAMQSPCF(t *testing.T) {
	bin := buildSamples(t, "amqspcf")
	srv := startSampleServer(t)
	verdicts := sampleVerdicts(t)
	amqspcf := filepath.Join(bin, "amqspcf")

	t.Run("inquire a queue", func(t *testing.T) {
		verdicts.ran(t, "amqspcf")
		out, err := runSample(srv, amqspcf, "DEV.QUEUE.1", "QM1")
		if err != nil {
			t.Fatalf("amqspcf: %v\n%s", err, strings.Join(out, "\n"))
		}
		dynamic := regexp.MustCompile(`^Opened queue (AMQ\.[0-9A-F]{16})$`)
		var replyQ string
		for _, line := range out {
			if m := dynamic.FindStringSubmatch(line); m != nil {
				replyQ = m[1]
			}
		}
		if replyQ == "" {
			t.Fatalf("amqspcf opened no dynamic reply queue AMQ.<16 hex digits>:\n%s", strings.Join(out, "\n"))
		}
		params := pcfLines(out)
		for name, want := range map[string]string{
			"MQCA_Q_NAME":          "DEV.QUEUE.1",
			"MQIA_Q_TYPE":          "MQQT_LOCAL",
			"MQIA_MAX_Q_DEPTH":     "5000",
			"MQIA_CURRENT_Q_DEPTH": "0",
			"MQIA_DEFINITION_TYPE": "MQQDT_PREDEFINED",
			"MQIA_MAX_MSG_LENGTH":  "4194304",
		} {
			if got := params[name]; got != want {
				t.Errorf("amqspcf %s = %q, want %q\n%s", name, got, want, strings.Join(out, "\n"))
			}
		}
		for _, line := range []string{
			"Opened queue SYSTEM.ADMIN.COMMAND.QUEUE",
			"Put message to command queue",
			"Closed queue " + replyQ,
			"Disconnected from queue manager QM1",
		} {
			if !containsLine(out, line) {
				t.Errorf("amqspcf did not print %q:\n%s", line, strings.Join(out, "\n"))
			}
		}
		if !regexp.MustCompile(`^Got message of format MQADMIN and length \d+: $`).MatchString(lineWithPrefix(t, out, "Got message")) {
			t.Errorf("amqspcf's reply is not an MQADMIN message:\n%s", strings.Join(out, "\n"))
		}
		expectNoQueue(t, srv, replyQ)
	})

	t.Run("unknown queue", func(t *testing.T) {
		verdicts.ran(t, "amqspcf")
		out, err := runSample(srv, amqspcf, "NO.SUCH.QUEUE", "QM1")
		if err != nil {
			t.Fatalf("amqspcf: %v\n%s", err, strings.Join(out, "\n"))
		}
		if !containsLine(out, "Command returned error MQRC_UNKNOWN_OBJECT_NAME [2085]") {
			t.Errorf("amqspcf of an unknown queue: want the command server's 2085:\n%s", strings.Join(out, "\n"))
		}
	})
}

// pcfLines reads amqspcf's "Name: <parameter, padded> Value: <value>" lines.
func pcfLines(lines []string) map[string]string {
	params := map[string]string{}
	for _, line := range lines {
		rest, ok := strings.CutPrefix(line, "Name: ")
		if !ok {
			continue
		}
		name, value, ok := strings.Cut(rest, " Value: ")
		if ok {
			params[strings.TrimSpace(name)] = strings.TrimSpace(value)
		}
	}
	return params
}

func containsLine(lines []string, want string) bool {
	for _, line := range lines {
		if line == want {
			return true
		}
	}
	return false
}

// expectNoQueue checks that the queue manager QM1 of srv has no queue name.
func expectNoQueue(t *testing.T, srv *mqserver.Server, name string) {
	t.Helper()
	defs, err := srv.Backend().QueueDefinitions("QM1")
	if err != nil {
		t.Fatalf("listing queues: %v", err)
	}
	for _, d := range defs {
		if d.Name == name {
			t.Errorf("queue %s still exists after the handle that created it was closed", name)
		}
	}
}

// TestIBMMQModelQueueRequestReply is a request/reply round trip through
// DEV.APP.MODEL.QUEUE with IBM's mq-golang binding: the requester's
// MQOPEN of the model creates APP.REPLIES.<unique> (MQOPEN returns the
// name), a responder on another connection answers to it by the request's
// ReplyToQ, and once the requester closes it the queue is gone: the
// responder's next put to it fails MQRC_UNKNOWN_OBJECT_NAME.
func TestIBMMQModelQueueRequestReply(t *testing.T) {
	srv := startSampleServer(t)
	passed := false
	t.Cleanup(func() {
		failed := 1
		if passed && !t.Failed() {
			failed = 0
		}
		mqsimtest.Verdict(t, "mq-golang-model-queue-request-reply", 1-failed, failed)
	})
	open := func(qmgr mqi.MQQueueManager, name string, options int32) mqi.MQObject {
		t.Helper()
		od := mqi.NewMQOD()
		od.ObjectName = name
		od.DynamicQName = "APP.REPLIES.*"
		obj, err := qmgr.Open(od, options)
		if err != nil {
			t.Fatalf("MQOPEN %s: %v", name, err)
		}
		return obj
	}
	requester, responder := connectApp(t, srv), connectApp(t, srv)

	replyQ := open(requester, mqserver.AppModelQueue, mqi.MQOO_INPUT_EXCLUSIVE|mqi.MQOO_INQUIRE)
	if !regexp.MustCompile(`^APP\.REPLIES\.[0-9A-F]{16}$`).MatchString(replyQ.Name) {
		t.Fatalf("MQOPEN of %s: ObjectName %q, want APP.REPLIES.<16 hex digits>", mqserver.AppModelQueue, replyQ.Name)
	}
	attrs, err := replyQ.Inq([]int32{mqi.MQIA_DEFINITION_TYPE, mqi.MQCA_Q_NAME})
	if err != nil {
		t.Fatalf("MQINQ of %s: %v", replyQ.Name, err)
	}
	if attrs[mqi.MQIA_DEFINITION_TYPE] != mqi.MQQDT_TEMPORARY_DYNAMIC || attrs[mqi.MQCA_Q_NAME] != replyQ.Name {
		t.Errorf("MQINQ of %s: %v, want DEFTYPE TEMPDYN (%d) and its own name", replyQ.Name, attrs, mqi.MQQDT_TEMPORARY_DYNAMIC)
	}

	requests := open(requester, "DEV.QUEUE.2", mqi.MQOO_OUTPUT)
	defer requests.Close(0)
	md := mqi.NewMQMD()
	md.MsgType = mqi.MQMT_REQUEST
	md.ReplyToQ = replyQ.Name
	md.Format = mqi.MQFMT_STRING
	pmo := mqi.NewMQPMO()
	pmo.Options = mqi.MQPMO_NO_SYNCPOINT | mqi.MQPMO_NEW_MSG_ID
	if err := requests.Put(md, pmo, []byte("ping")); err != nil {
		t.Fatalf("MQPUT request: %v", err)
	}
	requestID := md.MsgId

	// The responder answers by the request's ReplyToQ, correlated to its MsgId.
	inbox := open(responder, "DEV.QUEUE.2", mqi.MQOO_INPUT_SHARED)
	defer inbox.Close(0)
	got := mqi.NewMQMD()
	gmo := mqi.NewMQGMO()
	gmo.Options = mqi.MQGMO_NO_SYNCPOINT | mqi.MQGMO_WAIT
	gmo.WaitInterval = 30 * 1000
	buf := make([]byte, 64)
	n, err := inbox.Get(got, gmo, buf)
	if err != nil || string(buf[:n]) != "ping" || strings.TrimSpace(got.ReplyToQ) != replyQ.Name {
		t.Fatalf("responder MQGET: %q ReplyToQ %q, %v; want ping for %s", buf[:n], got.ReplyToQ, err, replyQ.Name)
	}
	putReply := func() error {
		od := mqi.NewMQOD()
		od.ObjectName = strings.TrimSpace(got.ReplyToQ)
		md := mqi.NewMQMD()
		md.MsgType = mqi.MQMT_REPLY
		md.CorrelId = got.MsgId
		return responder.Put1(od, md, mqi.NewMQPMO(), []byte("pong"))
	}
	if err := putReply(); err != nil {
		t.Fatalf("responder MQPUT1 to %s: %v", got.ReplyToQ, err)
	}

	reply := mqi.NewMQMD()
	reply.CorrelId = requestID
	gmo = mqi.NewMQGMO()
	gmo.Options = mqi.MQGMO_NO_SYNCPOINT | mqi.MQGMO_WAIT
	gmo.MatchOptions = mqi.MQMO_MATCH_CORREL_ID
	gmo.WaitInterval = 30 * 1000
	n, err = replyQ.Get(reply, gmo, buf)
	if err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("requester MQGET of the reply: %q, %v; want pong", buf[:n], err)
	}

	// Closing the creating handle deletes the queue.
	if err := replyQ.Close(0); err != nil {
		t.Fatalf("MQCLOSE %s: %v", replyQ.Name, err)
	}
	expectNoQueue(t, srv, replyQ.Name)
	if err := putReply(); reasonOf(err) != mqi.MQRC_UNKNOWN_OBJECT_NAME {
		t.Errorf("MQPUT1 to the deleted %s: %v, want MQRC_UNKNOWN_OBJECT_NAME", replyQ.Name, err)
	}
	passed = true
}

// connName is srv's MQCD ConnectionName.
// connectApp connects to QM1 on srv through DEV.APP.SVRCONN with IBM's
// binding, disconnected when t ends.
func connectApp(t *testing.T, srv *mqserver.Server) mqi.MQQueueManager {
	t.Helper()
	cno := mqi.NewMQCNO()
	cd := mqi.NewMQCD()
	cd.ChannelName = mqserver.AppChannel
	cd.ConnectionName = connName(t, srv)
	cno.ClientConn = cd
	cno.Options = mqi.MQCNO_CLIENT_BINDING
	qmgr, err := mqi.Connx("QM1", cno)
	if err != nil {
		t.Fatalf("MQCONNX: %v", err)
	}
	t.Cleanup(func() { _ = qmgr.Disc() })
	return qmgr
}

func connName(t *testing.T, srv *mqserver.Server) string {
	t.Helper()
	host, port, err := net.SplitHostPort(srv.Addr().String())
	if err != nil {
		t.Fatalf("server address: %v", err)
	}
	return host + "(" + port + ")"
}
