//go:build ibmmq

package ibmmq

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestPersistentMessagesSurviveAServerRestart kills an mqserver process
// with a data directory (SIGKILL, as a crash) and starts it again on the
// same directory: the persistent message put through this adapter is
// there for IBM's amqsget; the non-persistent ones (the adapter's and
// amqsput's, which puts with the queue's default persistence, NO) and the
// uncommitted persistent one are gone; the connection made before the
// restart, without MQCNO_RECONNECT, fails 2009.
func TestPersistentMessagesSurviveAServerRestart(t *testing.T) {
	bin := buildSamples(t, "amqsput", "amqsget")
	verdicts := sampleVerdicts(t)
	data := filepath.Join(t.TempDir(), "data")
	srv := startServerProcess(t, data)
	run := func(program string, args ...string) []string {
		t.Helper()
		verdicts.ran(t, program)
		out, err := runSampleAt(srv.ConnName(), filepath.Join(bin, program), args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", program, strings.Join(args, " "), err, strings.Join(out, "\n"))
		}
		return out
	}
	ctx := context.Background()
	target := mq.Target{QueueManager: "QM1", Channel: "DEV.APP.SVRCONN", ConnName: srv.ConnName(), User: "app"}
	c, err := New().Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q, err := c.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
	if err != nil {
		t.Fatal(err)
	}
	const persistent = "persistent, put before the restart"
	for _, m := range []struct {
		text       string
		persistent bool
		syncpoint  bool
	}{
		{persistent, true, false},
		{"non-persistent", false, false},
		{"persistent, never committed", true, true},
	} {
		if _, err := q.Put(ctx, &mq.Message{Payload: []byte(m.text), Persistent: m.persistent, Format: mq.FormatString},
			mq.PutOptions{Syncpoint: m.syncpoint}); err != nil {
			t.Fatalf("put %q: %v", m.text, err)
		}
	}
	run("amqsput", "DEV.QUEUE.1", "QM1")

	srv.Down(t)
	srv.Up(t)

	if _, err := q.Put(ctx, &mq.Message{Payload: []byte("after")}, mq.PutOptions{}); !mq.IsReason(err, mq.ReasonConnectionBroken) {
		t.Errorf("put on a connection made before the restart: %v, want 2009", err)
	}
	out := run("amqsget", "DEV.QUEUE.1", "QM1")
	expectLines(t, "amqsget after the restart", out, []string{
		"Sample AMQSGET.GO start",
		"Connected to queue manager QM1",
		"Opened queue DEV.QUEUE.1",
		"Got message of length 34: " + persistent,
		lineWithPrefix(t, out, "Message was put "),
		noMessage,
		"Closed queue",
		"Disconnected from queue manager QM1",
	})
}

// serverProcess is a cmd/mqserver process on a fixed loopback port, with a
// data directory.
type serverProcess struct {
	bin, port, data string
	cmd             *exec.Cmd
	stderr          testenv.Buffer
}

// serverBinary is cmd/mqserver, built once per test binary.
var serverBinary struct {
	once sync.Once
	path string
	err  error
}

// buildServer builds cmd/mqserver into .build/test/mqserver (where the
// daemon's tests build it too): a temporary file renamed into place, so
// concurrent runs never execute a half-written binary.
func buildServer() (string, error) {
	return testenv.BuildProgram("mqserver", func(_, out string) *exec.Cmd {
		return exec.Command("go", "build", "-o", out, "./cmd/mqserver")
	})
}

// startServerProcess builds cmd/mqserver (once) and starts it with data as its
// data directory ("" for none: memory only); it is killed when t ends.
func startServerProcess(t *testing.T, data string) *serverProcess {
	t.Helper()
	serverBinary.once.Do(func() { serverBinary.path, serverBinary.err = buildServer() })
	if serverBinary.err != nil {
		t.Fatalf("building mqserver: %v", serverBinary.err)
	}
	s := &serverProcess{bin: serverBinary.path, data: data}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, s.port, _ = net.SplitHostPort(l.Addr().String())
	l.Close()
	s.Up(t)
	t.Cleanup(func() {
		s.Down(t)
		if t.Failed() {
			t.Logf("mqserver log:\n%s", s.stderr.String())
		}
	})
	return s
}

func (s *serverProcess) ConnName() string { return "127.0.0.1(" + s.port + ")" }

// Up starts the server and returns once it listens.
func (s *serverProcess) Up(t *testing.T) {
	t.Helper()
	args := []string{"-listen", "127.0.0.1:" + s.port}
	if s.data != "" {
		args = append(args, "-data", s.data)
	}
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Stderr = &s.stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting mqserver: %v", err)
	}
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := sc.Scan() && strings.HasPrefix(sc.Text(), "mqserver listening on ")
		listening <- ok
		for sc.Scan() {
		}
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatalf("mqserver did not start: %s", s.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mqserver not listening within 30s")
	}
}

// Down kills the server with SIGKILL, as a crash does.
func (s *serverProcess) Down(t *testing.T) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Errorf("killing mqserver: %v", err)
	}
	_ = s.cmd.Wait()
	s.cmd = nil
}
