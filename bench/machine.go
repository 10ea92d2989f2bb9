package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Machine is what the figures were measured on.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	Memory    string `json:"memory"`
	OS        string `json:"os"`
	Go        string `json:"go"`
	Commit    string `json:"commit"`
	LoadStart string `json:"loadAverageStart"`
	LoadEnd   string `json:"loadAverageEnd"`
	// Reference is a fixed computation timed at the start and the end:
	// on a VM a busy host slows every figure without showing in the load
	// average.
	ReferenceStart string `json:"referenceMsStart"`
	ReferenceEnd   string `json:"referenceMsEnd"`
	// Steal is the share of CPU time the hypervisor gave to others during
	// the run (/proc/stat).
	Steal string `json:"stealShare"`

	cpuStart cpuTimes
}

// readMachine collects the machine facts; goTool is the go command the
// benchmarks run with. A fact that cannot be read says why.
func readMachine(goTool string) Machine {
	m := Machine{Cores: runtime.NumCPU(), LoadStart: loadAverage(), ReferenceStart: referenceMs()}
	m.cpuStart = readCPUTimes()
	m.CPU = fileField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(fileField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		m.Memory = fmt.Sprintf("%.1f GiB", kb/(1<<20))
	} else {
		m.Memory = "unknown: " + err.Error()
	}
	m.OS = runtime.GOOS + "/" + runtime.GOARCH
	if release, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += ", Linux " + strings.TrimSpace(string(release))
	}
	m.Go = command(goTool, "env", "GOVERSION")
	commit := command("git", "rev-parse", "--short=12", "HEAD")
	if status := command("git", "status", "--porcelain", "--untracked-files=no"); status != "" {
		commit += " (with uncommitted changes)"
	}
	m.Commit = commit
	return m
}

// fileField returns the value of the first "key : value" line of path.
func fileField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown: " + err.Error()
	}
	defer f.Close()
	return field(f, key)
}

func field(r io.Reader, key string) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown: no " + key
}

// loadAverage is the 1-minute load average: others sharing the machine
// show here.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown: " + err.Error()
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// finish records the machine facts read at the end of the run.
func (m *Machine) finish() {
	m.LoadEnd = loadAverage()
	m.ReferenceEnd = referenceMs()
	m.Steal = m.cpuStart.stealShare(readCPUTimes())
}

// referenceBytes is what the reference computation hashes: about 70 ms of
// work on this project's 2-core VMs.
const referenceBytes = 32 << 20

// referenceMs times SHA-256 over referenceBytes five times and returns the
// median in milliseconds: the same instructions every time, so a slower
// median means a slower machine (a busy host, a lower clock).
func referenceMs() string {
	data := make([]byte, referenceBytes)
	var ms []float64
	for range 5 {
		start := time.Now()
		sha256.Sum256(data)
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	slices.Sort(ms)
	return strconv.FormatFloat(ms[len(ms)/2], 'f', 1, 64)
}

// cpuTimes are the aggregate "cpu" line of /proc/stat, in clock ticks; err
// says why they could not be read.
type cpuTimes struct {
	total, steal uint64
	err          error
}

func readCPUTimes() cpuTimes {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{err: err}
	}
	return parseCPUTimes(string(data))
}

// parseCPUTimes reads user nice system idle iowait irq softirq steal from
// the first line of /proc/stat (guest time is already in user).
func parseCPUTimes(stat string) cpuTimes {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTimes{err: fmt.Errorf("no aggregate cpu line with steal time in /proc/stat")}
	}
	var t cpuTimes
	for i, v := range f[1:9] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return cpuTimes{err: fmt.Errorf("/proc/stat cpu field %d: %w", i+1, err)}
		}
		t.total += n
		if i == 7 {
			t.steal = n
		}
	}
	return t
}

// stealShare is the share of the CPU time between start and end that was
// stolen, as a percentage.
func (start cpuTimes) stealShare(end cpuTimes) string {
	switch {
	case start.err != nil:
		return "unknown: " + start.err.Error()
	case end.err != nil:
		return "unknown: " + end.err.Error()
	case end.total <= start.total:
		return "unknown: no CPU time passed"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(end.steal-start.steal)/float64(end.total-start.total))
}

// command returns a command's trimmed output, or why there is none.
func command(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return fmt.Sprintf("unknown: %s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
