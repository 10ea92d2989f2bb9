package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Private is a server one test owns, started by scripts/<name>.sh in a state
// directory of its own: the test may take it down and bring it back on the
// same port (with the same data, where the server keeps any) without
// disturbing the servers other tests share.
type Private struct {
	// Endpoint is what the script printed at start: a DSN or a URL.
	Endpoint string
	name     string
	script   string
	dir      string
	env      []string
}

// StartPrivate starts scripts/<name>.sh (postgres, dynalite, goaws) in a
// new state directory, with env (NAME=value) added to the script's
// environment for every command. A goaws exits by itself once this process
// is gone.
func StartPrivate(name string, env ...string) (*Private, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "mqprobe-private-"+name+"-")
	if err != nil {
		return nil, err
	}
	p := &Private{name: name, script: filepath.Join(root, "scripts", name+".sh"), dir: dir,
		env: append([]string{fmt.Sprintf("MQPROBE_GOAWS_EXIT_WITH=%d", os.Getpid())}, env...)}
	if p.Endpoint, err = p.run("start"); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// Down stops the server and keeps its state directory.
func (p *Private) Down() error {
	_, err := p.run("down")
	return err
}

// Up starts the server taken down by Down again, on the same endpoint.
func (p *Private) Up() error {
	endpoint, err := p.run("up")
	if err != nil {
		return err
	}
	if endpoint != p.Endpoint {
		return fmt.Errorf("%s came back at %s, not at %s", p.name, endpoint, p.Endpoint)
	}
	return nil
}

// Stop stops the server and removes its state directory.
func (p *Private) Stop() {
	_, _ = p.run("stop")
	os.RemoveAll(p.dir)
}

func (p *Private) run(command string) (string, error) {
	cmd := exec.Command("bash", p.script, command, p.dir)
	cmd.Env = append(os.Environ(), p.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s %s: %w\n%s", p.script, command, p.dir, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}
