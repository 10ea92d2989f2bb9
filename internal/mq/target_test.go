package mq_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
)

const secret = "s3cr3t-pa55"

func clientTarget() mq.Target {
	return mq.Target{
		QueueManager: "QM1",
		Channel:      "DEV.APP.SVRCONN",
		ConnName:     "mq1(1414), mq2:1415",
		TLS:          mq.TLS{CipherSpec: "ANY_TLS13_OR_HIGHER", KeyRepository: "/var/mqm/ssl/key.p12", KeyRepositoryPassword: secret},
		User:         "app",
		Password:     secret,
	}
}

func TestTargetNeverShowsPassword(t *testing.T) {
	tg := clientTarget()
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("connect", "target", tg)
	js, err := json.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		tg.String(), fmt.Sprint(tg), fmt.Sprintf("%v %+v %#v %s %q", tg, tg, tg, tg, tg),
		fmt.Sprintf("%v", &tg), logged.String(), string(js),
	} {
		if strings.Contains(s, secret) {
			t.Errorf("password or key repository password leaked: %s", s)
		}
	}
	if !strings.Contains(logged.String(), `"password":"REDACTED"`) || !strings.Contains(tg.String(), "password=REDACTED") {
		t.Errorf("redaction marker missing: %s / %s", logged.String(), tg)
	}
}

func TestTargetNormalizedAndValid(t *testing.T) {
	tg := clientTarget().Normalized()
	if tg.ConnName != "mq1(1414),mq2(1415)" || tg.ApplName != "mqprobe" {
		t.Errorf("normalized: %q %q", tg.ConnName, tg.ApplName)
	}
	if err := tg.Validate(); err != nil {
		t.Errorf("valid target rejected: %v", err)
	}
	if err := (mq.Target{QueueManager: "QM1"}).Validate(); err != nil {
		t.Errorf("local target rejected: %v", err)
	}
	if err := (mq.Target{QueueManager: "QM1", CCDTURL: "file:///etc/mq/ccdt.json"}).Validate(); err != nil {
		t.Errorf("ccdt target rejected: %v", err)
	}
}

func TestTargetValidateRejects(t *testing.T) {
	for name, tg := range map[string]mq.Target{
		"long qmgr":           {QueueManager: strings.Repeat("Q", 49)},
		"bad qmgr chars":      {QueueManager: "QM 1"},
		"connName no channel": {QueueManager: "QM1", ConnName: "host(1414)"},
		"bad port":            {QueueManager: "QM1", Channel: "C", ConnName: "host(99999)"},
		"unbalanced":          {QueueManager: "QM1", Channel: "C", ConnName: "host1414)"},
		"ccdt and connName":   {QueueManager: "QM1", Channel: "C", ConnName: "h(1)", CCDTURL: "file:///x"},
		"password no user":    {QueueManager: "QM1", Password: "x"},
		"keyrepo no cipher":   {QueueManager: "QM1", TLS: mq.TLS{KeyRepository: "/k"}},
		"keyrepo password no keyrepo": {QueueManager: "QM1", Channel: "C", ConnName: "h",
			TLS: mq.TLS{CipherSpec: "ANY_TLS13", KeyRepositoryPassword: secret}},
		"long channel": {QueueManager: "QM1", Channel: strings.Repeat("C", 21), ConnName: "h"},
	} {
		if err := tg.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: error leaks the password", name)
		}
	}
}

func TestParseConnName(t *testing.T) {
	eps, err := mq.ParseConnName("a(1),b:2 , c, [::1]:3")
	if err != nil {
		t.Fatal(err)
	}
	want := []mq.Endpoint{{Host: "a", Port: 1}, {Host: "b", Port: 2}, {Host: "c", Port: 1414}, {Host: "::1", Port: 3}}
	if fmt.Sprint(eps) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", eps, want)
	}
	for _, bad := range []string{"", "a(x)", "(1414)", "a(0)", "a(1),"} {
		if _, err := mq.ParseConnName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestOpenOptionValidate(t *testing.T) {
	for _, o := range []mq.OpenOption{0, mq.OpenInputShared | mq.OpenInputExclusive, 1 << 10} {
		if mq.ReasonOf(o.Validate()) != mq.ReasonOptionsError {
			t.Errorf("%#x accepted", int(o))
		}
	}
	if err := (mq.OpenOutput | mq.OpenBrowse | mq.OpenInputShared | mq.OpenInquire).Validate(); err != nil {
		t.Error(err)
	}
}

func TestPropertiesValidate(t *testing.T) {
	ok := mq.Properties{"s": "x", "b": true, "i": int64(1), "f": 1.5, "y": []byte{1}}
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
	if mq.ReasonOf(mq.Properties{"n": 1}.Validate()) != mq.ReasonPropertyTypeError {
		t.Error("int accepted")
	}
	if mq.ReasonOf(mq.Properties{"": "x"}.Validate()) != mq.ReasonPropertyNameError {
		t.Error("empty name accepted")
	}
}

func TestMessageReset(t *testing.T) {
	m := mq.Message{Priority: 3, Payload: make([]byte, 5, 64), Properties: mq.Properties{"a": "b"}}
	m.Reset()
	if m.Priority != 0 || len(m.Payload) != 0 || cap(m.Payload) != 64 || len(m.Properties) != 0 || m.Properties == nil {
		t.Errorf("after Reset: %+v", m)
	}
	if _, err := mq.IDFromBytes(make([]byte, 25)); err == nil {
		t.Error("25-byte id accepted")
	}
}

func TestIsSystemQueue(t *testing.T) {
	for queue, want := range map[string]bool{
		"SYSTEM.DEAD.LETTER.QUEUE": true, "system.admin.command.queue": true, "SYSTEM.": true,
		"SYSTEM": false, "DEV.SYSTEM.Q": false, "": false, "DEV.QUEUE.1": false,
	} {
		if got := mq.IsSystemQueue(queue); got != want {
			t.Errorf("IsSystemQueue(%q) = %t, want %t", queue, got, want)
		}
	}
}
