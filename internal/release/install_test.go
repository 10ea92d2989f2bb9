package release_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const modulePath = "github.com/mqprobe/mqprobe"

// version is what the local module is published as: a prerelease, so
// @latest picks it as the only version the test's proxy lists.
const version = "v0.0.1-installtest"

// TestREADMEInstallLineInstalls runs the README's `go install` line as a
// new user would: a fresh GOPATH and module cache, modules only from a
// proxy (here one serving the working tree as the module's only version,
// then the local module cache, then the configured proxy; no VCS), no
// workspace or GOFLAGS. The installed binary must run and report the
// version it was installed at.
func TestREADMEInstallLineInstalls(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^go install ` + regexp.QuoteMeta(modulePath) + `/cmd/mqprobe@latest$`).Find(readme)
	if line == nil {
		t.Fatalf("README.md has no line `go install %s/cmd/mqprobe@latest`", modulePath)
	}

	proxy := t.TempDir()
	publish(t, root, proxy)
	gopath := t.TempDir()
	hostGo := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	cache, upstream := hostGo("GOMODCACHE"), hostGo("GOPROXY")
	cmd := exec.Command("sh", "-c", string(line))
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"GOPATH=" + gopath,
		"GOMODCACHE=" + filepath.Join(gopath, "pkg", "mod"),
		"GOCACHE=" + hostGo("GOCACHE"), // compiled packages only: modules come from the proxy
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(cache, "cache", "download") + "," + upstream,
		"GONOSUMDB=" + modulePath, // the local module is not in the checksum database
		"GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0",
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	binary := filepath.Join(gopath, "bin", "mqprobe")
	out, err := exec.Command(binary, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("installed mqprobe version: %v\n%s", err, out)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); first != "mqprobe "+version {
		t.Errorf("installed mqprobe version prints %q, want %q", first, "mqprobe "+version)
	}
}

// publish writes the working tree's module (its tracked and untracked,
// not ignored, files) to proxy as version, in the GOPROXY file layout.
func publish(t *testing.T, root, proxy string) {
	t.Helper()
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []zip.File
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		if fi, err := os.Lstat(filepath.Join(root, name)); err == nil && fi.Mode().IsRegular() {
			files = append(files, moduleFile{root: root, name: name, info: fi})
		}
	}
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	z, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.Create(z, module.Version{Path: modulePath, Version: version}, files); err != nil {
		t.Fatalf("module zip: %v", err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		version + ".mod":  gomod,
		version + ".info": []byte(`{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`),
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// moduleFile is a file of the working tree as golang.org/x/mod/zip reads it.
type moduleFile struct {
	root, name string
	info       os.FileInfo
}

func (f moduleFile) Path() string                 { return f.name }
func (f moduleFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f moduleFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(f.root, f.name)) }
