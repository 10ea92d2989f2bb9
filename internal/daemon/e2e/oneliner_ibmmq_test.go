//go:build ibmmq

package e2e_test

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestOneLinerThroughAnIBMMQDaemon is the README's path to a queue manager
// of one's own, across processes: the CLI's one line (--conn-name,
// --channel, --user, --password-ref) to an ibmmq daemon whose inline
// allowlist admits it, and on to a queue manager server that asks for the
// password. The daemon resolves the reference from its own environment;
// what the CLI sent, every byte of it, holds the reference and not the
// password, though the CLI's environment has it too.
func TestOneLinerThroughAnIBMMQDaemon(t *testing.T) {
	const password, stale = "s3cret-4pp-pw", "an-old-password"
	srv := daemontest.StartMQServerConfig(t, `channels:
  - name: DEV.APP.SVRCONN
    users: [app]
    passwordRequired: true
users:
  - name: app
    password: `+password+"\n")
	daemon, _ := daemontest.StartProcess(t, "oneliner", map[string]string{
		"MQPROBE_IDEMPOTENCY_STORE":            "memory",
		"MQPROBE_LOG_LEVEL":                    "warn",
		"MQPROBE_MQ_BACKEND":                   "ibmmq",
		"MQPROBE_TARGETS_INLINE_HOSTS":         "127.0.0.1:" + srv.Port,
		"MQPROBE_TARGETS_INLINE_CHANNELS":      "DEV.APP.SVRCONN",
		"MQPROBE_TARGETS_INLINE_QUEUES":        "DEV.QUEUE.1",
		"MQPROBE_TARGETS_INLINE_SECRETREFS":    "env:MQ_*_PASSWORD",
		"MQ_APP_PASSWORD":                      password,
		"MQ_STALE_PASSWORD":                    stale,
		"MQPROBE_TARGETS_INLINE_QUEUEMANAGERS": "QM1",
	})
	// The CLI's exit statuses: 1 the MQ work failed, 3 refused.
	wire, err := testenv.StartRecordingProxy(strings.TrimPrefix(daemon.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wire.Close)
	cli := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(daemontest.Binary(t), append([]string{"send", "produce", "--addr", wire.Addr(), "--conn-name", srv.ConnName(),
			"--channel", "DEV.APP.SVRCONN", "--qmgr", "QM1", "--user", "app"}, args...)...)
		cmd.Env = append(processEnv(nil), "MQ_APP_PASSWORD="+password, "MQ_STALE_PASSWORD="+stale)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("mqprobe %v: %v", args, err)
		}
		return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
	}

	out, stderr, status := cli("--queue", "DEV.QUEUE.1", "--password-ref", "env:MQ_APP_PASSWORD", "--count", "3", "-o", "json")
	if status != 0 || !strings.Contains(out, `"status": "COMPLETED"`) || !strings.Contains(out, `"enqueued": 3`) {
		t.Fatalf("the one line: exit %d\nstdout %s\nstderr %s", status, out, stderr)
	}
	target := `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","channel":"DEV.APP.SVRCONN","connName":"` + srv.ConnName() +
		`","auth":{"user":"app","passwordRef":"env:MQ_APP_PASSWORD"}}`
	if depth := daemon.DepthOf(t, target); depth != 3 {
		t.Errorf("DEV.QUEUE.1 holds %d messages after the one line's 3", depth)
	}

	// The queue manager checks the password the daemon resolved: another
	// reference, another password, refused at connect.
	out, stderr, status = cli("--queue", "DEV.QUEUE.1", "--password-ref", "env:MQ_STALE_PASSWORD", "-o", "json")
	if status != 1 || !strings.Contains(out, "2035") {
		t.Errorf("a wrong password: exit %d\nstdout %s\nstderr %s; want 1 and MQRC 2035", status, out, stderr)
	}

	// Outside the allowlist: refused, naming the key, with what to change.
	out, stderr, status = cli("--queue", "DEV.QUEUE.2", "--password-ref", "env:MQ_APP_PASSWORD")
	hint := "add a pattern to targets.inline.queues (MQPROBE_TARGETS_INLINE_QUEUES) in its configuration: docs/security.md#target-profiles-and-allowlists"
	if status != 3 || !strings.Contains(out, `"detail": "target.queue \"DEV.QUEUE.2\" matches no pattern of targets.inline.queues"`) || !strings.Contains(stderr, hint) {
		t.Errorf("a queue outside the allowlist: exit %d, stdout %s, stderr %s; want 3, the daemon's detail and %q", status, out, stderr, hint)
	}
	if strings.Contains(stderr, "-tags ibmmq") {
		t.Errorf("an ibmmq daemon's refusal got the embedded backend's hint: %s", stderr)
	}

	sent := wire.Sent()
	if !bytes.Contains(sent, []byte(`"passwordRef":"env:MQ_APP_PASSWORD"`)) || bytes.Contains(sent, []byte(password)) || bytes.Contains(sent, []byte(stale)) {
		t.Errorf("the CLI sent a password, or no reference:\n%s", sent)
	}
}
