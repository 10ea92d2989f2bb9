package configs_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// dockerfile is ../Dockerfile as BuildKit reads it.
type dockerfile struct {
	stages []instructions.Stage
}

func parseDockerfile(t *testing.T) dockerfile {
	t.Helper()
	data, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	res, err := parser.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("parse Dockerfile: %v", err)
	}
	for _, w := range res.Warnings {
		t.Errorf("Dockerfile: %s", w.Short)
	}
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, msg string, loc []parser.Range) {
		t.Errorf("Dockerfile lint %s at %v: %s", rule, loc, msg)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		t.Fatalf("Dockerfile instructions: %v", err)
	}
	return dockerfile{stages: stages}
}

func (d dockerfile) stage(t *testing.T, name string) instructions.Stage {
	t.Helper()
	for _, s := range d.stages {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no stage %q", name)
	return instructions.Stage{}
}

// image returns the commands that make up a target's image: its base
// stages' first, as Docker inherits USER, ENV, HEALTHCHECK and CMD.
func (d dockerfile) image(t *testing.T, name string) []instructions.Command {
	s := d.stage(t, name)
	for _, b := range d.stages {
		if b.Name == s.BaseName {
			return append(d.image(t, b.Name), s.Commands...)
		}
	}
	return s.Commands
}

// needs returns every stage a target is built from, through FROM and
// COPY --from.
func (d dockerfile) needs(t *testing.T, name string) []string {
	var out []string
	var visit func(string)
	visit = func(n string) {
		if slices.Contains(out, n) {
			return
		}
		s := d.stage(t, n)
		out = append(out, n)
		deps := []string{s.BaseName}
		for _, c := range s.Commands {
			if cp, ok := c.(*instructions.CopyCommand); ok && cp.From != "" {
				deps = append(deps, cp.From)
			}
		}
		for _, dep := range deps {
			if slices.ContainsFunc(d.stages, func(s instructions.Stage) bool { return s.Name == dep }) {
				visit(dep)
			}
		}
	}
	visit(name)
	return out
}

func commands[T instructions.Command](cmds []instructions.Command) []T {
	var out []T
	for _, c := range cmds {
		if v, ok := c.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// env returns the environment the commands set, quotes removed.
func env(t *testing.T, cmds []instructions.Command) map[string]string {
	t.Helper()
	out := map[string]string{}
	lex := shell.NewLex('\\')
	for _, e := range commands[*instructions.EnvCommand](cmds) {
		for _, kv := range e.Env {
			v, _, err := lex.ProcessWord(kv.Value, shell.EnvsFromSlice(nil))
			if err != nil {
				t.Fatalf("ENV %s: %v", kv.Key, err)
			}
			out[kv.Key] = v
		}
	}
	return out
}

func runLines(cmds []instructions.Command) []string {
	var out []string
	for _, r := range commands[*instructions.RunCommand](cmds) {
		out = append(out, strings.Join(r.CmdLine, " "))
	}
	return out
}

func TestDockerfileStages(t *testing.T) {
	d := parseDockerfile(t)
	var names []string
	for _, s := range d.stages {
		names = append(names, s.Name)
	}
	// ibmmq last: a plain `docker build` builds it.
	want := []string{"source", "mqclient", "builder", "builder-embedded", "runtime-base", "embedded", "ibmmq"}
	if !slices.Equal(names, want) {
		t.Fatalf("stages %v, want %v", names, want)
	}

	client := d.stage(t, "mqclient")
	args := map[string]*string{}
	for _, a := range commands[*instructions.ArgCommand](client.Commands) {
		for _, kv := range a.Args {
			args[kv.Key] = kv.Value
		}
	}
	for _, name := range []string{"MQ_VERSION", "MQ_CLIENT_URL", "MQ_CLIENT_SHA256"} {
		if _, ok := args[name]; !ok {
			t.Errorf("mqclient has no ARG %s", name)
		}
	}
	if v := args["MQ_CLIENT_SHA256"]; v != nil && *v != "" {
		t.Errorf("MQ_CLIENT_SHA256 defaults to %q: a checksum must be given, not assumed", *v)
	}
	download := strings.Join(runLines(client.Commands), "\n")
	get, verify, unpack := strings.Index(download, "curl "), strings.Index(download, "sha256sum -c"), strings.Index(download, "tar -xzf")
	if get < 0 || verify < get || unpack < verify {
		t.Errorf("mqclient must download, verify with sha256sum -c, then unpack:\n%s", download)
	}
	if !strings.Contains(download, "genmqpkg.sh -b /opt/mqm-runtime") {
		t.Errorf("mqclient does not cut the runtime down with genmqpkg:\n%s", download)
	}

	builder := d.stage(t, "builder")
	build := strings.Join(runLines(builder.Commands), "\n")
	if !strings.Contains(build, "go build -tags ibmmq") || !strings.Contains(build, "./cmd/mqprobe") {
		t.Errorf("builder does not build ./cmd/mqprobe with -tags ibmmq: %s", build)
	}
	benv := env(t, d.image(t, "builder"))
	if benv["CGO_ENABLED"] != "1" || !strings.Contains(benv["CGO_CFLAGS"], "-I/opt/mqm/inc") ||
		!strings.Contains(benv["CGO_LDFLAGS"], "-L/opt/mqm/lib64") {
		t.Errorf("builder cgo environment %v", benv)
	}
	embedded := strings.Join(runLines(d.stage(t, "builder-embedded").Commands), "\n")
	if !strings.Contains(embedded, "CGO_ENABLED=0 go build") || strings.Contains(embedded, "ibmmq") {
		t.Errorf("builder-embedded must build without cgo and without the ibmmq tag: %s", embedded)
	}

	// The embedded image never touches IBM's client.
	if needs := d.needs(t, "embedded"); slices.Contains(needs, "mqclient") || slices.Contains(needs, "builder") {
		t.Errorf("embedded is built from %v", needs)
	}
	if e := env(t, d.image(t, "embedded")); e["LD_LIBRARY_PATH"] != "" {
		t.Errorf("embedded sets LD_LIBRARY_PATH %q", e["LD_LIBRARY_PATH"])
	}
	ibmmq := d.image(t, "ibmmq")
	var copied []string
	for _, c := range commands[*instructions.CopyCommand](ibmmq) {
		copied = append(copied, c.From+":"+strings.Join(c.SourcePaths, ",")+"->"+c.DestPath)
	}
	for _, w := range []string{"mqclient:/opt/mqm-runtime->/opt/mqm", "builder:/out/mqprobe->/usr/local/bin/mqprobe"} {
		if !slices.Contains(copied, w) {
			t.Errorf("ibmmq copies %v, want %s", copied, w)
		}
	}
	if e := env(t, ibmmq); e["LD_LIBRARY_PATH"] != "/opt/mqm/lib64" {
		t.Errorf("ibmmq LD_LIBRARY_PATH %q", e["LD_LIBRARY_PATH"])
	}

	for _, target := range []string{"embedded", "ibmmq"} {
		img := d.image(t, target)
		users := commands[*instructions.UserCommand](img)
		if len(users) == 0 {
			t.Errorf("%s runs as root: no USER", target)
		} else if uid, _, _ := strings.Cut(users[len(users)-1].User, ":"); uid == "root" || uid == "0" {
			t.Errorf("%s runs as USER %s", target, users[len(users)-1].User)
		} else if n, err := strconv.Atoi(uid); err != nil || n == 0 {
			// Kubernetes' runAsNonRoot can only verify a numeric uid.
			t.Errorf("%s USER %q is not a numeric non-zero uid", target, uid)
		}
		hc := commands[*instructions.HealthCheckCommand](img)
		if len(hc) != 1 || !slices.Equal(hc[0].Health.Test, []string{"CMD", "/usr/local/bin/mqprobe", "health", "--live"}) {
			t.Errorf("%s healthcheck %v, want mqprobe health --live (liveness; no shell in the exec form)", target, hc)
		}
		if ep := commands[*instructions.ExposeCommand](img); len(ep) != 1 || !slices.Equal(ep[0].Ports, []string{"8080"}) {
			t.Errorf("%s exposes %v, want 8080", target, ep)
		}
		entry, cmd := commands[*instructions.EntrypointCommand](img), commands[*instructions.CmdCommand](img)
		if len(entry) != 1 || !slices.Equal(entry[0].CmdLine, []string{"/usr/local/bin/mqprobe"}) ||
			len(cmd) != 1 || !slices.Equal(cmd[0].CmdLine, []string{"run"}) {
			t.Errorf("%s starts %v %v, want mqprobe run", target, entry, cmd)
		}
	}
}

// TestDockerfileRefusesAMissingChecksum runs the download step as the
// builder would with no MQ_CLIENT_SHA256: it must stop before fetching.
func TestDockerfileRefusesAMissingChecksum(t *testing.T) {
	d := parseDockerfile(t)
	client := d.stage(t, "mqclient")
	shells := commands[*instructions.ShellCommand](client.Commands)
	runs := runLines(client.Commands)
	if len(shells) != 1 || len(runs) == 0 {
		t.Fatalf("mqclient: SHELL %v, RUN %v", shells, runs)
	}
	argv := append(slices.Clone(shells[0].Shell), runs[0])
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MQ_CLIENT_SHA256=", "MQ_CLIENT_URL=http://127.0.0.1:1/unreachable.tar.gz"}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "build argument MQ_CLIENT_SHA256 is required") {
		t.Errorf("download step with no checksum: err %v, output %q", err, out)
	}
}

// TestDockerHealthcheckProbesTheDaemon runs the image's HEALTHCHECK
// command against a daemon configured as the image configures it.
func TestDockerHealthcheckProbesTheDaemon(t *testing.T) {
	d := parseDockerfile(t)
	img := d.image(t, "embedded")
	var imageEnv []string
	for k, v := range env(t, img) {
		imageEnv = append(imageEnv, k+"="+v)
	}
	// The image listens beyond loopback, which needs a token.
	if _, err := config.Load("", imageEnv); err == nil || !strings.Contains(err.Error(), "http.authToken") {
		t.Errorf("the image's environment without a token: %v, want an http.authToken error", err)
	}
	cfg, err := config.Load("", append(imageEnv, "MQPROBE_HTTP_AUTHTOKEN=docker-test-token"))
	if err != nil {
		t.Fatalf("the image's environment with a token: %v", err)
	}
	cfg.HTTP.Addr = "127.0.0.1:0" // tests bind loopback only
	cfg.Idempotency.Store = config.StoreMemory
	dmn, err := daemon.New(context.Background(), cfg, daemon.Options{Version: "test", Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dmn.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("daemon: %v", err)
		}
	})

	test := commands[*instructions.HealthCheckCommand](img)[0].Health.Test
	if len(test) < 2 || test[0] != "CMD" || test[1] != "/usr/local/bin/mqprobe" {
		t.Fatalf("healthcheck %v is not an exec-form CMD running mqprobe", test)
	}
	// The image's binary, built here.
	binary := filepath.Join(t.TempDir(), "mqprobe")
	if out, err := exec.Command("go", "build", "-o", binary, "../cmd/mqprobe").CombinedOutput(); err != nil {
		t.Fatalf("go build mqprobe: %v\n%s", err, out)
	}
	probe := func(addr string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, test[2:]...)
		cmd.Env = append(slices.Clone(imageEnv), "PATH="+os.Getenv("PATH"), "HOME="+t.TempDir(),
			"MQPROBE_HTTP_AUTHTOKEN=docker-test-token", "MQPROBE_HTTP_ADDR="+addr)
		return cmd.Run()
	}
	if !testenv.Until(5*time.Second, func() bool { err = probe(dmn.Addr()); return err == nil }) {
		t.Fatalf("healthcheck against the running daemon: %v", err)
	}

	// Not ready (its store unreachable) but alive: the container must stay
	// up, or its orchestrator would restart a daemon holding pending outcomes.
	// It answers as the daemon does: JSON, or the CLI says that whatever
	// answered is no mqprobe daemon.
	unready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/health/live" {
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"status":"ok"}`)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"status":"unavailable","checks":{"store":"unreachable"}}`)
	}))
	if err := probe(strings.TrimPrefix(unready.URL, "http://")); err != nil {
		t.Errorf("healthcheck failed on a live daemon that is not ready: %v", err)
	}
	unready.Close()

	sick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	if err := probe(strings.TrimPrefix(sick.URL, "http://")); err == nil {
		t.Error("healthcheck passed on a 503")
	}
	sick.Close()
	if err := probe(strings.TrimPrefix(sick.URL, "http://")); err == nil {
		t.Error("healthcheck passed with nothing listening")
	}
}

func TestDockerignoreKeepsLocalStateOut(t *testing.T) {
	data, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for _, want := range []string{".git", ".build", "bin", "data"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".dockerignore does not exclude %s", want)
		}
	}
}
