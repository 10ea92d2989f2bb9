//go:build ibmmq

package daemon_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// The MQ faults again, through the IBM MQ adapter and its client library
// to a queue manager server in this process (found through MQSERVER, as
// the daemon's targets name no host), whose queue manager injects them.

// TestFaultQueueFullStub caps every queue's depth on the server.
func TestFaultQueueFullStub(t *testing.T) {
	srv := mqsimtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER())
	runQueueFull(t, "mq-queue-full-stub", ibmmq.New(), srv.Faults().CapDepth)
}
