//go:build ibmmq

package e2e_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// The MQ faults again, through the IBM MQ adapter and its client library
// to a queue manager server in this process (found through MQSERVER, as
// the commands' targets name no host).

// TestFaultConnectionBrokenStub drops the server's connections mid-run, as
// a network failure would.
func TestFaultConnectionBrokenStub(t *testing.T) {
	srv := mqsimtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER())
	runConnectionBroken(t, "mq-connection-broken-stub", ibmmq.New(), srv.BreakConnections)
}

// TestFaultStoreDownAtCompletionStub is the store blip through the IBM MQ
// adapter: the queue manager's messages outlive the daemon, so the PRODUCE
// checkpoints every commit and the cut stops it at a checkpoint it cannot
// store. It commits nothing more, records its progress when the store is
// back, and is resumed: 40 messages on the queue, one completed result.
func TestFaultStoreDownAtCompletionStub(t *testing.T) {
	srv := mqsimtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER())
	env := newLocalAWS(t, 100)
	proxy, store := proxiedDynamoDB(t, env)
	runStoreBlip(t, "store-down-at-completion-ibmmq-stub", env, proxy, store,
		func(s *daemontest.Setup) { s.Opts.Backend = ibmmq.New() }, ibmmq.New())
}
