package mqtest

import (
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// FloorRate is the rate at which the pacing benchmarks run FloorPacing
// beside each measured run: at 50,000 a second the interval (20 µs) is
// shorter than the stalls a virtual machine's host gives a spinning
// program, so the machine decides the gaps' p99 as much as the code does.
const FloorRate = 50_000

var pacerBinary struct {
	once sync.Once
	path string
	err  error
}

// FloorPacing runs bench/pacer/pacer.c, a C loop keeping rate events a
// second with nothing to do on internal/pacing's schedule, for d, and
// returns its events' times for Pacing: the gaps the machine itself leaves
// a spinning program, against which a paced put loop's are read. The
// program is built with cc once per test binary.
func FloorPacing(tb testing.TB, rate int, d time.Duration) []time.Time {
	tb.Helper()
	pacerBinary.once.Do(func() { pacerBinary.path, pacerBinary.err = buildPacer() })
	if pacerBinary.err != nil {
		tb.Fatalf("C pacer: %v", pacerBinary.err)
	}
	out, err := exec.Command(pacerBinary.path, "-r", strconv.Itoa(rate), "-d", strconv.FormatFloat(d.Seconds(), 'f', -1, 64)).Output()
	if err != nil {
		tb.Fatalf("C pacer at %d/s for %v: %v", rate, d, stderrOf(err))
	}
	if len(out)%8 != 0 || len(out) < 16 {
		tb.Fatalf("C pacer wrote %d bytes: want at least two 8-byte times", len(out))
	}
	times := make([]time.Time, len(out)/8)
	for i := range times {
		times[i] = time.Unix(0, int64(binary.LittleEndian.Uint64(out[8*i:])))
	}
	return times
}

func stderrOf(err error) error {
	if exit, ok := err.(*exec.ExitError); ok && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, exit.Stderr)
	}
	return err
}

func buildPacer() (string, error) {
	return testenv.BuildProgram("pacer", func(root, out string) *exec.Cmd {
		return exec.Command("cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", out, filepath.Join(root, "bench", "pacer", "pacer.c"))
	})
}
