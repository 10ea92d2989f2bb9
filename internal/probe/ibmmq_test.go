//go:build ibmmq

package probe

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// The same cases over the IBM MQ adapter and its MQ client library (the
// project's, internal/mqsim/clientlib, in CI: build it and export its cgo
// flags first, see scripts/build-mqstub.sh), connected over TCP to a queue
// manager server started for each case.
func TestRunIBMMQStub(t *testing.T) { runBackendCases(t, newServerEnv) }

// newServerEnv starts a fresh server; its queue manager injects the faults.
func newServerEnv(t *testing.T) testEnv {
	srv := mqsimtest.Start(t)
	return testEnv{
		backend:    ibmmq.New(),
		target:     srv.Target(),
		faults:     srv.Faults(),
		queue:      "DEV.QUEUE.1",
		replyQueue: "DEV.QUEUE.2",
	}
}
