package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples: every command's --help shows examples, and
// each example that runs mqprobe names a real command and flags it takes.
func TestEveryCommandHasExamples(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.Name() == "help" {
			return
		}
		if cmd.Example == "" {
			t.Errorf("%s has no examples", cmd.CommandPath())
		}
		for _, line := range strings.Split(cmd.Example, "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 || fields[0] != "mqprobe" {
				continue // a shell line around mqprobe (completion)
			}
			args := fields[1:]
			for i, a := range args { // the shell's quotes, as the examples use them
				args[i] = strings.Trim(a, "'")
			}
			root := rootCommand()
			found, rest, err := root.Find(args)
			if err != nil {
				t.Errorf("%s: example %q: %v", cmd.CommandPath(), line, err)
				continue
			}
			if err := found.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", cmd.CommandPath(), line, err)
			}
		}
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(rootCommand())
	out, _, _ := runCLI(t, t.Context(), "send", "produce", "--help")
	if !strings.Contains(out, "Examples:\n  mqprobe send produce --qmgr QM1") {
		t.Errorf("send produce --help shows no examples:\n%s", out)
	}
}
