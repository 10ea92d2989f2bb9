//go:build ibmmq

package awsmode_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
)

// The MQ faults again, through the IBM MQ adapter on the project's client
// stub, whose MQSTUB_* variables inject them (read by the stub at call time).

// TestFaultConnectionBrokenStub breaks every connection with MQSTUB_BREAK.
func TestFaultConnectionBrokenStub(t *testing.T) {
	runConnectionBroken(t, "mq-connection-broken-stub", ibmmq.New(), func() {
		t.Setenv("MQSTUB_BREAK", fmt.Sprintf("fault-%d", time.Now().UnixNano()))
	})
}
