package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildProgram builds the program name into .build/test under the
// repository root and returns its path. command returns the build command
// given the root and the file to write; it runs in the root. The program is
// written to a temporary file renamed into place, so concurrent runs never
// execute a half-written binary.
func BuildProgram(name string, command func(root, out string) *exec.Cmd) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, ".build", "test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, fmt.Sprintf("%s.tmp.%d", name, os.Getpid()))
	cmd := command(root, tmp)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	final := filepath.Join(dir, name)
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return final, nil
}
