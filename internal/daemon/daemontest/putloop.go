package daemontest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

var putLoopBinary struct {
	once sync.Once
	path string
	err  error
}

// PutLoop builds the C put loop (bench/putloop/putloop.c) once per test
// binary against the MQ client library CGO_CFLAGS and CGO_LDFLAGS name
// (scripts/build-mqstub.sh --env) and returns its path.
func PutLoop(t testing.TB) string {
	t.Helper()
	putLoopBinary.once.Do(func() { putLoopBinary.path, putLoopBinary.err = buildPutLoop() })
	if putLoopBinary.err != nil {
		t.Fatalf("C put loop: %v", putLoopBinary.err)
	}
	return putLoopBinary.path
}

func buildPutLoop() (string, error) {
	cflags, ldflags := os.Getenv("CGO_CFLAGS"), os.Getenv("CGO_LDFLAGS")
	if !strings.Contains(ldflags, "-L") {
		return "", fmt.Errorf("CGO_LDFLAGS %q names no client library directory (-L): run under "+
			`eval "$(scripts/build-mqstub.sh --env)"`, ldflags)
	}
	return testenv.BuildProgram("putloop", func(root, out string) *exec.Cmd {
		args := append([]string{"-O2", "-Wall", "-Werror"}, strings.Fields(cflags)...)
		args = append(args, "-o", out, filepath.Join(root, "bench", "putloop", "putloop.c"))
		args = append(append(args, strings.Fields(ldflags)...), "-lmqm_r")
		return exec.Command("cc", args...)
	})
}

// PutLoopRun is one run of the C put loop.
type PutLoopRun struct {
	Msgs    int
	Elapsed time.Duration // first MQPUT to the end of the last MQCMIT
}

// RunPutLoop runs the C put loop against server with args (see putloop.c:
// -q queue, -n count, -t txSize, -s bytes, -e expiry, -p, -a), under
// wrapper (nil: none; e.g. valgrind), and fails t unless it succeeds.
func RunPutLoop(t testing.TB, server *MQServer, wrapper []string, args ...string) PutLoopRun {
	t.Helper()
	argv := append(append(append([]string{}, wrapper...), PutLoop(t)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "MQSERVER=DEV.APP.SVRCONN/TCP/"+server.ConnName())
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if exit, ok := err.(*exec.ExitError); ok {
			stderr = exit.Stderr
		}
		t.Fatalf("putloop %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	var run PutLoopRun
	var seconds float64
	line := strings.TrimSpace(string(out))
	if _, err := fmt.Sscanf(line, "putloop: msgs=%d seconds=%g", &run.Msgs, &seconds); err != nil {
		t.Fatalf("putloop printed %q: %v", line, err)
	}
	run.Elapsed = time.Duration(seconds * float64(time.Second))
	return run
}

// PutLoopArgs are the C put loop's arguments for n 2 KiB non-persistent
// messages to queue, committed every 100, as PRODUCE's benchmarks put them.
func PutLoopArgs(queue string, n int) []string {
	return []string{"-q", queue, "-n", strconv.Itoa(n), "-t", "100", "-s", "2048"}
}
