package doctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Session runs blocks one after another, as a reader pasting them into one
// terminal would: in one working directory, each block seeing the variables
// and functions the blocks before it defined.
type Session struct {
	// Dir is the working directory of every block.
	Dir string
	// Env is the environment of every block, and all of it: nothing of the
	// calling process's environment is added.
	Env []string
	// Replace holds old, new pairs applied to each script before it runs:
	// the addresses a document shows, mapped to those of the servers a test
	// started.
	Replace []string
}

// stateFile holds what blocks defined, for the blocks after them.
const stateFile = ".doctest-state"

// prologue runs before each block: strict mode, then what earlier blocks
// defined; on exit it saves every variable and function the session has
// defined so far (the shell's own variables left out).
const prologue = `set -euo pipefail
__doctest_base=" $(compgen -v | tr '\n' ' ') "
__doctest_save() {
  local name
  { for name in $(compgen -v); do
      case "$__doctest_base" in *" $name "*) continue ;; esac
      case "$name" in __doctest_*|BASH*|_) continue ;; esac
      declare -p "$name"
    done
    declare -f
  } >` + stateFile + `.tmp 2>/dev/null && mv ` + stateFile + `.tmp ` + stateFile + `
}
trap __doctest_save EXIT
if [ -f ` + stateFile + ` ]; then source ` + stateFile + `; fi
`

// Run runs b's script with bash and returns what it printed, stdout and
// stderr interleaved. The error is non-nil when the script fails (any
// command failing, under bash -euo pipefail) or outlasts ctx; a process the
// block left in the background is given 5 s to let go of the output.
func (s *Session) Run(ctx context.Context, b Block) (string, error) {
	script := b.Script
	if len(s.Replace) > 0 {
		script = strings.NewReplacer(s.Replace...).Replace(script)
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", prologue+script)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s: %w", b, err)
	}
	return out.String(), nil
}

// Check runs b and, when the document shows its output, matches the output
// against it. The error names the block and carries what it printed.
func (s *Session) Check(ctx context.Context, b Block) error {
	out, err := s.Run(ctx, b)
	if err == nil && b.Want != nil {
		if mismatch := Match(b.Want, out); mismatch != nil {
			err = fmt.Errorf("%s: the output is not the one shown: %w", b, mismatch)
		}
	}
	if err != nil {
		return fmt.Errorf("%w\n--- the block:\n%s--- its output:\n%s", err, b.Script, out)
	}
	return nil
}

// Load returns the blocks of the documents at paths (relative to root), in
// the order given, keeping those keep accepts.
func Load(root string, keep func(Block) bool, paths ...string) ([]Block, error) {
	var all []Block
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, fmt.Errorf("doctest: %w", err)
		}
		blocks, err := Blocks(p, data)
		if err != nil {
			return nil, fmt.Errorf("doctest: %w", err)
		}
		for _, b := range blocks {
			if keep(b) {
				all = append(all, b)
			}
		}
	}
	return all, nil
}
