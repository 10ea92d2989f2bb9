//go:build ibmmq

package ibmmq

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mqi "github.com/ibm-messaging/mq-golang/v5/ibmmq"

	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// mqMetricSamples is IBM's metrics collectors' module, at the version the
// judge runs; the module proxy serves it at exact versions only.
const mqMetricSamples = "github.com/ibm-messaging/mq-metric-samples/v5@v5.7.1"

// mqJSONConfig is mq_json's configuration (config.common.yaml and
// cmd/mq_json/config.collector.yaml of the module) for the server at
// connName: status polling only, as publish/subscribe is not modelled.
const mqJSONConfig = `global:
  useObjectStatus: true
  useResetQStats: false
  usePublications: false
  logLevel: INFO
  pollInterval: 1s
connection:
  queueManager: QM1
  connName: %s
  channel: DEV.APP.SVRCONN
  replyQueue: SYSTEM.DEFAULT.MODEL.QUEUE
  waitInterval: 10
objects:
  queues:
  - DEV.*
  channels:
  - DEV.*
  topics:
  subscriptions:
json:
  interval: 2s
  oneline: true
  recordmax: 100
`

// jsonPoint is one point of mq_json's output.
type jsonPoint struct {
	ObjectType string             `json:"objectType"`
	Tags       map[string]string  `json:"tags"`
	Metric     map[string]float64 `json:"metrics"`
}

// TestIBMMetricsMQJSON runs IBM's metrics collector mq_json (from
// mq-metric-samples v5.7.1) against the server for four collections: it
// connects, inquires the queue manager (every selector it asks for),
// opens SYSTEM.DEFAULT.MODEL.QUEUE for its replies, discovers the queues
// and channels through the command server, and prints the queue depth of
// DEV.QUEUE.1 and the status of the SVRCONN instances, its own among them.
func TestIBMMetricsMQJSON(t *testing.T) {
	bin := buildMQJSON(t)
	srv := startSampleServer(t)
	passed := false
	t.Cleanup(func() {
		failed := 1
		if passed && !t.Failed() {
			failed = 0
		}
		mqsimtest.Verdict(t, "mq_json", 1-failed, failed)
	})

	// Three messages wait on DEV.QUEUE.1 and a handle holds it open for output.
	qmgr := connectApp(t, srv)
	od := mqi.NewMQOD()
	od.ObjectName = "DEV.QUEUE.1"
	q, err := qmgr.Open(od, mqi.MQOO_OUTPUT)
	if err != nil {
		t.Fatalf("MQOPEN: %v", err)
	}
	defer q.Close(0)
	for i := range 3 {
		if err := q.Put(mqi.NewMQMD(), mqi.NewMQPMO(), []byte(fmt.Sprint("message ", i))); err != nil {
			t.Fatalf("MQPUT: %v", err)
		}
	}

	dir := t.TempDir()
	config := filepath.Join(dir, "mq_json.yaml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(mqJSONConfig, connName(t, srv))), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-f", config)
	// Four collections, then it exits (the collector's own test hook); it
	// prints every one but the first. On a loaded machine one collection
	// may come before its first status poll: the checks below take what
	// any of them reports.
	cmd.Env = append(os.Environ(), "MQIGO_UNITTEST_MAX_LOOPS=3")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mq_json: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	if strings.Contains(stderr.String(), "level=error") || strings.Contains(stderr.String(), "level=fatal") {
		t.Errorf("mq_json logged errors:\n%s", stderr.String())
	}

	var points []jsonPoint
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var report struct {
			Points []jsonPoint `json:"points"`
		}
		if err := json.Unmarshal(sc.Bytes(), &report); err != nil {
			t.Fatalf("mq_json printed a line that is not its JSON report: %v\n%s", err, sc.Text())
		}
		points = append(points, report.Points...)
	}
	t.Logf("mq_json:\n%s", out)
	depth := false
	instances := map[string]bool{} // by MCA job name
	for _, p := range points {
		switch {
		case p.ObjectType == "queue" && p.Tags["queue"] == "DEV.QUEUE.1":
			if d, ok := p.Metric["depth"]; ok {
				depth = true
				if d != 3 || p.Metric["outputHandles"] != 1 {
					t.Errorf("mq_json: DEV.QUEUE.1 depth %v, output handles %v; want 3 and 1", d, p.Metric["outputHandles"])
				}
			}
		case p.ObjectType == "channel" && p.Tags["channel"] == mqserver.AppChannel:
			instances[p.Tags["jobname"]] = true
			if s := p.Metric["status"]; s != 3 || p.Tags["connname"] != "127.0.0.1" { // MQCHS_RUNNING
				t.Errorf("mq_json: %s status %v from %q, want 3 (MQCHS_RUNNING) from 127.0.0.1", mqserver.AppChannel, s, p.Tags["connname"])
			}
		}
	}
	// The test's connection and mq_json's own.
	if !depth || len(instances) != 2 {
		t.Fatalf("mq_json reported depth of DEV.QUEUE.1: %v, %s instances %v (want 2):\n%s\nstderr:\n%s",
			depth, mqserver.AppChannel, instances, out, stderr.String())
	}
	passed = true
}

// buildMQJSON builds cmd/mq_json of mq-metric-samples with this test's cgo
// flags (the client library), as buildSamples builds mq-golang's samples:
// in the module's own directory, outside any workspace here.
func buildMQJSON(t *testing.T) string {
	t.Helper()
	download := exec.Command("go", "mod", "download", "-json", mqMetricSamples)
	download.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	download.Dir = t.TempDir()
	info, err := download.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", mqMetricSamples, err, info)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(info, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: no module directory in %s (%v)", mqMetricSamples, info, err)
	}
	bin := filepath.Join(t.TempDir(), "mq_json")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mq_json")
	build.Dir = mod.Dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building mq_json in %s: %v\n%s", mod.Dir, err, out)
	}
	return bin
}
