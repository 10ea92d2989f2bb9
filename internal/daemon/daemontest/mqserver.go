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
	cmd    *exec.Cmd
	done   chan struct{}
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
	s := &MQServer{Port: port, log: filepath.Join(dir, "mqserver.log")}
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
// if the server is already running or does not start within 10 s.
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
	cmd := exec.Command(serverBinary.path, args...)
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
	case <-time.After(10 * time.Second):
		t.Fatalf("mqserver not listening within 10s:\n%s", LogTail(s.log, 4<<10))
	}
}

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
