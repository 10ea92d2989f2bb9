package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/daemonclient"
)

// operationTypes are the operations a record can belong to.
var operationTypes = []string{"PRODUCE", "CONSUME", "DEPTH", "CONNECTION_TEST", "TEST", "REDRIVE"}

// statusCommand is send status; its flags are added by sendCommand.
func statusCommand(opts *sendOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "status OPERATION KEY",
		Short: "Show the state of a command: running (with its progress), or its result",
		Long: `Ask the daemon for one command's state (GET /commands/{OPERATION}/{KEY}):
IN_PROGRESS with its lease and progress, or COMPLETED / FAILED with its
result. OPERATION is PRODUCE, CONSUME, DEPTH, CONNECTION_TEST, TEST or REDRIVE
(any case; produce and connection-test work too).

Exit status: 0 COMPLETED, 1 FAILED or no such command, 2 usage, 3 refused
(invalid key), 4 still IN_PROGRESS.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.output.validate(cmd); err != nil {
				return err
			}
			operation := operationType(args[0])
			if !slices.Contains(operationTypes, operation) {
				return usageErrorf(cmd, "OPERATION %q: must be one of %s", args[0], strings.Join(operationTypes, ", "))
			}
			dc, err := newDaemonClient(cmd, &opts.client)
			if err != nil {
				return err
			}
			resp, data, err := dc.Do(cmd.Context(), http.MethodGet, daemonclient.CommandStatePath(operation, args[1]), nil, nil)
			if err != nil {
				return unreachable(dc, err, "try again")
			}
			out := cmd.OutOrStdout()
			if resp.StatusCode == http.StatusNotFound {
				if err := opts.output.print(out, data); err != nil {
					return err
				}
				return &exitError{code: exitFailed, err: fmt.Errorf("no %s command with key %s (never received, or its record expired)", operation, args[1])}
			}
			if resp.StatusCode != http.StatusOK {
				if err := opts.output.print(out, data); err != nil {
					return err
				}
				return exitFor(resp, data)
			}
			var s daemonclient.CommandState
			if err := json.Unmarshal(data, &s); err != nil || s.Status == "" || !opts.output.table(out) {
				if err := opts.output.printDocument(out, data); err != nil {
					return err
				}
				return exitFor(resp, data)
			}
			writeCommandState(out, s)
			if len(s.Result) > 0 && string(s.Result) != "null" {
				if err := opts.output.print(out, s.Result); err != nil {
					return err
				}
			}
			return exitFor(resp, data)
		},
	}
}

// writeCommandState is the state's header: status, attempt, lease,
// progress.
func writeCommandState(w io.Writer, s daemonclient.CommandState) {
	fmt.Fprintf(w, "%s %s  %s  attempt %d  created %s\n", s.OperationType, s.IdempotencyKey, s.Status, s.Attempt, s.CreatedAt.Format(time.RFC3339))
	if l := s.Lease; l != nil {
		fmt.Fprintf(w, "  running on %s, lease until %s\n", l.Holder, l.ExpiresAt.Format(time.RFC3339))
	}
	if p := s.Progress; p != nil {
		line := fmt.Sprintf("  done %d", p.Done)
		if p.Total > 0 {
			line += fmt.Sprintf("/%d", p.Total)
		}
		line += fmt.Sprintf(", committed %d", p.Committed)
		if p.RatePerSec > 0 {
			line += fmt.Sprintf(", %.1f msg/s", p.RatePerSec)
		}
		fmt.Fprintln(w, line)
	}
}
