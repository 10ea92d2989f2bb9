package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/idempotency"
	"github.com/mqprobe/mqprobe/internal/idempotency/sqlstore"
	"github.com/mqprobe/mqprobe/internal/idempotency/storetest"
)

// seedSQLite writes records into a SQLite store at path, as a daemon would,
// and points the CLI's configuration at it: stuck (IN_PROGRESS, untouched
// for an hour, lease run out), running (IN_PROGRESS, live lease), done
// (COMPLETED) of the implicit tenant, and team-a's done.
func seedSQLite(t *testing.T) map[string]idempotency.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mqprobe.db")
	t.Setenv("MQPROBE_IDEMPOTENCY_STORE", "sqlite")
	t.Setenv("MQPROBE_IDEMPOTENCY_SQLITE_PATH", path)
	ctx := context.Background()
	store, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	clock := storetest.NewClock(time.Now().Add(-time.Hour))
	engine, err := idempotency.New(store, idempotency.Config{Lease: time.Minute, Clock: clock}, nil)
	if err != nil {
		t.Fatal(err)
	}
	begin := func(op, tenant, key string) idempotency.Result {
		t.Helper()
		target := map[string]string{"PRODUCE": "QM1:DEV.QUEUE.1", "DEPTH": "QM2:DEV.QUEUE.9"}[op]
		res, err := engine.Begin(ctx, idempotency.Request{OperationType: op, Tenant: tenant, IdempotencyKey: key, RequestHash: "h-" + key,
			Target: target})
		if err != nil || res.Outcome != idempotency.Acquired {
			t.Fatalf("Begin(%s): %v %v", key, res.Outcome, err)
		}
		return res
	}
	records := map[string]idempotency.Record{"stuck": begin("PRODUCE", "", "stuck").Record}
	clock.Advance(time.Hour)
	records["running"] = begin("PRODUCE", "", "running").Record
	for _, tenant := range []string{"", "team-a"} {
		rec, err := engine.Complete(ctx, begin("DEPTH", tenant, "done").Lease, idempotency.Response{Payload: `{"result":{"currentDepth":7}}`, HTTPStatus: 200})
		if err != nil {
			t.Fatal(err)
		}
		records["done@"+tenant] = rec
	}
	return records
}

// storeCLI runs the CLI in-process and returns stdout, stderr and the exit
// status.
func storeCLI(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return runCLI(t, context.Background(), args...)
}

func TestStoreGet(t *testing.T) {
	records := seedSQLite(t)
	out, _, status := storeCLI(t, "store", "get", "DEPTH", "done")
	if status != 0 {
		t.Fatalf("get: status %d %s", status, out)
	}
	var view map[string]any
	if err := json.Unmarshal([]byte(out), &view); err != nil {
		t.Fatalf("get printed %q: %v", out, err)
	}
	done := records["done@"]
	if view["status"] != "COMPLETED" || view["expiresAt"] != idempotency.FormatTime(done.ExpiresAt) ||
		view["response"].(map[string]any)["result"].(map[string]any)["currentDepth"] != 7.0 || view["tenant"] != nil {
		t.Errorf("get printed %v", view)
	}
	if strings.Contains(out, done.LeaseToken) {
		t.Errorf("get printed the lease token: %s", out)
	}
	if out, _, status := storeCLI(t, "store", "get", "depth", "done", "--tenant", "team-a"); status != 0 || !strings.Contains(out, `"tenant": "team-a"`) {
		t.Errorf("get --tenant team-a: %d %s", status, out)
	}
	// No record is a plain failure (1): 3 and 4 mean REJECTED and not
	// decided everywhere in mqprobe.
	if _, stderr, status := storeCLI(t, "store", "get", "DEPTH", "missing"); status != exitFailed ||
		!strings.Contains(stderr, "no record of DEPTH key missing") {
		t.Errorf("get of a missing record: status %d, stderr %q; want %d and why", status, stderr, exitFailed)
	}
	if _, stderr, status := storeCLI(t, "store", "get", "PRODUCE", "done", "--tenant", "Team_A"); status != exitUsage ||
		!strings.Contains(stderr, "Run 'mqprobe store get --help' for usage.") {
		t.Errorf("bad tenant: status %d, stderr %q; want 2 with the usage hint", status, stderr)
	}
	if _, stderr, status := storeCLI(t, "store", "get", "bogus", "done"); status != exitUsage ||
		!strings.Contains(stderr, `operationType "bogus": must be one of PRODUCE, CONSUME, DEPTH, CONNECTION_TEST, TEST`) ||
		!strings.Contains(stderr, "Run 'mqprobe store get --help' for usage.") {
		t.Errorf("get of an unknown operation type: status %d, stderr %q", status, stderr)
	}
}

// listKeys runs store list with args and returns the "tenant/op/key" of
// each line, sorted.
func listKeys(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, stderr, status := storeCLI(t, append([]string{"store", "list"}, args...)...)
	if status != 0 {
		t.Fatalf("list %v: status %d %s %s", args, status, out, stderr)
	}
	var keys []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var view map[string]any
		if err := json.Unmarshal(sc.Bytes(), &view); err != nil {
			t.Fatalf("list line %q: %v", sc.Text(), err)
		}
		tenant, _ := view["tenant"].(string)
		keys = append(keys, tenant+"/"+view["operationType"].(string)+"/"+view["idempotencyKey"].(string))
	}
	slices.Sort(keys)
	return keys, stderr
}

func TestStoreList(t *testing.T) {
	seedSQLite(t)
	for args, want := range map[string][]string{
		"":                                         {"/DEPTH/done", "/PRODUCE/running", "/PRODUCE/stuck", "team-a/DEPTH/done"},
		"--tenant default":                         {"/DEPTH/done", "/PRODUCE/running", "/PRODUCE/stuck"},
		"--tenant team-a":                          {"team-a/DEPTH/done"},
		"--status in_progress":                     {"/PRODUCE/running", "/PRODUCE/stuck"},
		"--status IN_PROGRESS --older-than 10m":    {"/PRODUCE/stuck"},
		"--status IN_PROGRESS --older-than PT2H":   nil,
		"--operation DEPTH --status COMPLETED":     {"/DEPTH/done", "team-a/DEPTH/done"},
		"--target QM1":                             {"/PRODUCE/running", "/PRODUCE/stuck"},
		"--target QM2:DEV.QUEUE.9 --tenant team-a": {"team-a/DEPTH/done"},
		"--target QM2:DEV.QUEUE.1":                 nil,
		"--since 30m":                              {"/DEPTH/done", "/PRODUCE/running", "team-a/DEPTH/done"},
		"--until PT30M --target QM1":               {"/PRODUCE/stuck"},
	} {
		if got, _ := listKeys(t, strings.Fields(args)...); !slices.Equal(got, want) {
			t.Errorf("list %s: %v, want %v", args, got, want)
		}
	}
	got, stderr := listKeys(t, "--limit", "3")
	if len(got) != 3 || !strings.Contains(stderr, "raise --limit") {
		t.Errorf("list --limit 3: %v, stderr %q; want 3 records and a note that more match", got, stderr)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--status", "DONE"}, `--status "DONE": must be one of IN_PROGRESS, COMPLETED, FAILED`},
		{[]string{"--older-than", "ten minutes"}, `--older-than: must be a duration like 10m or PT10M (got "ten minutes")`},
		{[]string{"--older-than", "xyz"}, `--older-than: must be a duration`},
		{[]string{"--limit", "0"}, "--limit must be at least 1 (got 0)"},
		{[]string{"--since", "last week"}, `--since: must be an RFC 3339 instant like 2026-11-27T09:00:00Z or a duration ago like 1h or PT1H (got "last week")`},
		{[]string{"--target", "QM1:DEV QUEUE"}, `target must be a queue manager (QM1) or a queue manager and a queue`},
		{[]string{"--operation", "bogus"}, `--operation "bogus": must be one of PRODUCE, CONSUME, DEPTH, CONNECTION_TEST, TEST`},
	} {
		out, stderr, status := storeCLI(t, append([]string{"store", "list"}, tc.args...)...)
		if status != exitUsage || out != "" || !strings.Contains(stderr, tc.msg) ||
			!strings.Contains(stderr, "Run 'mqprobe store list --help' for usage.") {
			t.Errorf("list %v: status %d, stdout %q, stderr %q; want 2, %q and the usage hint", tc.args, status, out, stderr, tc.msg)
		}
	}
}

func TestStoreEvict(t *testing.T) {
	seedSQLite(t)
	_, stderr, status := storeCLI(t, "store", "evict", "PRODUCE", "running")
	if status != exitNotDecided || !strings.Contains(stderr, `"outcome":"refused_lease_alive"`) {
		t.Errorf("evicting a live lease: status %d, stderr %s; want %d (not now) and an audit line", status, stderr, exitNotDecided)
	}
	out, stderr, status := storeCLI(t, "store", "evict", "PRODUCE", "stuck")
	if status != 0 || !strings.Contains(out, `"idempotencyKey": "stuck"`) {
		t.Errorf("evicting a stuck record: status %d %s %s", status, out, stderr)
	}
	var audit map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(stderr)), &audit); err != nil {
		t.Fatalf("audit line %q: %v", stderr, err)
	}
	if audit["msg"] != "evict" || audit["outcome"] != "evicted" || audit["forced"] != false || audit["tenant"] != "default" ||
		audit["key"] != "stuck" || !strings.HasPrefix(audit["by"].(string), "cli user=") {
		t.Errorf("audit line %v", audit)
	}
	if _, stderr, status = storeCLI(t, "store", "evict", "PRODUCE", "running", "--force"); status != 0 ||
		!strings.Contains(stderr, `"forced":true`) || !strings.Contains(stderr, `"lease_alive":true`) {
		t.Errorf("forced eviction: status %d, stderr %s", status, stderr)
	}
	if _, _, status = storeCLI(t, "store", "evict", "DEPTH", "done", "--tenant", "team-a"); status != 0 {
		t.Errorf("evicting team-a's record: status %d", status)
	}
	if got, _ := listKeys(t); !slices.Equal(got, []string{"/DEPTH/done"}) {
		t.Errorf("left after evictions: %v, want only the implicit tenant's DEPTH/done", got)
	}
	if _, _, status = storeCLI(t, "store", "evict", "PRODUCE", "stuck"); status != exitFailed {
		t.Errorf("evicting again: status %d, want %d", status, exitFailed)
	}
	if _, stderr, status = storeCLI(t, "store", "evict", "bogus", "stuck"); status != exitUsage || !strings.Contains(stderr, `operationType "bogus"`) {
		t.Errorf("evicting an unknown operation type: status %d, stderr %q", status, stderr)
	}
}

func TestStoreRecordsRefuseTheMemoryStore(t *testing.T) {
	t.Setenv("MQPROBE_IDEMPOTENCY_STORE", "memory")
	if _, stderr, status := storeCLI(t, "store", "list"); status != 1 || !strings.Contains(stderr, "GET /idempotency") {
		t.Errorf("list on the memory store: status %d %s; want 1 pointing at the HTTP API", status, stderr)
	}
}

// TestStoreEvictRefusalsNameForce: an eviction refused for a live lease or
// a resumable checkpoint says that --force evicts anyway.
func TestStoreEvictRefusalsNameForce(t *testing.T) {
	seedSQLite(t)
	ctx := context.Background()
	store, err := sqlstore.OpenSQLite(ctx, os.Getenv("MQPROBE_IDEMPOTENCY_SQLITE_PATH"))
	if err != nil {
		t.Fatal(err)
	}
	engine, err := idempotency.New(store, idempotency.Config{Lease: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Begin(ctx, idempotency.Request{OperationType: "PRODUCE", IdempotencyKey: "half", RequestHash: "h-half"})
	if err == nil {
		err = engine.Checkpoint(ctx, res.Lease, `{"committed":200}`)
	}
	if err == nil {
		_, err = engine.Fail(ctx, res.Lease, "MQRC_Q_FULL", idempotency.Response{})
	}
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	for key, refusal := range map[string]string{"running": "holds its lease", "half": "200 committed messages"} {
		_, stderr, status := storeCLI(t, "store", "evict", "PRODUCE", key)
		if status != exitNotDecided || !strings.Contains(stderr, refusal) || !strings.Contains(stderr, "--force") {
			t.Errorf("evicting %s: status %d, stderr %s; want %d saying %q and naming --force", key, status, stderr, exitNotDecided, refusal)
		}
	}
}

// TestStoreListTable: on a terminal (or with -o table) store list prints a
// table, one record a line; piped it stays JSON Lines.
func TestStoreListTable(t *testing.T) {
	seedSQLite(t)
	screen, stderr, status := runOnPTY(t, "store", "list", "--status", "COMPLETED")
	lines := strings.Split(strings.TrimSpace(screen), "\n")
	if status != 0 || len(lines) != 3 || !regexp.MustCompile(`^OPERATION +TENANT +KEY +STATUS +ATTEMPT +TARGET +UPDATED +EXPIRES$`).MatchString(lines[0]) ||
		// Newest first; the two completed at one instant, by pk descending.
		!regexp.MustCompile(`^DEPTH +team-a +done +COMPLETED +1 `).MatchString(lines[1]) ||
		!regexp.MustCompile(`^DEPTH +- +done +COMPLETED +1 +QM2:DEV.QUEUE.9 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +\d{4}-`).MatchString(lines[2]) {
		t.Errorf("store list on a terminal: exit %d, %s\n%s", status, stderr, screen)
	}
	if out, _, status := storeCLI(t, "store", "list", "-o", "table", "--status", "COMPLETED"); status != 0 || !strings.HasPrefix(out, "OPERATION ") {
		t.Errorf("store list -o table: exit %d\n%s", status, out)
	}
	if out, _, status := storeCLI(t, "store", "list", "--status", "COMPLETED"); status != 0 || !strings.HasPrefix(out, `{"operationType":"DEPTH"`) {
		t.Errorf("store list piped: exit %d\n%s", status, out)
	}
	if _, stderr, status := storeCLI(t, "store", "list", "-o", "yaml"); status != exitUsage || !strings.Contains(stderr, `--output "yaml": must be auto, json or table`) {
		t.Errorf("store list -o yaml: exit %d %s", status, stderr)
	}
}
