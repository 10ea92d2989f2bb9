package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/daemonclient"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
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

In aws mode (the configuration's mode; no --addr or other HTTP flag) the
state is read from the idempotency store the daemons share
(idempotency.dynamodb.table), with the AWS_* variables, as the daemon's API
would show it less what only the running instance knows (its live rate).

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
			key := args[1]
			data, found, err := commandState(cmd, opts, operation, key)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if !found {
				if data != nil {
					if err := opts.output.print(out, data); err != nil {
						return err
					}
				}
				return &exitError{code: exitFailed, err: fmt.Errorf("no %s command with key %s (never received, or its record expired)", operation, key)}
			}
			var s daemonclient.CommandState
			if err := json.Unmarshal(data, &s); err != nil || s.Status == "" || !opts.output.table(out) {
				if err := opts.output.printDocument(out, data); err != nil {
					return err
				}
				return exitFor(nil, data)
			}
			writeCommandState(out, s)
			if len(s.Result) > 0 && string(s.Result) != "null" {
				if err := opts.output.print(out, s.Result); err != nil {
					return err
				}
			}
			return exitFor(nil, data)
		},
	}
}

// commandState is operation#key's state document: in aws mode (the
// configuration's mode, no HTTP flag given) read from the idempotency
// store, as the daemons share it; otherwise GET /commands/{OPERATION}/{KEY}
// from the daemon. found is false when neither knows the command (data
// is the daemon's answer, if it gave one); another answer is an error
// carrying its exit status.
func commandState(cmd *cobra.Command, opts *sendOptions, operation, key string) (data []byte, found bool, err error) {
	if !slices.ContainsFunc(clientFlags, cmd.Flags().Changed) {
		cfg, err := loadConfig(cmd)
		if err != nil {
			return nil, false, err
		}
		if cfg.Mode == config.ModeAWS {
			return storedCommandState(cmd, cfg, operation, key)
		}
	}
	dc, err := newDaemonClient(cmd, &opts.client)
	if err != nil {
		return nil, false, err
	}
	resp, data, err := dc.Do(cmd.Context(), http.MethodGet, daemonclient.CommandStatePath(operation, key), nil, nil)
	if err != nil {
		return nil, false, unreachable(dc, err, "try again")
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return data, true, nil
	case http.StatusNotFound:
		return data, false, nil
	}
	if err := opts.output.print(cmd.OutOrStdout(), data); err != nil {
		return nil, false, err
	}
	return nil, false, exitFor(resp, data)
}

// storedCommandState reads operation#key's record (the default tenant's)
// from the store cfg names, as the daemon's API would show it.
func storedCommandState(cmd *cobra.Command, cfg *config.Config, operation, key string) ([]byte, bool, error) {
	if err := idempotency.ValidateKey(key); err != nil {
		return nil, false, &exitError{code: exitRejected, err: fmt.Errorf("KEY %q: %w", key, err)}
	}
	records, closeStore, err := daemon.OpenRecords(cmd.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, false, &exitError{code: exitFailed, err: fmt.Errorf("the idempotency store (aws mode reads the command's record there): %w", err)}
	}
	defer closeStore() //nolint:errcheck // read-only use
	rec, ok, err := records.Inspect(cmd.Context(), operation, "", key)
	if err != nil {
		return nil, false, recordError(cmd, err)
	}
	if !ok {
		return nil, false, nil
	}
	data, err := httpapi.RecordState(command.Operation(operation), rec)
	if err != nil {
		return nil, false, &exitError{code: exitFailed, err: fmt.Errorf("encoding the record: %w", err)}
	}
	return data, true, nil
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
