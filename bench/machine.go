package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
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
}

// readMachine collects the machine facts; goTool is the go command the
// benchmarks run with. A fact that cannot be read says why.
func readMachine(goTool string) Machine {
	m := Machine{Cores: runtime.NumCPU(), LoadStart: loadAverage()}
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

// command returns a command's trimmed output, or why there is none.
func command(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return fmt.Sprintf("unknown: %s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}
