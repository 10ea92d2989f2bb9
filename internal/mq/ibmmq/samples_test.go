//go:build ibmmq

package ibmmq

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// mqGolangModule is the module whose samples/ directory holds IBM's programs.
const mqGolangModule = "github.com/ibm-messaging/mq-golang/v5"

// TestIBMSamples builds IBM's mq-golang sample programs from the module
// (each samples/*.go is its own package main, built as IBM's buildSamples.sh
// does) against this client library and runs each as a separate process
// against an mqserver in this process, found through MQSERVER as a real
// client finds its queue manager. Messages put by one process are browsed
// by another and got by a third, and amqsprop's properties come back with
// their values and types, exactly as the programs print them.
func TestIBMSamples(t *testing.T) {
	bin := buildSamples(t, "amqsput", "amqsgbr", "amqsget", "amqsinq", "amqsprop")
	srv := startSampleServer(t)
	verdicts := sampleVerdicts(t)
	run := func(t *testing.T, program string, args ...string) []string {
		t.Helper()
		verdicts.ran(t, program)
		out, err := runSample(srv, filepath.Join(bin, program), args...)
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", program, strings.Join(args, " "), err, strings.Join(out, "\n"))
		}
		return out
	}

	// Three messages, each put by its own process (samples/putget.sh).
	start := time.Now().Truncate(time.Second)
	var msgIDs []string
	for i := 0; i < 3; i++ {
		out := run(t, "amqsput", "DEV.QUEUE.1", "QM1")
		msgID := strings.TrimPrefix(lineWithPrefix(t, out, "MsgId:"), "MsgId:")
		expectLines(t, "amqsput", out, []string{
			"Sample AMQSPUT.GO start",
			"Connected to queue manager QM1",
			"Opened queue DEV.QUEUE.1",
			"Put message to DEV.QUEUE.1",
			"MsgId:" + msgID,
			"Closed queue",
			"Disconnected from queue manager QM1",
		})
		// A queue manager's MsgId: "AMQ ", its name blank-padded to 12, 8 unique bytes.
		id, err := hex.DecodeString(msgID)
		if err != nil || len(id) != 24 || !bytes.HasPrefix(id, []byte("AMQ QM1         ")) {
			t.Fatalf("amqsput MsgId %q: want 24 bytes starting %q", msgID, "AMQ QM1         ")
		}
		msgIDs = append(msgIDs, msgID)
	}
	if msgIDs[0] == msgIDs[1] || msgIDs[1] == msgIDs[2] || msgIDs[0] == msgIDs[2] {
		t.Fatalf("amqsput MsgIds not unique: %v", msgIDs)
	}

	// Another process browses them, in order, and leaves them.
	out := run(t, "amqsgbr", "DEV.QUEUE.1", "QM1")
	texts := gotMessages(t, "amqsgbr", out, 3, start)
	expectLines(t, "amqsgbr", out, []string{
		"Sample AMQSGBR.GO start",
		"Connected to queue manager QM1",
		"Opened queue DEV.QUEUE.1",
		"Got message of length 37: " + texts[0],
		"Got message of length 37: " + texts[1],
		"Got message of length 37: " + texts[2],
		noMessage,
		"Closed queue",
		"Disconnected from queue manager QM1",
	})

	// A third gets the second message by its MsgId, a fourth the rest.
	out = run(t, "amqsget", "DEV.QUEUE.1", "QM1", msgIDs[1])
	expectLines(t, "amqsget by MsgId", out, []string{
		"Sample AMQSGET.GO start",
		"Connected to queue manager QM1",
		"Opened queue DEV.QUEUE.1",
		"Setting Match Option for MsgId",
		"Got message of length 37: " + texts[1],
		lineWithPrefix(t, out, "Message was put "),
		"Closed queue",
		"Disconnected from queue manager QM1",
	})
	expectPutSecondsAgo(t, out, start)
	out = run(t, "amqsget", "DEV.QUEUE.1", "QM1")
	expectLines(t, "amqsget", out, []string{
		"Sample AMQSGET.GO start",
		"Connected to queue manager QM1",
		"Opened queue DEV.QUEUE.1",
		"Got message of length 37: " + texts[0],
		out[4],
		"Got message of length 37: " + texts[2],
		out[6],
		noMessage,
		"Closed queue",
		"Disconnected from queue manager QM1",
	})
	expectPutSecondsAgo(t, out, start)
	out = run(t, "amqsgbr", "DEV.QUEUE.1", "QM1")
	expectLines(t, "amqsgbr of the empty queue", out, []string{
		"Sample AMQSGBR.GO start",
		"Connected to queue manager QM1",
		"Opened queue DEV.QUEUE.1",
		noMessage,
		"Closed queue",
		"Disconnected from queue manager QM1",
	})

	t.Run("amqsprop", func(t *testing.T) {
		out := run(t, "amqsprop", "DEV.QUEUE.1", "QM1")
		// The values print through %v of the Go type MQINQMP returned, so a
		// type that changed on the way (a float32 sent as float64, a byte
		// string as text) prints differently.
		expectLines(t, "amqsprop", out, []string{
			"Sample AMQSPROP.GO start",
			"Connected to queue manager QM1",
			"Opened queue DEV.QUEUE.1",
			"Name: 'PROP1STRING' Value 'helloStringProperty' ",
			"Name: 'PROP2INT' Value '42' ",
			"Name: 'PROP2AINT32' Value '4242' ",
			"Name: 'PROP2BINT64' Value '424242' ",
			"Name: 'PROP2CINT16' Value '4242' ",
			"Name: 'PROP3BOOL' Value 'true' ",
			"Name: 'PROP4BYTEARRAY' Value '[100 101 102 103 104 105]' ",
			"Name: 'PROP5NULL' Value '<nil>' ",
			"Name: 'PROP7BYTE' Value '36' ",
			"Name: 'PROP8FLOAT32' Value '3.14159' ",
			"Name: 'PROP9FLOAT64' Value '3.14159' ",
			"All properties read",
			"Closed a Msg Handle",
			"Closed a Msg Handle",
			"Closed queue",
			"Disconnected from queue manager QM1",
		})
	})

	t.Run("amqsinq", func(t *testing.T) {
		verdicts.ran(t, "amqsinq")
		out, exitErr := runSample(srv, filepath.Join(bin, "amqsinq"), "DEV.QUEUE.1", "QM1")
		// Each section prints a map, so in no fixed order.
		sections := inquirySections(out)
		expectAttributes(t, sections, "", map[int32]string{
			2015: "QM1", 2006: "DEV.DEAD.LETTER.QUEUE", 31: "940",
		})
		queue := sections["DEV.QUEUE.1"]
		expectAttributes(t, sections, "DEV.QUEUE.1", map[int32]string{
			2016: "DEV.QUEUE.1", 15: "5000", 5: "0", 2027: queue[2027],
		})
		if !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(queue[2027]) {
			t.Errorf("amqsinq MQCA_ALTERATION_DATE %q: want yyyy-mm-dd", queue[2027])
		}
		t.Run("namelist", func(t *testing.T) {
			// Every queue manager has SYSTEM.DEFAULT.NAMELIST, with no names;
			// amqsinq inquires it last and exits non-zero if it cannot.
			expectAttributes(t, sections, "SYSTEM.DEFAULT.NAMELIST", map[int32]string{
				2010: "SYSTEM.DEFAULT.NAMELIST", 19: "0", 2020: "[]",
			})
			if exitErr != nil {
				t.Errorf("amqsinq: %v\n%s", exitErr, strings.Join(out, "\n"))
			}
		})
	})

	// A sample's last MQDISC is answered before the server has finished
	// with its connection: give that a moment, not forever.
	stats := srv.Stats()
	for deadline := time.Now().Add(5 * time.Second); (stats.Connections != 0 || stats.Handles != 0) && time.Now().Before(deadline); stats = srv.Stats() {
		time.Sleep(10 * time.Millisecond)
	}
	if stats.Connections != 0 || stats.Handles != 0 {
		t.Errorf("after the samples exited the server holds %+v, want nothing open", stats)
	}
}

// sampleRuns counts each sample's runs for its verdict (mqsimtest.Verdict),
// charging a failure to the run under way when its test failed.
type sampleRuns struct {
	programs []string
	runs     map[string]int
	failed   map[string]int
	// The run under way: its program, its test, and whether that test had
	// failed already when the run began.
	program      string
	test         *testing.T
	failedBefore bool
}

func sampleVerdicts(t *testing.T) *sampleRuns {
	v := &sampleRuns{runs: map[string]int{}, failed: map[string]int{}}
	t.Cleanup(func() {
		v.settle()
		for _, p := range v.programs {
			mqsimtest.Verdict(t, p, v.runs[p]-v.failed[p], v.failed[p])
		}
	})
	return v
}

// ran starts counting a run of program by t.
func (v *sampleRuns) ran(t *testing.T, program string) {
	v.settle()
	if _, seen := v.runs[program]; !seen {
		v.programs = append(v.programs, program)
	}
	v.runs[program]++
	v.program, v.test, v.failedBefore = program, t, t.Failed()
}

// settle charges the run under way with a failure if its test failed since.
func (v *sampleRuns) settle() {
	if v.test != nil && v.test.Failed() && !v.failedBefore {
		v.failed[v.program]++
	}
	v.test = nil
}

// noMessage is how the samples print the MQGET that finds the queue empty.
const noMessage = "MQGET: MQCC = MQCC_FAILED [2] MQRC = MQRC_NO_MSG_AVAILABLE [2033]"

// buildSamples builds each named sample from the mq-golang module's
// samples directory with this test's cgo flags (the client library) into a
// temporary directory, which it returns.
func buildSamples(t *testing.T, names ...string) string {
	t.Helper()
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mqGolangModule)
	moduleDir, err := list.Output()
	if err != nil {
		t.Fatalf("locating %s: %v", mqGolangModule, err)
	}
	samples := filepath.Join(strings.TrimSpace(string(moduleDir)), "samples")
	bin := t.TempDir()
	for _, name := range names {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, name), name+".go")
		build.Dir = samples
		// The samples belong to mq-golang's own module, not to any workspace here.
		build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building %s in %s: %v\n%s", name, samples, err, out)
		}
	}
	return bin
}

// startSampleServer serves IBM's developer defaults (QM1, DEV.APP.SVRCONN
// without a password) on a free port until the test ends.
func startSampleServer(t *testing.T) *mqserver.Server {
	t.Helper()
	// Its log (debug level) is shown when the test fails: what reached
	// the command server and what it could not answer.
	var log testenv.Buffer
	srv, err := mqserver.Listen("127.0.0.1:0", mqserver.Config{
		Users:  []mqserver.User{{Name: mqserver.AppUser}, {Name: mqserver.AdminUser, Password: "samples-admin"}},
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("starting mqserver: %v", err)
	}
	t.Cleanup(func() {
		srv.Close()
		if t.Failed() {
			t.Logf("mqserver's log:\n%s", log.String())
		}
	})
	return srv
}

// runSample runs a sample with MQSERVER naming srv and returns its output
// lines, and an error, with the program's standard error, if it did not
// exit 0.
func runSample(srv *mqserver.Server, program string, args ...string) ([]string, error) {
	host, port, err := net.SplitHostPort(srv.Addr().String())
	if err != nil {
		return nil, fmt.Errorf("server address: %w", err)
	}
	return runSampleAt(fmt.Sprintf("%s(%s)", host, port), program, args...)
}

// runSampleAt is runSample for the server at connName, host(port).
func runSampleAt(connName, program string, args ...string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Env = sampleEnv(connName)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if err != nil {
		return lines, fmt.Errorf("%w (stderr: %q)", err, stderr.String())
	}
	return lines, nil
}

// sampleEnv is this process's environment for a sample reaching the
// server at connName through MQSERVER.
func sampleEnv(connName string) []string {
	env := []string{fmt.Sprintf("MQSERVER=%s/TCP/%s", mqserver.AppChannel, connName)}
	for _, kv := range os.Environ() {
		// The samples take their queue and queue manager from these when set.
		if !strings.HasPrefix(kv, "MQSERVER=") && !strings.HasPrefix(kv, "QMGR=") &&
			!strings.HasPrefix(kv, "QUEUE=") {
			env = append(env, kv)
		}
	}
	return env
}

func lineWithPrefix(t *testing.T, lines []string, prefix string) string {
	t.Helper()
	for _, line := range lines {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("no line starting %q in:\n%s", prefix, strings.Join(lines, "\n"))
	return ""
}

func expectLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s printed:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// gotMessages returns the texts of the first n "Got message" lines, each
// amqsput's "Hello from Go at <RFC 3339 time>" from this test's run.
func gotMessages(t *testing.T, what string, lines []string, n int, since time.Time) []string {
	t.Helper()
	var texts []string
	for _, line := range lines {
		text, ok := strings.CutPrefix(line, "Got message of length 37: ")
		if !ok {
			continue
		}
		stamp, ok := strings.CutPrefix(text, "Hello from Go at ")
		at, err := time.Parse(time.RFC3339, stamp)
		if !ok || err != nil || at.Before(since) || at.After(time.Now()) {
			t.Fatalf("%s got %q: want amqsput's message from this run", what, text)
		}
		texts = append(texts, text)
	}
	if len(texts) != n {
		t.Fatalf("%s got %d messages, want %d:\n%s", what, len(texts), n, strings.Join(lines, "\n"))
	}
	return texts
}

// expectPutSecondsAgo checks each "Message was put N seconds ago": the
// PutDate and PutTime the queue manager set are this run's.
func expectPutSecondsAgo(t *testing.T, lines []string, since time.Time) {
	t.Helper()
	limit := int(time.Since(since).Seconds()) + 1
	for _, line := range lines {
		var seconds int
		if _, err := fmt.Sscanf(line, "Message was put %d seconds ago", &seconds); err == nil {
			if seconds < 0 || seconds > limit {
				t.Errorf("amqsget: %q, want 0..%d seconds", line, limit)
			}
		} else if strings.HasPrefix(line, "Message ") {
			t.Errorf("amqsget: %q, want the message's put time", line)
		}
	}
}

// inquirySections parses amqsinq's "----------- NAME ----------" sections
// of "selector name\t'value'" lines into selector -> value per object.
func inquirySections(lines []string) map[string]map[int32]string {
	header := regexp.MustCompile(`^----------- (.*) ----------$`)
	attr := regexp.MustCompile(`^(\d{1,4}) +(\S+) *\t'(.*)'$`)
	sections := map[string]map[int32]string{}
	var current map[int32]string
	for _, line := range lines {
		if m := header.FindStringSubmatch(line); m != nil {
			current = map[int32]string{}
			sections[strings.TrimSpace(m[1])] = current
			continue
		}
		if m := attr.FindStringSubmatch(line); m != nil && current != nil {
			selector, _ := strconv.ParseInt(m[1], 10, 32) // at most 4 digits
			current[int32(selector)] = m[3]
		}
	}
	return sections
}

func expectAttributes(t *testing.T, sections map[string]map[int32]string, object string, want map[int32]string) {
	t.Helper()
	got, ok := sections[object]
	if !ok {
		t.Errorf("amqsinq printed no section for %q (sections: %v)", object, sections)
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("amqsinq %q: got %v, want %v", object, got, want)
	}
}
