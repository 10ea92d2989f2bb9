package targets_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/targets"
)

func code(err error) string {
	var te *targets.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

func TestResolveProfilesAndInline(t *testing.T) {
	t.Setenv("QM1_PASSWORD", "s3cret")
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte("from-file\n"), 0o600)
	r := targets.NewResolver(targets.Config{AllowInline: true, Profiles: map[string]targets.Profile{
		"qm1":  {QueueManager: "QM1", Queue: "DEV.QUEUE.1", Channel: "DEV.APP.SVRCONN", ConnName: "mq1:1414", User: "app", PasswordRef: "env:QM1_PASSWORD"},
		"file": {QueueManager: "QM1", Queue: "DEV.QUEUE.2", User: "app", PasswordRef: "file:" + pwFile},
		"tls":  {QueueManager: "QM1", Queue: "Q", Channel: "C", ConnName: "h(1)", CipherSpec: "ANY_TLS13", KeyStoreRef: "file:/var/mqm/ssl/key"},
	}})

	res, err := r.Resolve(command.Command{TargetRef: "qm1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Target.Password != "s3cret" || res.Target.ConnName != "mq1(1414)" || res.Queue != "DEV.QUEUE.1" || res.String() != "QM1:DEV.QUEUE.1" {
		t.Errorf("profile resolved to %#v queue %s", res.Target, res.Queue)
	}
	if strings.Contains(res.Target.String(), "s3cret") {
		t.Error("the target's string form shows the password")
	}
	if res, err := r.Resolve(command.Command{TargetRef: "file"}); err != nil || res.Target.Password != "from-file" {
		t.Errorf("file: reference not read (without its trailing newline): %v", err)
	}
	if res, _ := r.Resolve(command.Command{TargetRef: "tls"}); res.Target.TLS.KeyRepository != "/var/mqm/ssl/key" || res.Target.TLS.CipherSpec != "ANY_TLS13" {
		t.Errorf("TLS profile resolved to %#v", res.Target.TLS)
	}
	if res, err := r.Resolve(command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.QUEUE.3"}}); err != nil || res.Queue != "DEV.QUEUE.3" {
		t.Errorf("inline: %v %v", res, err)
	}
}

func TestResolveRefusals(t *testing.T) {
	strict := targets.NewResolver(targets.Config{Profiles: map[string]targets.Profile{
		"missing-secret": {QueueManager: "QM1", Queue: "Q", PasswordRef: "env:MQPROBE_TEST_SURELY_UNSET"},
		"bad-scheme":     {QueueManager: "QM1", Queue: "Q", PasswordRef: "vault:x"},
	}})
	for name, tc := range map[string]struct {
		cmd  command.Command
		code string
		not  string
	}{
		"unknown ref":    {command.Command{TargetRef: "nowhere"}, "TARGET_NOT_FOUND", ""},
		"inline refused": {command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "Q"}}, "TARGET_NOT_ALLOWED", ""},
		"secret missing": {command.Command{TargetRef: "missing-secret"}, "TARGET_NOT_ALLOWED", ""},
		"unknown scheme": {command.Command{TargetRef: "bad-scheme"}, "TARGET_NOT_ALLOWED", ""},
		"neither target": {command.Command{}, "TARGET_NOT_FOUND", ""},
	} {
		_, err := strict.Resolve(tc.cmd)
		if code(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	_, err := strict.Resolve(command.Command{TargetRef: "missing-secret"})
	if !strings.Contains(err.Error(), "env:MQPROBE_TEST_SURELY_UNSET") {
		t.Errorf("the error should name the reference: %v", err)
	}
}
