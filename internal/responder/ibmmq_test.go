//go:build ibmmq

package responder_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// The same cases over the IBM MQ adapter and its client library, against
// a simulator server per case, whose model queue makes dynamic reply
// queues.
func TestResponderIBMMQStub(t *testing.T) {
	runCases(t, func(t *testing.T) env {
		srv := mqsimtest.Start(t)
		return env{backend: ibmmq.New(), target: srv.Target(), model: mqserver.DefaultModelQueue}
	})
}
