package daemon_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestMain runs the embedded-mode tests as a container would see them: no
// machine variables (AWS_*, proxies; testenv.UnsetMachineEnv). They need no
// AWS emulator: the aws-mode tests, which do, are in ./awsmode.
func TestMain(m *testing.M) {
	testenv.UnsetMachineEnv()
	os.Exit(m.Run())
}

// produceBody is a PRODUCE of count 2 KiB messages on QM1/DEV.QUEUE.1, with
// extra (`,"member":…`) appended to the command.
func produceBody(count int, extra string) string {
	return fmt.Sprintf(`{%s,"batch":{"count":%d,"messageSizeBytes":2048}%s}`, daemontest.Target, count, extra)
}
