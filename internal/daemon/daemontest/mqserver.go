package daemontest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var serverBinary struct {
	once sync.Once
	path string
	err  error
}

// MQServer is an `mqserver` process: the project's queue manager QM1 with
// IBM's developer objects, served over TCP to the MQ client library, which
// several daemon processes can share as they would share a real queue
// manager. Its queues live in its memory: a restart empties them.
type MQServer struct {
	Port   string
	log    string
	config string // the -config file, if any
	// wrapper runs the server under another program (valgrind), with env
	// added to its environment; such a server gets a minute to listen.
	wrapper []string
	env     []string
	cmd     *exec.Cmd
	done    chan struct{}
}

// StartMQServer builds ./cmd/mqserver once per test binary and starts it on
// a free loopback port. It is killed when t ends.
func StartMQServer(t testing.TB) *MQServer {
	t.Helper()
	return StartMQServerConfig(t, "")
}

// StartMQServerConfig is StartMQServer with a configuration file holding
// yaml (see configs/mqserver.yaml; "" for none): queues of a given depth,
// for one.
func StartMQServerConfig(t testing.TB, yaml string) *MQServer {
	t.Helper()
	return startMQServer(t, yaml, nil, nil)
}

// StartMQServerUnder is StartMQServer with the server run under wrapper
// (valgrind's callgrind, say), env added to its environment.
func StartMQServerUnder(t testing.TB, wrapper []string, env map[string]string) *MQServer {
	t.Helper()
	return StartMQServerConfigUnder(t, "", wrapper, env)
}

// StartMQServerConfigUnder is StartMQServerConfig with the server run under
// wrapper, env added to its environment.
func StartMQServerConfigUnder(t testing.TB, yaml string, wrapper []string, env map[string]string) *MQServer {
	t.Helper()
	var vars []string
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	return startMQServer(t, yaml, wrapper, vars)
}

func startMQServer(t testing.TB, yaml string, wrapper, env []string) *MQServer {
	t.Helper()
	serverBinary.once.Do(func() {
		serverBinary.path, serverBinary.err = buildCommand("./cmd/mqserver", "mqserver", "")
	})
	if serverBinary.err != nil {
		t.Fatalf("mqserver binary: %v", serverBinary.err)
	}
	port, err := FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &MQServer{Port: port, log: filepath.Join(dir, "mqserver.log"), wrapper: wrapper, env: env}
	if yaml != "" {
		s.config = filepath.Join(dir, "mqserver.yaml")
		if err := os.WriteFile(s.config, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.Up(t)
	t.Cleanup(func() {
		s.Down(t)
		if t.Failed() {
			t.Logf("mqserver log:\n%s", LogTail(s.log, 8<<10))
		}
	})
	return s
}

// ConnName is the server's address as an MQ connection name.
func (s *MQServer) ConnName() string { return "127.0.0.1(" + s.Port + ")" }

// Target is the JSON "target" member of a command for queue on QM1 through
// the server's application channel.
func (s *MQServer) Target(queue string) string {
	return fmt.Sprintf(`"target":{"queueManager":"QM1","queue":%q,"channel":"DEV.APP.SVRCONN","connName":%q}`, queue, s.ConnName())
}

// Up starts the server on its port and returns once it listens. It fails t
// if the server is already running or does not start within 10 s (a minute under a wrapper).
func (s *MQServer) Up(t testing.TB) {
	t.Helper()
	if s.cmd != nil {
		t.Fatal("mqserver: Up while running")
	}
	logFile, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	args := []string{"-listen", "127.0.0.1:" + s.Port}
	if s.config != "" {
		args = append(args, "-config", s.config)
	}
	argv := append(append(append([]string{}, s.wrapper...), serverBinary.path), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	if s.env != nil {
		cmd.Env = append(os.Environ(), s.env...)
	}
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	DieWithParent(cmd.SysProcAttr)
	runtime.LockOSThread() // Pdeathsig follows the thread that forks
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatalf("start mqserver: %v", err)
	}
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "listening on") {
				ok = true
				listening <- true
			}
		}
		if !ok {
			listening <- false
		}
	}()
	s.cmd, s.done = cmd, make(chan struct{})
	within := 10 * time.Second
	if s.wrapper != nil {
		within = time.Minute
	}
	go func(done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(s.done)
	select {
	case ok := <-listening:
		if !ok {
			<-s.done
			s.cmd = nil
			t.Fatalf("mqserver exited before it listened:\n%s", LogTail(s.log, 4<<10))
		}
	case <-time.After(within):
		t.Fatalf("mqserver not listening within %s:\n%s", within, LogTail(s.log, 4<<10))
	}
}

// Pid is the running server's process id (its wrapper's, under one).
func (s *MQServer) Pid() int { return s.cmd.Process.Pid }

// Down kills the server with SIGKILL, as a crash would: its clients'
// connections drop and its messages are gone. Down on a stopped server
// does nothing.
func (s *MQServer) Down(t testing.TB) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Errorf("kill mqserver: %v", err)
	}
	<-s.done
	s.cmd = nil
}
