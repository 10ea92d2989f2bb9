package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon"
	"github.com/mqprobe/mqprobe/internal/httpapi"
	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/isoduration"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Exit statuses of the record commands besides 0 (done), 1 (failed) and
// 2 (usage or configuration).
const (
	exitNoRecord = 3 // get, evict: no such record (or it expired)
	exitRefused  = 4 // evict: the record's lease is alive, or it changed meanwhile
)

// recordsExitCodes is the help text shared by the record commands.
const recordsExitCodes = `
The commands open the configured store directly (idempotency.store sqlite,
postgres or dynamodb), so they work with no daemon running. --tenant names a
tenant of http.tokens; "default" is the implicit tenant.

Exit status: 0 done; 1 the store failed; 2 bad usage or configuration;
3 no such record (get, evict); 4 eviction refused (evict).`

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

// recordError gives a failed record operation its exit status.
func recordError(err error) error {
	switch {
	case errors.Is(err, idempotency.ErrInvalidArgument):
		return &exitError{code: 2, err: err}
	case errors.Is(err, idempotency.ErrNoRecord):
		return &exitError{code: exitNoRecord, err: err}
	case errors.Is(err, idempotency.ErrLeaseAlive), errors.Is(err, idempotency.ErrResumable), errors.Is(err, idempotency.ErrRecordChanged):
		return &exitError{code: exitRefused, err: err}
	}
	return err
}

func printJSON(w io.Writer, v any, indent bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
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
			engine, closeStore, err := openRecords(cmd)
			if err != nil {
				return err
			}
			defer closeStore() //nolint:errcheck // read-only use
			op, key := strings.ToUpper(args[0]), args[1]
			rec, ok, err := engine.Inspect(cmd.Context(), op, tenantFlag(cmd), key)
			if err != nil {
				return recordError(err)
			}
			if !ok {
				return &exitError{code: exitNoRecord, err: fmt.Errorf("no record of %s key %s", op, key)}
			}
			return printJSON(cmd.OutOrStdout(), httpapi.RecordView(rec), true)
		},
	}
	cmd.Flags().String("tenant", "", `the record's tenant ("default": the implicit tenant)`)
	return cmd
}

func storeListCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Print unexpired idempotency records, one JSON object per line",
		Long: `Print the unexpired records that match the filters, one JSON object per
line (JSON Lines: jq -c, grep and wc -l work on it), at most --limit of
them; when more match, a note on standard error says so. Without --tenant
every tenant's records are listed.

Finding commands whose holder died (no heartbeat for ten minutes):

  mqprobe store list --status IN_PROGRESS --older-than 10m

On DynamoDB a listing scans the table (read capacity grows with the table,
not with the matches).` + "\n" + recordsExitCodes,
		Args: cobra.NoArgs,
		RunE: runStoreList,
	}
	cmd.Flags().String("status", "", "only records in this state: IN_PROGRESS, COMPLETED or FAILED")
	cmd.Flags().String("operation", "", "only records of this operation type (PRODUCE, DEPTH, ...)")
	cmd.Flags().String("older-than", "", "only records not updated for this long (10m, 1h30m, or ISO 8601 PT10M)")
	cmd.Flags().Int("limit", idempotency.DefaultListLimit, "the most records to print")
	cmd.Flags().String("tenant", "", `only this tenant's records ("default": the implicit tenant); all tenants when absent`)
	return cmd
}

func runStoreList(cmd *cobra.Command, _ []string) error {
	flags := cmd.Flags()
	status, _ := flags.GetString("status")
	op, _ := flags.GetString("operation")
	limit, _ := flags.GetInt("limit")
	if limit < 1 {
		return &exitError{code: 2, err: fmt.Errorf("--limit must be at least 1 (got %d)", limit)}
	}
	q := idempotency.RecordQuery{Status: idempotency.Status(strings.ToUpper(status)), OperationType: strings.ToUpper(op),
		Tenant: tenantFlag(cmd), AllTenants: !flags.Changed("tenant")}
	if s, _ := flags.GetString("older-than"); s != "" {
		d, err := parseAge(s)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("--older-than: %w", err)}
		}
		q.OlderThan = d
	}
	engine, closeStore, err := openRecords(cmd)
	if err != nil {
		return err
	}
	defer closeStore() //nolint:errcheck // read-only use
	printed := 0
	for {
		q.Limit = min(limit-printed, idempotency.MaxListLimit)
		page, err := engine.List(cmd.Context(), q)
		if err != nil {
			return recordError(err)
		}
		for _, rec := range page.Records {
			if err := printJSON(cmd.OutOrStdout(), httpapi.RecordView(rec), false); err != nil {
				return err
			}
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

An IN_PROGRESS record whose lease is alive is refused (exit 4): its holder
is still working, and once the record is gone the next copy of the command
claims it afresh and runs a second time alongside. --force evicts it anyway:
use it when you know the holder is gone (its process killed, its host lost)
and cannot wait for the lease to run out.` + "\n" + recordsExitCodes,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			engine, closeStore, err := openRecords(cmd)
			if err != nil {
				return err
			}
			defer closeStore() //nolint:errcheck // the delete is already done or refused
			force, _ := cmd.Flags().GetBool("force")
			rec, err := engine.Evict(cmd.Context(), idempotency.EvictRequest{OperationType: strings.ToUpper(args[0]),
				Tenant: tenantFlag(cmd), IdempotencyKey: args[1], Force: force, By: "cli user=" + userName()})
			if err != nil {
				return recordError(err)
			}
			return printJSON(cmd.OutOrStdout(), httpapi.RecordView(rec), true)
		},
	}
	cmd.Flags().String("tenant", "", `the record's tenant ("default": the implicit tenant)`)
	cmd.Flags().Bool("force", false, "evict even an IN_PROGRESS record whose lease is alive")
	return cmd
}

// userName names who runs the CLI, for the audit line.
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
