//go:build ibmmq

package daemon_test

import (
	"strconv"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
)

// The MQ faults again, through the IBM MQ adapter on the project's client
// stub, whose MQSTUB_* variables inject them (read by the stub at call time).

// TestFaultQueueFullStub caps every queue's depth with MQSTUB_MAX_DEPTH.
func TestFaultQueueFullStub(t *testing.T) {
	runQueueFull(t, "mq-queue-full-stub", ibmmq.New(), func(n int) { t.Setenv("MQSTUB_MAX_DEPTH", strconv.Itoa(n)) })
}
