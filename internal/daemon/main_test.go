package daemon_test

import (
	"os"
	"testing"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestMain runs the in-process embedded-mode tests as a container would see
// them: no machine variables (AWS_*, proxies; testenv.UnsetMachineEnv).
// They need no AWS emulator; the aws-mode tests, which do, and every test
// of the daemon as a process are in ./e2e.
func TestMain(m *testing.M) {
	testenv.UnsetMachineEnv()
	os.Exit(m.Run())
}
