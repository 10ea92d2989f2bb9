package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the server goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunPrintsItsAddressAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-listen", "127.0.0.1:0"}, &stdout, &stderr) }()
	var addr string
	for deadline := time.Now().Add(5 * time.Second); addr == ""; {
		if time.Now().After(deadline) {
			t.Fatalf("no address printed; stderr: %s", stderr.String())
		}
		if out, ok := strings.CutPrefix(stdout.String(), "mqserver listening on "); ok && strings.HasSuffix(out, "\n") {
			addr = strings.TrimSpace(out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial the printed address %s: %v", addr, err)
	}
	nc.Close()
	cancel() // as SIGTERM does
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("still listening after stopping")
	}
}

func TestRunRejectsABadConfig(t *testing.T) {
	err := run(t.Context(), []string{"-config", "no/such/file.yaml"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no/such/file.yaml") {
		t.Errorf("run with a missing config: %v", err)
	}
}

func TestRunRejectsAnUnusableDataDirectory(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), []string{"-listen", "127.0.0.1:0", "-data", notADir}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), notADir) {
		t.Errorf("run with a file as its data directory: %v", err)
	}
}
