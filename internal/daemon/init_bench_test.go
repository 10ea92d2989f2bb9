package daemon_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// initAllocations runs the daemon binary with GODEBUG=inittrace=1 and
// returns the bytes its package initialisers allocated: in all, and in the
// packages whose import path starts with prefix.
func initAllocations(tb testing.TB, prefix string) (total, matching int64) {
	tb.Helper()
	cmd := exec.Command(daemontest.Binary(tb), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("mqprobe version: %v\n%s", err, &stderr)
	}
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		// init <package> @<t> ms, <t> ms clock, <n> bytes, <n> allocs
		fields := strings.Fields(sc.Text())
		if len(fields) != 11 || fields[0] != "init" || fields[8] != "bytes," {
			continue
		}
		n, err := strconv.ParseInt(fields[7], 10, 64)
		if err != nil {
			tb.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		lines++
		total += n
		if strings.HasPrefix(fields[1], prefix) {
			matching += n
		}
	}
	if lines == 0 {
		tb.Fatalf("no inittrace lines in:\n%s", &stderr)
	}
	return total, matching
}

// BenchmarkInitAllocations: the heap the daemon's package initialisers
// allocate before main runs, whatever the mode ("init-KiB"), and the part
// of it the AWS SDK's packages allocate ("aws-sdk-init-KiB"): Go runs the
// initialiser of every package linked into the binary, so the embedded
// default pays for the SDK's endpoint and schema tables too.
func BenchmarkInitAllocations(b *testing.B) {
	var total, aws int64
	for range b.N {
		t, a := initAllocations(b, "github.com/aws/")
		total += t
		aws += a
	}
	b.ReportMetric(float64(total)/1024/float64(b.N), "init-KiB")
	b.ReportMetric(float64(aws)/1024/float64(b.N), "aws-sdk-init-KiB")
}

// The benchmark's reading of GODEBUG=inittrace=1 holds on this Go.
func TestInitAllocationsAreRead(t *testing.T) {
	total, aws := initAllocations(t, "github.com/aws/")
	if aws <= 0 || total <= aws {
		t.Fatalf("init allocations: total %d bytes, AWS SDK %d bytes; want both read, the SDK's a part", total, aws)
	}
}
