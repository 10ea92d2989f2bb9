package daemontest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

var daemonBinary struct {
	once sync.Once
	path string
	err  error
}

// AWSWalkthroughDocs are the documents whose shell blocks tagged aws the
// AWS walkthrough runs on the emulators, in order.
var AWSWalkthroughDocs = []string{"README.md", "docs/operations.md"}

// LikeAClone makes dir look like a clone to the commands the documents
// show: bin/mqprobe (the test binary) and configs/ (the repository's).
func LikeAClone(t testing.TB, dir string) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(Binary(t), filepath.Join(dir, "bin", "mqprobe")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "configs"), filepath.Join(dir, "configs")); err != nil {
		t.Fatal(err)
	}
}

// Binary builds ./cmd/mqprobe once per test binary, with the test binary's
// own build tags (so a run with -tags ibmmq gets the IBM MQ backend), into
// the repository's build directory (.build/test, git-ignored) and returns
// its path. A failed build fails t (and every later caller).
func Binary(t testing.TB) string {
	t.Helper()
	name := "mqprobe"
	if binaryTags != "" {
		name += "-" + binaryTags
	}
	daemonBinary.once.Do(func() {
		daemonBinary.path, daemonBinary.err = buildCommand("./cmd/mqprobe", name, binaryTags)
	})
	if daemonBinary.err != nil {
		t.Fatalf("daemon binary: %v", daemonBinary.err)
	}
	return daemonBinary.path
}

// buildCommand builds the main package pkg into .build/test/name: a
// temporary file renamed into place, so concurrent runs never execute a
// half-written binary.
func buildCommand(pkg, name, tags string) (string, error) {
	began := time.Now()
	final, err := testenv.BuildProgram(name, func(_, out string) *exec.Cmd {
		return exec.Command("go", "build", "-tags", tags, "-o", out, pkg)
	})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "built %s in %s\n", final, time.Since(began).Round(time.Millisecond))
	return final, nil
}

// Process is one `mqprobe run` process. Whoever starts it sets every field
// but Err and StoppedByTest, and closes Exited once Cmd.Wait has returned
// and its error is in Err.
type Process struct {
	Name   string
	Base   string // http://127.0.0.1:port
	Cmd    *exec.Cmd
	Log    string // the file holding its stderr
	Exited chan struct{}
	Err    error // Cmd.Wait's, once Exited is closed
	// StoppedByTest is set by Stop: an exit after it is expected.
	StoppedByTest atomic.Bool
}

// DieWithParent asks, where the OS can (Linux: Pdeathsig), for SIGKILL to
// the child when the test binary dies without its cleanups (killed, or its
// output pipe closed): no daemon outlives a run. Set by name, as the field
// exists only on some systems; elsewhere the callers' cleanups (and
// watchdogs) are all there is. Pdeathsig follows the thread that forks:
// start the process with that thread locked (runtime.LockOSThread).
func DieWithParent(attr *syscall.SysProcAttr) {
	if f := reflect.ValueOf(attr).Elem().FieldByName("Pdeathsig"); f.IsValid() && f.CanSet() && f.Type() == reflect.TypeOf(syscall.SIGKILL) {
		f.Set(reflect.ValueOf(syscall.SIGKILL))
	}
}

// FreeLoopbackPort is a TCP port free on 127.0.0.1 a moment ago: another
// process may take it before the caller binds it.
func FreeLoopbackPort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// Stop signals the process unless it has exited, and waits for it, killing
// it if it is still there after 20s.
func (p *Process) Stop(sig os.Signal) {
	select {
	case <-p.Exited:
		return
	default:
	}
	p.StoppedByTest.Store(true)
	_ = p.Cmd.Process.Signal(sig)
	select {
	case <-p.Exited:
	case <-time.After(20 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.Exited
	}
}

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	if err := p.Cmd.Process.Kill(); err != nil {
		t.Fatalf("kill %s: %v", p.Name, err)
	}
	<-p.Exited
}

// KilledByTest reports whether the process ended on SIGKILL (Kill, or Stop
// after its grace period).
func (p *Process) KilledByTest() bool {
	var ee *exec.ExitError
	if !errors.As(p.Err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

var processHTTP = &http.Client{Timeout: 10 * time.Second}

// Get fetches path from the process's API (10 s timeout).
func (p *Process) Get(path string) (int, []byte, error) {
	resp, err := processHTTP.Get(p.Base + path)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// Depth reads a queue's depth on this process's embedded QM1, through its
// API, failing t unless it answers one.
func (p *Process) Depth(t testing.TB, queue string) int {
	t.Helper()
	return p.DepthOf(t, fmt.Sprintf(`"target":{"queueManager":"QM1","queue":%q}`, queue))
}

// DepthOf reads the depth of the queue target (a command's "target"
// member) names, through this process's API, failing t unless it answers
// one.
func (p *Process) DepthOf(t testing.TB, target string) int {
	t.Helper()
	resp, err := processHTTP.Post(p.Base+"/queue/depth", "application/json", strings.NewReader("{"+target+"}"))
	if err != nil {
		t.Fatalf("%s: depth: %v", p.Name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out struct {
		Result struct{ CurrentDepth *int }
	}
	if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != http.StatusOK || out.Result.CurrentDepth == nil {
		t.Fatalf("%s: depth: %d %s", p.Name, resp.StatusCode, body)
	}
	return *out.Result.CurrentDepth
}

// LogTail is the end of the file at path, at most n bytes, for failure
// messages: "(empty)" for a blank file, the error for an unreadable one.
func LogTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	if len(data) > n {
		data = append([]byte("…"), data[len(data)-n:]...)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "(empty)"
	}
	return string(data)
}

// StartProcess starts `mqprobe run` (Binary) with this process's
// environment minus its MQPROBE_* variables, plus vars and the address of a
// free loopback port, in a fresh directory, and returns it once GET
// /health/ready answers 200 (polled every millisecond), with the time from
// starting the process to that answer (start-up benchmarks read it). It fails b if the process exits or
// is not ready within 30 s; the process is stopped (SIGTERM) when b ends.
func StartProcess(b testing.TB, name string, vars map[string]string) (*Process, time.Duration) {
	b.Helper()
	return StartBinary(b, Binary(b), name, vars)
}

// StartBinary is StartProcess running the mqprobe binary at bin (see
// BuildAt).
func StartBinary(b testing.TB, bin, name string, vars map[string]string) (*Process, time.Duration) {
	b.Helper()
	return start(b, []string{bin, "run"}, name, vars, 30*time.Second)
}

// StartUnder is StartProcess running Binary under wrapper, a command and
// its arguments to which the binary and "run" are appended (valgrind, for
// one), and waiting up to readyWithin for it to be ready.
func StartUnder(b testing.TB, wrapper []string, name string, vars map[string]string, readyWithin time.Duration) *Process {
	b.Helper()
	p, _ := start(b, append(slices.Clone(wrapper), Binary(b), "run"), name, vars, readyWithin)
	return p
}

// start runs argv as StartProcess describes, failing b unless the process
// is ready within readyWithin.
func start(b testing.TB, argv []string, name string, vars map[string]string, readyWithin time.Duration) (*Process, time.Duration) {
	b.Helper()
	dir := b.TempDir()
	port, err := FreeLoopbackPort()
	if err != nil {
		b.Fatal(err)
	}
	p := &Process{Name: name, Base: "http://127.0.0.1:" + port, Log: filepath.Join(dir, "stderr.log"), Exited: make(chan struct{})}
	logFile, err := os.Create(p.Log)
	if err != nil {
		b.Fatal(err)
	}
	defer logFile.Close()
	p.Cmd = exec.Command(argv[0], argv[1:]...)
	p.Cmd.Dir = dir
	p.Cmd.Stdout, p.Cmd.Stderr = logFile, logFile
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MQPROBE_") { // the benchmark's own settings are not the daemon's
			p.Cmd.Env = append(p.Cmd.Env, kv)
		}
	}
	all := maps.Clone(vars)
	all["MQPROBE_HTTP_ADDR"] = "127.0.0.1:" + port
	for _, k := range slices.Sorted(maps.Keys(all)) {
		p.Cmd.Env = append(p.Cmd.Env, k+"="+all[k])
	}
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{}
	DieWithParent(p.Cmd.SysProcAttr)
	runtime.LockOSThread() // Pdeathsig follows the thread that forks
	began := time.Now()
	err = p.Cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		b.Fatalf("start %s: %v", argv[0], err)
	}
	go func() {
		p.Err = p.Cmd.Wait()
		close(p.Exited)
	}()
	b.Cleanup(func() {
		p.Stop(syscall.SIGTERM)
		if b.Failed() {
			b.Logf("%s stderr:\n%s", name, LogTail(p.Log, 8<<10))
		}
	})
	// Polled every millisecond: the start-up figure is read off this loop.
	probe := &http.Client{Timeout: time.Second}
	deadline := began.Add(readyWithin)
	for {
		if resp, err := probe.Get(p.Base + "/health/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, time.Since(began)
			}
		}
		select {
		case <-p.Exited:
			b.Fatalf("%s exited before it was ready (%v):\n%s", name, p.Err, LogTail(p.Log, 4<<10))
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s not ready within %s:\n%s", name, readyWithin, LogTail(p.Log, 4<<10))
		}
	}
}

// Memory reads the process's resident set size now (VmRSS) and at its peak
// (VmHWM), in MiB.
func (p *Process) Memory() (rss, peak float64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Cmd.Process.Pid))
	if err != nil {
		return 0, 0, fmt.Errorf("memory of %s: %w", p.Name, err)
	}
	for line := range strings.Lines(string(status)) {
		name, value, _ := strings.Cut(line, ":")
		if name != "VmRSS" && name != "VmHWM" {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		if err != nil {
			return 0, 0, fmt.Errorf("memory of %s: line %q: %w", p.Name, line, err)
		}
		if name == "VmRSS" {
			rss = kb / 1024
		} else {
			peak = kb / 1024
		}
	}
	if peak == 0 {
		return 0, 0, fmt.Errorf("memory of %s: no VmHWM in /proc/%d/status", p.Name, p.Cmd.Process.Pid)
	}
	return rss, peak, nil
}

// SmallReceiveBuffer shrinks a client socket's receive buffer, so a reader
// that never reads pushes back on the server at once.
func SmallReceiveBuffer(_, _ string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
	}); cerr != nil {
		return cerr
	}
	return err
}
