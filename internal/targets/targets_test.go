package targets_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
)

func code(err error) string {
	var te *targets.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

func inline(qm, queue, channel, connName string) command.Command {
	return command.Command{Target: &command.Target{QueueManager: qm, Queue: queue, Channel: channel, ConnName: connName}}
}

func TestResolveProfilesAndInline(t *testing.T) {
	t.Setenv("QM1_PASSWORD", "s3cret")
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "pw")
	for name, content := range map[string]string{"pw": "from-file\n", "key.kdb": "kdb", "key.sth": "sth"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := targets.NewResolver(targets.Config{AllowInline: true, Profiles: map[string]targets.Profile{
		"qm1":  {QueueManager: "QM1", Queue: "DEV.QUEUE.1", Channel: "DEV.APP.SVRCONN", ConnName: "mq1:1414", User: "app", PasswordRef: "env:QM1_PASSWORD"},
		"file": {QueueManager: "QM1", Queue: "DEV.QUEUE.2", User: "app", PasswordRef: "file:" + pwFile},
		"tls":  {QueueManager: "QM1", Queue: "Q", Channel: "C", ConnName: "h(1)", CipherSpec: "ANY_TLS13", KeyStoreRef: "file:" + dir + "/key.kdb"},
	}})
	ctx := context.Background()
	res, err := r.Resolve(ctx, command.Command{TargetRef: "qm1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Target.Password != "s3cret" || res.Target.ConnName != "mq1(1414)" || res.Queue != "DEV.QUEUE.1" || res.String() != "QM1:DEV.QUEUE.1" {
		t.Errorf("profile resolved to %#v queue %s", res.Target, res.Queue)
	}
	if strings.Contains(res.Target.String(), "s3cret") {
		t.Error("the target's string form shows the password")
	}
	if res, err := r.Resolve(ctx, command.Command{TargetRef: "file"}); err != nil || res.Target.Password != "from-file" {
		t.Errorf("file: reference not read (without its trailing newline): %v", err)
	}
	if res, _ := r.Resolve(ctx, command.Command{TargetRef: "tls"}); res.Target.TLS.KeyRepository != dir+"/key" || res.Target.TLS.CipherSpec != "ANY_TLS13" {
		t.Errorf("TLS profile resolved to %#v", res.Target.TLS)
	}
	if res, err := r.Resolve(ctx, inline("QM1", "DEV.QUEUE.3", "", "")); err != nil || res.Queue != "DEV.QUEUE.3" {
		t.Errorf("inline: %v %v", res, err)
	}
}

func TestResolveRefusals(t *testing.T) {
	strict := targets.NewResolver(targets.Config{Profiles: map[string]targets.Profile{
		"missing-secret": {QueueManager: "QM1", Queue: "Q", PasswordRef: "env:MQPROBE_TEST_SURELY_UNSET"},
		"bad-scheme":     {QueueManager: "QM1", Queue: "Q", PasswordRef: "vault:x"},
		"no-sm":          {QueueManager: "QM1", Queue: "Q", User: "app", PasswordRef: "secret://mq/app"},
	}})
	for name, tc := range map[string]struct {
		cmd  command.Command
		code string
		says string
	}{
		"unknown ref":       {command.Command{TargetRef: "nowhere"}, "TARGET_NOT_FOUND", `targetRef "nowhere"`},
		"inline refused":    {inline("QM1", "Q", "", ""), "TARGET_NOT_ALLOWED", "targets.allowInline is false"},
		"secret missing":    {command.Command{TargetRef: "missing-secret"}, "TARGET_NOT_ALLOWED", "env:MQPROBE_TEST_SURELY_UNSET"},
		"unknown scheme":    {command.Command{TargetRef: "bad-scheme"}, "TARGET_NOT_ALLOWED", "unsupported scheme"},
		"no secrets source": {command.Command{TargetRef: "no-sm"}, "TARGET_NOT_ALLOWED", "secret://mq/app"},
		"neither target":    {command.Command{}, "TARGET_NOT_FOUND", "neither"},
	} {
		_, err := strict.Resolve(context.Background(), tc.cmd)
		if code(err) != tc.code || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %s saying %q", name, err, tc.code, tc.says)
		}
	}
}

func TestProfileQueues(t *testing.T) {
	r := targets.NewResolver(targets.Config{Profiles: map[string]targets.Profile{
		"lab": {QueueManager: "QM1", Queue: "DEV.QUEUE.1", AllowedQueues: []string{"DEV.QUEUE.?", "APP/*"}},
	}})
	ctx := context.Background()
	for queue, allowed := range map[string]bool{"": true, "DEV.QUEUE.1": true, "DEV.QUEUE.2": true, "APP/ORDERS/IN": true,
		"DEV.QUEUE.10": false, "SYSTEM.ADMIN.COMMAND.QUEUE": false} {
		res, err := r.Resolve(ctx, command.Command{TargetRef: "lab", Queue: queue})
		switch {
		case allowed && err != nil:
			t.Errorf("queue %q refused: %v", queue, err)
		case allowed && queue != "" && res.Queue != queue:
			t.Errorf("queue %q resolved to %q", queue, res.Queue)
		case !allowed && (code(err) != "TARGET_NOT_ALLOWED" || !strings.Contains(err.Error(), "allowedQueues")):
			t.Errorf("queue %q: %v, want TARGET_NOT_ALLOWED naming allowedQueues", queue, err)
		}
	}
	_, err := r.Resolve(ctx, command.Command{TargetRef: "lab", ReplyQueue: "SYSTEM.DEFAULT.LOCAL.QUEUE"})
	if code(err) != "TARGET_NOT_ALLOWED" || !strings.Contains(err.Error(), "replyQueue") {
		t.Errorf("replyQueue outside the profile: %v", err)
	}
}

func TestInlineAllowlist(t *testing.T) {
	r := targets.NewResolver(targets.Config{AllowInline: true, Inline: targets.Allowlist{
		QueueManagers: []string{"QM?", "LAB*"},
		Hosts:         []string{"*.mq.example.com:1414", "10.0.0.*", "[::1]:1414"},
		Channels:      []string{"DEV.*"},
		Queues:        []string{"DEV.*"},
		CCDTURLs:      []string{"https://config.example.com/ccdt/*.json"},
		SecretRefs:    []string{"secret://mq/lab-*"},
	}, Secrets: secrets.NewResolver(secrets.Config{Fetcher: labSecrets{}})})
	ctx := context.Background()
	allowed := []command.Command{
		inline("QM1", "DEV.QUEUE.1", "DEV.APP.SVRCONN", "a.mq.example.com(1414)"),
		inline("LABQM", "DEV.Q", "DEV.C", "A.MQ.EXAMPLE.COM(1414),10.0.0.7(1515)"),
		inline("QM1", "DEV.Q", "DEV.C", "::1(1414)"),
		inline("QM1", "DEV.Q", "", ""), // the client's own MQSERVER/CCDT settings: the operator's
		{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.Q", CCDTURL: "https://config.example.com/ccdt/lab.json"}},
		{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.Q", Auth: &command.Auth{User: "app", PasswordRef: "secret://mq/lab-qm1"}}},
	}
	for _, cmd := range allowed {
		if _, err := r.Resolve(ctx, cmd); err != nil {
			t.Errorf("%+v refused: %v", *cmd.Target, err)
		}
	}
	refused := map[string]struct {
		cmd  command.Command
		says string
	}{
		"queue manager": {inline("PROD1", "DEV.Q", "DEV.C", "a.mq.example.com(1414)"), `target.queueManager "PROD1" matches no pattern of targets.inline.queueManagers`},
		"host":          {inline("QM1", "DEV.Q", "DEV.C", "evil.example.org(1414)"), "target.connName entry evil.example.org:1414 matches no pattern of targets.inline.hosts"},
		"second host":   {inline("QM1", "DEV.Q", "DEV.C", "a.mq.example.com(1414),evil(1414)"), "evil:1414"},
		"port":          {inline("QM1", "DEV.Q", "DEV.C", "a.mq.example.com(1415)"), "a.mq.example.com:1415"},
		"suffix trick":  {inline("QM1", "DEV.Q", "DEV.C", "mq.example.com.evil.org(1414)"), "targets.inline.hosts"},
		// A NUL ends the C string MQCONNX reads: the pattern would match one
		// host and the client connect to another.
		"NUL in host":       {inline("QM1", "DEV.Q", "DEV.C", "169.254.169.254\x00.mq.example.com(1414)"), "neither an IP address nor a DNS name"},
		"control character": {inline("QM1", "DEV.Q", "DEV.C", "a.mq.example\x01.com(1414)"), "neither an IP address nor a DNS name"},
		"name under IP *":   {inline("QM1", "DEV.Q", "DEV.C", "10.0.0.evil.example(1414)"), "matches no pattern of targets.inline.hosts"},
		"nip.io":            {inline("QM1", "DEV.Q", "DEV.C", "10.0.0.1.nip.io(443)"), "matches no pattern of targets.inline.hosts"},
		"two labels for *":  {inline("QM1", "DEV.Q", "DEV.C", "a.b.mq.example.com(1414)"), "matches no pattern of targets.inline.hosts"},
		"channel":           {inline("QM1", "DEV.Q", "SYSTEM.ADMIN.SVRCONN", "a.mq.example.com(1414)"), "targets.inline.channels"},
		"queue":             {inline("QM1", "SYSTEM.ADMIN.COMMAND.QUEUE", "DEV.C", "a.mq.example.com(1414)"), "targets.inline.queues"},
		"ccdt":              {command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.Q", CCDTURL: "https://evil.org/ccdt.json"}}, "targets.inline.ccdtUrls"},
		"password file": {command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.Q",
			Auth: &command.Auth{User: "app", PasswordRef: "file:/etc/mqprobe/admin-password"}}}, `target.auth.passwordRef "file:/etc/mqprobe/admin-password" matches no pattern of targets.inline.secretRefs`},
		"key store": {command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.Q",
			SSL: &command.SSL{Enabled: true, CipherSpec: "ANY_TLS13", KeyStoreRef: "env:HOME"}}}, "targets.inline.secretRefs"},
	}
	for name, tc := range refused {
		_, err := r.Resolve(ctx, tc.cmd)
		if code(err) != "TARGET_NOT_ALLOWED" || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want TARGET_NOT_ALLOWED saying %q", name, err, tc.says)
		}
	}
	reply := inline("QM1", "DEV.Q", "DEV.C", "a.mq.example.com(1414)")
	reply.ReplyQueue = "SYSTEM.X"
	if _, err := r.Resolve(ctx, reply); code(err) != "TARGET_NOT_ALLOWED" || !strings.Contains(err.Error(), "replyQueue") {
		t.Errorf("replyQueue outside targets.inline.queues: %v", err)
	}
}

// labSecrets serves every secret:// reference with one value.
type labSecrets struct{}

func (labSecrets) Fetch(context.Context, string) (secrets.Secret, error) {
	return secrets.Secret{String: "lab-pw"}, nil
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		fold, want bool
	}{
		{"DEV.*", "DEV.QUEUE.1", false, true},
		{"DEV.*", "DEV.", false, true},
		{"DEV.*", "DEV", false, false},
		{"*", "", false, true},
		{"A/*/Z", "A/B/C/Z", false, true},
		{"Q?", "Q1", false, true},
		{"Q?", "Q12", false, false},
		{"*.EXAMPLE.COM", "a.example.com", true, true},
		{"*.EXAMPLE.COM", "a.example.com", false, false},
		{"*a*a*a*a*b", strings.Repeat("a", 60), false, false},
		{"dev.queue", "DEV.QUEUE", false, false},
	} {
		if got := targets.Match(tc.pattern, tc.s, tc.fold); got != tc.want {
			t.Errorf("Match(%q, %q, %v) = %v", tc.pattern, tc.s, tc.fold, got)
		}
	}
}

func TestRateLimits(t *testing.T) {
	r := targets.NewResolver(targets.Config{AllowInline: true, RateLimit: targets.Rate{PerSecond: 1, Burst: 2},
		Profiles: map[string]targets.Profile{
			"fast": {QueueManager: "QM1", Queue: "Q", RateLimit: &targets.Rate{PerSecond: 1000, Burst: 100}},
			"slow": {QueueManager: "QM1", Queue: "Q"},
		}})
	ctx := context.Background()
	resolve := func(cmd command.Command) targets.Resolved {
		res, err := r.Resolve(ctx, cmd)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	slow := resolve(command.Command{TargetRef: "slow"})
	for i := range 2 {
		if _, _, ok := r.Reserve(slow); !ok {
			t.Fatalf("command %d within the burst refused", i+1)
		}
	}
	_, wait, ok := r.Reserve(slow)
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("third command in a burst of 2 at 1/s: ok %v, retry after %s; want refused within 1s", ok, wait)
	}
	// Each profile and each inline queue manager has its own bucket.
	fast := resolve(command.Command{TargetRef: "fast"})
	for i := range 100 {
		if _, _, ok := r.Reserve(fast); !ok {
			t.Fatalf("fast profile refused command %d of its burst of 100", i+1)
		}
	}
	qm2 := resolve(inline("QM2", "Q", "", ""))
	if _, _, ok := r.Reserve(qm2); !ok {
		t.Fatal("another queue manager shares the slow profile's bucket")
	}
	// A token given back (a replay) is there for the next command.
	qm3 := resolve(inline("QM3", "Q", "", ""))
	tok1, _, _ := r.Reserve(qm3)
	tok2, _, _ := r.Reserve(qm3)
	if _, _, ok := r.Reserve(qm3); ok {
		t.Fatal("QM3 admitted a third command in its burst of 2")
	}
	tok2.Cancel()
	tok1.Cancel()
	if _, _, ok := r.Reserve(qm3); !ok {
		t.Fatal("cancelled tokens were not given back")
	}
	// Unlimited without a rate.
	free := targets.NewResolver(targets.Config{AllowInline: true})
	res, _ := free.Resolve(ctx, inline("QM1", "Q", "", ""))
	for range 1000 {
		if _, _, ok := free.Reserve(res); !ok {
			t.Fatal("a target without a rate limit was limited")
		}
	}
}

// TestEmbeddedBackendRefusesConnections: an in-process backend connects
// nowhere, so an inline target saying where or how to connect is refused,
// naming the field, even within the allowlist; profiles and plain inline
// targets resolve as before.
func TestEmbeddedBackendRefusesConnections(t *testing.T) {
	r := targets.NewResolver(targets.Config{AllowInline: true, ConnectsNowhere: true,
		Inline:   targets.Allowlist{CCDTURLs: []string{"https://config.example.com/ccdt/*"}},
		Profiles: map[string]targets.Profile{"local": {QueueManager: "QM1", Queue: "DEV.QUEUE.1"}}})
	ctx := context.Background()
	for field, target := range map[string]command.Target{
		"target.connName": {QueueManager: "QM1", Queue: "DEV.QUEUE.1", ConnName: "169.254.169.254(80)"},
		"target.channel":  {QueueManager: "QM1", Queue: "DEV.QUEUE.1", Channel: "DEV.APP.SVRCONN"},
		"target.ccdtUrl":  {QueueManager: "QM1", Queue: "DEV.QUEUE.1", CCDTURL: "https://config.example.com/ccdt/qm1.json"},
		"target.ssl":      {QueueManager: "QM1", Queue: "DEV.QUEUE.1", SSL: &command.SSL{Enabled: true, CipherSpec: "ANY_TLS13"}},
	} {
		_, err := r.Resolve(ctx, command.Command{Target: &target})
		if code(err) != "TARGET_NOT_ALLOWED" || !strings.HasPrefix(err.Error(), field+": the embedded MQ backend connects nowhere") ||
			!strings.Contains(err.Error(), "mq.backend ibmmq") {
			t.Errorf("%s: %v; want TARGET_NOT_ALLOWED naming the field and the rule", field, err)
		}
	}
	for _, cmd := range []command.Command{inline("QM1", "DEV.QUEUE.2", "", ""), {TargetRef: "local"},
		{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.QUEUE.1", SSL: &command.SSL{Enabled: false}}}} {
		if _, err := r.Resolve(ctx, cmd); err != nil {
			t.Errorf("%+v: %v", cmd, err)
		}
	}
	// A backend that connects takes the connection as given.
	networked := targets.NewResolver(targets.Config{AllowInline: true})
	if res, err := networked.Resolve(ctx, inline("QM1", "DEV.QUEUE.1", "DEV.APP.SVRCONN", "mq1(1414)")); err != nil || res.Target.ConnName != "mq1(1414)" {
		t.Errorf("ibmmq backend: %+v %v", res.Target, err)
	}
}

// TestAllowQueue: the other queues a command uses on its target (REDRIVE's
// destinations) pass the same allowlist as its own queue.
func TestAllowQueue(t *testing.T) {
	r := targets.NewResolver(targets.Config{AllowInline: true, Inline: targets.Allowlist{Queues: []string{"DEV.*"}},
		Profiles: map[string]targets.Profile{"lab": {QueueManager: "QM1", Queue: "DEV.DEAD.LETTER.QUEUE", AllowedQueues: []string{"APP.*"}}}})
	ctx := context.Background()
	inline, err := r.Resolve(ctx, command.Command{Target: &command.Target{QueueManager: "QM1", Queue: "DEV.DEAD.LETTER.QUEUE"}})
	if err != nil {
		t.Fatal(err)
	}
	profile, err := r.Resolve(ctx, command.Command{TargetRef: "lab", Queue: "APP.DLQ"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		res     targets.Resolved
		queue   string
		setting string // "" when allowed
	}{
		{inline, "DEV.QUEUE.1", ""},
		{inline, "APP.ORDERS", "targets.inline.queues"},
		{profile, "APP.ORDERS", ""},
		{profile, "DEV.DEAD.LETTER.QUEUE", ""}, // the profile's own queue, though the command named another
		{profile, "DEV.QUEUE.1", "allowedQueues"},
	} {
		err := tc.res.AllowQueue(tc.queue)
		switch {
		case tc.setting == "" && err != nil:
			t.Errorf("%s: %q refused: %v", tc.res, tc.queue, err)
		case tc.setting != "" && (code(err) != "TARGET_NOT_ALLOWED" || !strings.Contains(err.Error(), tc.setting)):
			t.Errorf("%s: %q: %v, want TARGET_NOT_ALLOWED naming %s", tc.res, tc.queue, err, tc.setting)
		}
	}
}
