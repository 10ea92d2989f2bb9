package e2e_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestFaultDataDirRemoved removes ./data under a `mqprobe run` on the
// embedded default (SQLite at ./data/mqprobe.db): the daemon turns not
// ready, its store check naming the database and what happened; every
// PRODUCE sent after it is refused with 503 and puts nothing; and the log
// says so in one ERROR line, however many commands were refused.
func TestFaultDataDirRemoved(t *testing.T) {
	const sent, count = 3, 5
	p, _ := daemontest.StartProcess(t, "data-dir-removed", map[string]string{})
	client := &http.Client{Timeout: time.Minute}
	produce := func(key string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, p.Base+"/messages/produce", strings.NewReader(daemontest.ProduceBody(count, "")))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("produce %s: %v", key, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := produce("before-removal"); status != http.StatusCreated {
		t.Fatalf("produce before the removal: %d %s", status, body)
	}
	putsBefore := messagesPut(t, p)
	if putsBefore != count {
		t.Fatalf("mqprobe_mq_messages_total{operation=\"put\"} = %d after one PRODUCE of %d, want %d", putsBefore, count, count)
	}

	if err := os.RemoveAll(filepath.Join(p.Cmd.Dir, "data")); err != nil {
		t.Fatal(err)
	}
	// The store checks its file at most once a second: wait for it.
	var ready readiness
	testenv.Until(30*time.Second, func() bool {
		ready = readyChecks(t, p)
		return ready.status != http.StatusOK
	})
	if store := ready.Checks["store"]; ready.status != http.StatusServiceUnavailable ||
		!strings.Contains(store, filepath.Join("data", "mqprobe.db")) || !strings.Contains(store, "deleted") {
		t.Errorf("readiness after removing ./data: %d %v, want 503 with the store check naming data/mqprobe.db deleted", ready.status, ready.Checks)
	}
	for _, name := range []string{"admission", "intake", "router", "store"} {
		if _, ok := ready.Checks[name]; !ok {
			t.Errorf("readiness has no %q check: %v", name, ready.Checks)
		}
	}
	t.Logf("store check: %s", ready.Checks["store"])

	got := daemontest.FaultFigures{Sent: sent}
	refused := 0
	for i := range sent {
		switch status, body := produce("after-removal-" + strconv.Itoa(i)); status {
		case http.StatusServiceUnavailable:
			refused++
		case http.StatusCreated:
			got.Executed++ // ran with its record in a deleted file: it runs again after a restart
		default:
			t.Errorf("produce after the removal: %d %s, want 503", status, body)
		}
	}
	puts := messagesPut(t, p) - putsBefore
	if puts != 0 {
		t.Errorf("%d messages put after the removal, want none", puts)
	}
	logged := 0
	for line := range strings.Lines(daemontest.LogTail(p.Log, 1<<20)) {
		if strings.Contains(line, "ERROR") && strings.Contains(line, "mqprobe.db") {
			logged++
		}
	}
	if logged != 1 {
		t.Errorf("%d ERROR lines about the database, want one:\n%s", logged, daemontest.LogTail(p.Log, 4<<10))
	}
	daemontest.ReportFault(t, "sqlite-data-dir-removed", got, daemontest.FaultFigures{Sent: sent},
		"refused", refused, "puts", puts, "ready", ready.status == http.StatusOK)
}

// readiness is GET /health/ready's answer.
type readiness struct {
	status int
	Checks map[string]string
}

func readyChecks(t *testing.T, p *daemontest.Process) readiness {
	t.Helper()
	status, body, err := p.Get("/health/ready")
	if err != nil {
		t.Fatalf("readiness: %v", err)
	}
	r := readiness{status: status}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("readiness: %v: %s", err, body)
	}
	return r
}

// messagesPut is the process's mqprobe_mq_messages_total{operation="put"}.
func messagesPut(t *testing.T, p *daemontest.Process) int {
	t.Helper()
	status, body, err := p.Get("/metrics")
	if err != nil || status != http.StatusOK {
		t.Fatalf("metrics: %d %v", status, err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mqprobe_mq_messages_total{") && strings.Contains(line, `operation="put"`) {
			v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				t.Fatalf("metrics line %q: %v", line, err)
			}
			return int(v)
		}
	}
	return 0
}
