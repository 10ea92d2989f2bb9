//go:build ibmmq

package awsmode_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq/ibmmqtest"
)

// The MQ faults again, through the IBM MQ adapter and its client library
// to a queue manager server in this process (found through MQSERVER, as
// the commands' targets name no host).

// TestFaultConnectionBrokenStub drops the server's connections mid-run, as
// a network failure would.
func TestFaultConnectionBrokenStub(t *testing.T) {
	srv := ibmmqtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER())
	runConnectionBroken(t, "mq-connection-broken-stub", ibmmq.New(), srv.BreakConnections)
}
