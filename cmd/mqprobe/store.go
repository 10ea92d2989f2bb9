package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/isoduration"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// recordsExitCodes is the help text shared by the record commands.
const recordsExitCodes = `
The commands open the configured store directly (idempotency.store sqlite,
postgres or dynamodb), so they work with no daemon running. --tenant names a
tenant of http.tokens; "default" is the implicit tenant.

Exit status: 0 done; 1 no such record (get, evict) or the store failed;
2 bad usage or configuration; 4 eviction refused: the record's holder is
still working, a retry would resume from its checkpoint (--force evicts
anyway), or the record changed meanwhile: look again later.`

func storeCommand() *cobra.Command {
	store := &cobra.Command{Use: "store", Short: "Manage the idempotency store"}
	store.AddCommand(&cobra.Command{
		Use:   "init",
		Short: "Create the configured store's schema or table, idempotently",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			desc, err := daemon.InitStore(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), desc)
			return nil
		},
	}, storeGetCommand(), storeListCommand(), storeEvictCommand())
	return store
}

// openRecords loads the configuration and opens an engine over its store
// whose audit lines go to the command's standard error.
func openRecords(cmd *cobra.Command) (*idempotency.Engine, func() error, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return nil, nil, err
	}
	return daemon.OpenRecords(cmd.Context(), cfg, auditLogger(cfg, cmd.ErrOrStderr()))
}

func auditLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	if cfg.Log.Format == "text" {
		return slog.New(slog.NewTextHandler(w, nil))
	}
	return slog.New(slog.NewJSONHandler(w, nil))
}

// tenantFlag reads --tenant: "" or "default" is the implicit tenant.
func tenantFlag(cmd *cobra.Command) string {
	name, _ := cmd.Flags().GetString("tenant")
	if name == tenant.Implicit {
		return ""
	}
	return name
}

// recordError gives a failed record operation of cmd its exit status.
func recordError(cmd *cobra.Command, err error) error {
	switch {
	case errors.Is(err, idempotency.ErrInvalidArgument):
		return usageErrorf(cmd, "%w", err)
	case errors.Is(err, idempotency.ErrNoRecord):
		return &exitError{code: exitFailed, err: err}
	case errors.Is(err, idempotency.ErrLeaseAlive):
		return &exitError{code: exitNotDecided, err: fmt.Errorf("%w: its holder may still be working; "+
			"retry after the lease ends, or add --force to evict it anyway", err)}
	case errors.Is(err, idempotency.ErrResumable):
		return &exitError{code: exitNotDecided, err: fmt.Errorf("%w: send the command again with the same key to resume it, "+
			"or add --force to evict it anyway", err)}
	case errors.Is(err, idempotency.ErrRecordChanged):
		return &exitError{code: exitNotDecided, err: err}
	}
	return err
}

// recordOperation reads an operation type argument or flag (any case).
func recordOperation(cmd *cobra.Command, what, value string) (string, error) {
	op := strings.ToUpper(value)
	if !slices.Contains(operationTypes, op) {
		return "", usageErrorf(cmd, "%s %q: must be one of %s", what, value, strings.Join(operationTypes, ", "))
	}
	return op, nil
}

// printRecord writes rec as the API shows it: indented JSON, or one line
// (JSON Lines).
func printRecord(w io.Writer, rec idempotency.Record, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(httpapi.RecordView(rec)); err != nil {
		return fmt.Errorf("encoding record %s: %w", rec.IdempotencyKey, err)
	}
	text := buf.String()
	if indent {
		text = indentJSON(buf.Bytes()) + "\n"
	}
	_, err := io.WriteString(w, text)
	return err
}

func storeGetCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get <operationType> <key>",
		Short: "Print one idempotency record as JSON (never its lease token)",
		Long: `Print the record of an operation type (PRODUCE, CONSUME, DEPTH,
CONNECTION_TEST, TEST) and idempotency key as one JSON object: status,
attempt, times, lease expiry, checkpoint, target, trace id, error, and the
recorded response of a COMPLETED command.` + "\n" + recordsExitCodes,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			op, err := recordOperation(cmd, "operationType", args[0])
			if err != nil {
				return err
			}
			key := args[1]
			engine, closeStore, err := openRecords(cmd)
			if err != nil {
				return err
			}
			defer closeStore() //nolint:errcheck // read-only use
			rec, ok, err := engine.Inspect(cmd.Context(), op, tenantFlag(cmd), key)
			if err != nil {
				return recordError(cmd, err)
			}
			if !ok {
				return &exitError{code: exitFailed, err: fmt.Errorf("no record of %s key %s", op, key)}
			}
			return printRecord(cmd.OutOrStdout(), rec, true)
		},
	}
	cmd.Flags().String("tenant", "", `the record's tenant ("default": the implicit tenant)`)
	return cmd
}

func storeListCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Print unexpired idempotency records: a table on a terminal, JSON Lines otherwise",
		Long: `Print the unexpired records that match the filters, newest first, at most
--limit of them; when more match, a note on standard error says so. On a terminal (or
with --output table) a table, one record a line; otherwise (or with
--output json) one JSON object per line (JSON Lines: jq -c, grep and wc -l
work on it). Without --tenant
every tenant's records are listed.

Finding commands whose holder died (no heartbeat for ten minutes):

  mqprobe store list --status IN_PROGRESS --older-than 10m

The commands against a queue this morning:

  mqprobe store list --target QM1:DEV.QUEUE.1 --since 2026-11-27T06:00:00Z

On DynamoDB a listing by --target with a queue, or of one --tenant, reads
only its matches from an index; every tenant's records without a queue are
a table scan (read capacity grows with the table, not with the matches),
and a note on standard error says so.` + "\n" + recordsExitCodes,
		Args: cobra.NoArgs,
		RunE: runStoreList,
	}
	cmd.Flags().String("status", "", "only records in this state: IN_PROGRESS, COMPLETED or FAILED")
	cmd.Flags().String("operation", "", "only records of this operation type (PRODUCE, DEPTH, ...)")
	cmd.Flags().String("target", "", "only the commands against this queue manager (QM1) or queue (QM1:DEV.QUEUE.1)")
	cmd.Flags().String("since", "", "only records updated at or after this instant (RFC 3339) or this long ago (1h, PT1H)")
	cmd.Flags().String("until", "", "only records updated before this instant (RFC 3339) or this long ago (1h, PT1H)")
	cmd.Flags().String("older-than", "", "only records not updated for this long (10m, 1h30m, or ISO 8601 PT10M)")
	cmd.Flags().Int("limit", idempotency.DefaultListLimit, "the most records to print")
	cmd.Flags().StringP("output", "o", outputAuto, "auto (a table on a terminal, JSON Lines otherwise), json (JSON Lines) or table")
	cmd.Flags().String("tenant", "", `only this tenant's records ("default": the implicit tenant); all tenants when absent`)
	return cmd
}

func runStoreList(cmd *cobra.Command, _ []string) error {
	flags := cmd.Flags()
	status, _ := flags.GetString("status")
	op, _ := flags.GetString("operation")
	limit, _ := flags.GetInt("limit")
	if limit < 1 {
		return usageErrorf(cmd, "--limit must be at least 1 (got %d)", limit)
	}
	format, _ := flags.GetString("output")
	if format != outputAuto && format != outputJSON && format != outputTable {
		return usageErrorf(cmd, "--output %q: must be auto, json or table", format)
	}
	out := cmd.OutOrStdout()
	var table *tabwriter.Writer
	if format == outputTable || (format == outputAuto && isTerminal(out)) {
		table = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(table, "OPERATION\tTENANT\tKEY\tSTATUS\tATTEMPT\tTARGET\tUPDATED\tEXPIRES")
		defer table.Flush()
	}
	if op != "" {
		var err error
		if op, err = recordOperation(cmd, "--operation", op); err != nil {
			return err
		}
	}
	if statuses := []string{"IN_PROGRESS", "COMPLETED", "FAILED"}; status != "" && !slices.Contains(statuses, strings.ToUpper(status)) {
		return usageErrorf(cmd, "--status %q: must be one of %s", status, strings.Join(statuses, ", "))
	}
	target, _ := flags.GetString("target")
	q := idempotency.RecordQuery{Status: idempotency.Status(strings.ToUpper(status)), OperationType: op, Target: target,
		Tenant: tenantFlag(cmd), AllTenants: !flags.Changed("tenant")}
	for _, bound := range []struct {
		flag string
		at   *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		if s, _ := flags.GetString(bound.flag); s != "" {
			t, err := parseInstant(s, time.Now())
			if err != nil {
				return usageErrorf(cmd, "--%s: %w", bound.flag, err)
			}
			*bound.at = t
		}
	}
	if s, _ := flags.GetString("older-than"); s != "" {
		d, err := parseAge(s)
		if err != nil {
			return usageErrorf(cmd, "--older-than: %w", err)
		}
		q.OlderThan = d
	}
	engine, closeStore, err := openRecords(cmd)
	if err != nil {
		return err
	}
	defer closeStore() //nolint:errcheck // read-only use
	printed, scanNoted := 0, false
	for {
		q.Limit = min(limit-printed, idempotency.MaxListLimit)
		page, err := engine.List(cmd.Context(), q)
		if err != nil {
			return recordError(cmd, err)
		}
		for _, rec := range page.Records {
			if table != nil {
				writeRecordRow(table, rec)
				continue
			}
			if err := printRecord(out, rec, false); err != nil {
				return err
			}
		}
		if page.Scan && !scanNoted {
			scanNoted = true
			fmt.Fprintln(cmd.ErrOrStderr(), "mqprobe: no index serves these filters: the listing scans the table, in its own order "+
				"(name a queue with --target, or a --tenant, to read an index)")
		}
		printed += len(page.Records)
		if page.Cursor == "" {
			return nil
		}
		if printed >= limit {
			fmt.Fprintf(cmd.ErrOrStderr(), "mqprobe: more records may match: printed the first %d (raise --limit)\n", printed)
			return nil
		}
		q.Cursor = page.Cursor
	}
}

// writeRecordRow is rec as a line of store list's table.
func writeRecordRow(w io.Writer, rec idempotency.Record) {
	orDash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", rec.OperationType, orDash(rec.Tenant), rec.IdempotencyKey, rec.Status,
		rec.Attempt, orDash(rec.Target), rec.UpdatedAt.UTC().Format(time.DateTime), rec.ExpiresAt.UTC().Format(time.DateTime))
}

// parseInstant reads an RFC 3339 instant, or a duration (parseAge) before
// now.
func parseInstant(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	d, err := parseAge(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be an RFC 3339 instant like 2026-11-27T09:00:00Z or a duration ago like 1h or PT1H (got %q)", s)
	}
	return now.Add(-d), nil
}

// parseAge reads a Go duration (10m) or an ISO 8601 one (PT10M).
func parseAge(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("must not be negative (got %s)", s)
		}
		return d, nil
	}
	d, err := isoduration.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("must be a duration like 10m or PT10M (got %q)", s)
	}
	return d, nil
}

func storeEvictCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "evict <operationType> <key>",
		Short: "Delete an idempotency record so the next command with its key executes afresh",
		Long: `Delete the record of an operation type and key, and print it as JSON. An
audit line on standard error says who evicted what.

An IN_PROGRESS record whose lease is alive is refused (exit 4: not now,
look again later): its holder is still working, and once the record is gone
the next copy of the command claims it afresh and runs a second time
alongside. A FAILED record, or an IN_PROGRESS one whose lease ran out, that
holds a checkpoint is refused too: the next copy of the command resumes from
it, and once it is gone starts over, putting or getting those messages again.
--force evicts either anyway: use it when you know the holder is gone (its
process killed, its host lost) and cannot wait for the lease to run out, or
when the command must start over.` + "\n" + recordsExitCodes,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			op, err := recordOperation(cmd, "operationType", args[0])
			if err != nil {
				return err
			}
			engine, closeStore, err := openRecords(cmd)
			if err != nil {
				return err
			}
			defer closeStore() //nolint:errcheck // the delete is already done or refused
			force, _ := cmd.Flags().GetBool("force")
			rec, err := engine.Evict(cmd.Context(), idempotency.EvictRequest{OperationType: op,
				Tenant: tenantFlag(cmd), IdempotencyKey: args[1], Force: force, By: "cli user=" + userName()})
			if err != nil {
				return recordError(cmd, err)
			}
			return printRecord(cmd.OutOrStdout(), rec, true)
		},
	}
	cmd.Flags().String("tenant", "", `the record's tenant ("default": the implicit tenant)`)
	cmd.Flags().Bool("force", false, "evict even an IN_PROGRESS record whose lease is alive, or one a retry would resume from")
	return cmd
}

// userName names who runs the CLI, for the audit line.
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
