//go:build ibmmq

package ibmmq

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
)

// TestIBMSampleAmqsset runs IBM's amqsset sample, which MQSETs a queue's
// InhibitPut, TriggerControl and TriggerData, against an mqserver of its
// own (it leaves the queue put-inhibited), then checks the change took:
// MQINQ answers the new values and IBM's amqsput is refused 2051.
func TestIBMSampleAmqsset(t *testing.T) {
	bin := buildSamples(t, "amqsset", "amqsput")
	srv := startSampleServer(t)
	verdicts := sampleVerdicts(t)
	const queue = "DEV.QUEUE.3"
	before := time.Now().UTC().Truncate(time.Second)

	verdicts.ran(t, "amqsset")
	out, err := runSample(srv, filepath.Join(bin, "amqsset"), queue, "QM1")
	if err != nil {
		t.Fatalf("amqsset: %v\n%s", err, strings.Join(out, "\n"))
	}
	expectLines(t, "amqsset", out, []string{
		"Sample AMQSSET.GO start",
		"Connected to queue manager QM1",
		"Object attributes successfully changed",
		"Disconnected from queue manager QM1",
	})

	attrs := inquireQueue(t, srv, queue, mqi.MQIA_INHIBIT_PUT, mqi.MQIA_TRIGGER_CONTROL, mqi.MQCA_TRIGGER_DATA)
	if attrs[mqi.MQIA_INHIBIT_PUT] != int32(mqi.MQQA_PUT_INHIBITED) || attrs[mqi.MQIA_TRIGGER_CONTROL] != int32(mqi.MQTC_ON) {
		t.Errorf("after amqsset MQINQ answers %v, want PUT_INHIBITED and TRIGGER_CONTROL ON", attrs)
	}
	data, _ := attrs[mqi.MQCA_TRIGGER_DATA].(string)
	stamp, ok := strings.CutPrefix(strings.TrimSpace(data), "Data set at ")
	at, perr := time.Parse(time.RFC3339, stamp)
	if !ok || perr != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("TriggerData %q: want amqsset's \"Data set at <now>\"", data)
	}

	verdicts.ran(t, "amqsput")
	out, err = runSample(srv, filepath.Join(bin, "amqsput"), queue, "QM1")
	if err == nil || !strings.Contains(strings.Join(out, "\n"), "MQRC_PUT_INHIBITED [2051]") {
		t.Errorf("amqsput to the put-inhibited queue: %v\n%s\nwant MQRC_PUT_INHIBITED", err, strings.Join(out, "\n"))
	}
}

// inquireQueue MQINQs a queue of srv through this client library.
func inquireQueue(t *testing.T, srv *mqserver.Server, queue string, selectors ...int32) map[int32]interface{} {
	t.Helper()
	host, port, err := net.SplitHostPort(srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	cd := mqi.NewMQCD()
	cd.ChannelName = mqserver.AppChannel
	cd.ConnectionName = fmt.Sprintf("%s(%s)", host, port)
	cno := mqi.NewMQCNO()
	cno.ClientConn = cd
	cno.Options = mqi.MQCNO_CLIENT_BINDING
	qm, err := mqi.Connx("QM1", cno)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer qm.Disc()
	od := mqi.NewMQOD()
	od.ObjectName = queue
	obj, err := qm.Open(od, mqi.MQOO_INQUIRE)
	if err != nil {
		t.Fatalf("opening %s: %v", queue, err)
	}
	defer obj.Close(0)
	attrs, err := obj.Inq(selectors)
	if err != nil {
		t.Fatalf("MQINQ %s: %v", queue, err)
	}
	return attrs
}
