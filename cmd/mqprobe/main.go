// Command mqprobe executes commands against IBM MQ exactly once: run the
// daemon, send it commands, prepare its idempotency store.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agext/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses of every mqprobe command.
const (
	exitCompleted  = 0
	exitFailed     = 1 // the MQ work failed, or the daemon could not be reached
	exitUsage      = 2 // bad command line or configuration
	exitRejected   = 3 // invalid command, key reused, target not allowed
	exitNotDecided = 4 // in progress elsewhere or nothing executed: retry later
)

// exitError carries a process exit status. An empty message means the
// outcome has been printed already.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func (e *exitError) Unwrap() error { return e.err }

// usageError is a command line mqprobe cannot run: exit 2, and a hint
// naming the help of the command that was meant.
type usageError struct {
	commandPath string // e.g. "mqprobe send produce"
	err         error
}

func (e *usageError) Error() string { return e.err.Error() }

func (e *usageError) Unwrap() error { return e.err }

// usageErrorf is a usageError of cmd.
func usageErrorf(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{commandPath: cmd.CommandPath(), err: fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs the command line args and returns its exit status; errors
// go to stderr, a usage error with a hint to the command's help.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	code := report(err, stderr)
	if code != exitCompleted && cmd != nil && cmd.CommandPath() == "mqprobe health" {
		// Docker's HEALTHCHECK reserves 2: anything not healthy is 1.
		code = exitFailed
	}
	return code
}

// report writes err to stderr and returns its exit status.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return exitCompleted
	}
	var usage *usageError
	if errors.As(err, &usage) {
		fmt.Fprintln(stderr, "mqprobe:", usage.err)
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", usage.commandPath)
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, "mqprobe:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "mqprobe:", err)
	return exitFailed
}

func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "mqprobe",
		Short: "Execute commands against IBM MQ exactly once",
		Long: `Execute commands against IBM MQ exactly once.

Exit status: 0 success (COMPLETED), 1 FAILED or the daemon unreachable,
2 usage or configuration error, 3 REJECTED, 4 not decided: retry later.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("config", "", "YAML configuration file (default: $MQPROBE_CONFIG, else the built-in embedded configuration)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{commandPath: cmd.CommandPath(), err: withFlagSuggestion(cmd, err)}
	})
	root.AddCommand(runCommand(), sendCommand(), storeCommand(), configCommand(), versionCommand(), healthCommand(), doctorCommand())
	// Cobra adds its completion command only when it executes: add it now
	// so it groups its shells like the others.
	root.InitDefaultCompletionCmd()
	requireSubcommands(root)
	addExamples(root)
	return root
}

// requireSubcommands makes every command that only groups others (root,
// send, store, config, completion) refuse to run alone or with an unknown subcommand:
// cobra would print the help and exit 0, hiding the typo.
func requireSubcommands(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		requireSubcommands(c)
	}
	if cmd.Runnable() || !cmd.HasSubCommands() {
		cmd.Args = argsAsUsage(cmd.Args)
		return
	}
	cmd.Args = cobra.ArbitraryArgs
	cmd.SuggestionsMinimumDistance = 2
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf(cmd, "%s needs a subcommand: %s", cmd.CommandPath(), subcommandNames(cmd))
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if suggestions := cmd.SuggestionsFor(args[0]); len(suggestions) > 0 {
			msg += "; did you mean " + strings.Join(suggestions, " or ") + "?"
		}
		return usageErrorf(cmd, "%s", msg)
	}
}

func subcommandNames(cmd *cobra.Command) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return strings.Join(names, ", ")
}

// withFlagSuggestion adds "did you mean --count?" to pflag's "unknown
// flag: --cout" when cmd has flags spelt alike; cobra suggests subcommands
// only.
func withFlagSuggestion(cmd *cobra.Command, err error) error {
	typed, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	typed, _, _ = strings.Cut(typed, "=")
	var suggestions []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		// The distance cobra uses for subcommands, or a prefix: --dur for --duration.
		if levenshtein.Distance(strings.ToLower(typed), f.Name, nil) <= 2 ||
			(len(typed) >= 3 && strings.HasPrefix(f.Name, typed)) {
			suggestions = append(suggestions, "--"+f.Name)
		}
	})
	if len(suggestions) == 0 {
		return err
	}
	return fmt.Errorf("%w; did you mean %s?", err, strings.Join(suggestions, " or "))
}

// argsAsUsage makes a command's argument check fail as a usage error;
// without a check, the command takes no arguments.
func argsAsUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		check = cobra.NoArgs
	}
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &usageError{commandPath: cmd.CommandPath(), err: err}
		}
		return nil
	}
}
