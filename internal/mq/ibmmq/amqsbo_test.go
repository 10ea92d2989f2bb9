//go:build ibmmq

package ibmmq

import (
	"path/filepath"
	"strings"
	"testing"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
)

// TestIBMSampleAmqsbo runs IBM's amqsbo sample against a queue with
// BOTHRESH 2 and a BOQNAME from the server's configuration: it inquires
// them, gets a message under syncpoint and backs it out until its
// BackoutCount reaches the threshold, then moves it to the backout queue.
func TestIBMSampleAmqsbo(t *testing.T) {
	bin := buildSamples(t, "amqsput", "amqsbo")
	qm := mqserver.DefaultQueueManagers()
	qm[0].Queues = append(qm[0].Queues,
		embedded.QueueConfig{Name: "APP.POISON", BackoutThreshold: 2, BackoutRequeueQueue: "APP.BACKOUT"},
		embedded.QueueConfig{Name: "APP.BACKOUT"})
	srv, err := mqserver.Listen("127.0.0.1:0", mqserver.Config{QueueManagers: qm,
		Users: []mqserver.User{{Name: mqserver.AppUser}, {Name: mqserver.AdminUser, Password: "samples-admin"}}})
	if err != nil {
		t.Fatalf("starting mqserver: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	verdicts := sampleVerdicts(t)

	verdicts.ran(t, "amqsput")
	if out, err := runSample(srv, filepath.Join(bin, "amqsput"), "APP.POISON", "QM1"); err != nil {
		t.Fatalf("amqsput: %v\n%s", err, strings.Join(out, "\n"))
	}
	verdicts.ran(t, "amqsbo")
	out, err := runSample(srv, filepath.Join(bin, "amqsbo"), "APP.POISON", "QM1")
	if err != nil {
		t.Fatalf("amqsbo: %v\n%s", err, strings.Join(out, "\n"))
	}
	got := strings.Join(out, "\n")
	for _, want := range []string{
		"Backout QName=APP.BACKOUT Threshold=2",
		"Backout Count=0", "Backout Count=1", "Backout Count=2",
		"About to move poison message to APP.BACKOUT queue",
		"MQRC_NO_MSG_AVAILABLE",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("amqsbo printed no %q:\n%s", want, got)
		}
	}
	if d := inquireQueue(t, srv, "APP.BACKOUT", mqi.MQIA_CURRENT_Q_DEPTH)[mqi.MQIA_CURRENT_Q_DEPTH]; d != int32(1) {
		t.Errorf("APP.BACKOUT depth %v after amqsbo, want the moved message", d)
	}
	if d := inquireQueue(t, srv, "APP.POISON", mqi.MQIA_CURRENT_Q_DEPTH)[mqi.MQIA_CURRENT_Q_DEPTH]; d != int32(0) {
		t.Errorf("APP.POISON depth %v after amqsbo, want 0", d)
	}
}
