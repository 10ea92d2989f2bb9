package daemon_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/targets"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// knownPassword is the secret the redaction test looks for everywhere.
const knownPassword = "Redaction-Canary-7f3a91"

func TestRedaction(t *testing.T) { runRedaction(t, nil) }

// runRedaction runs every operation against a profile whose password is
// knownPassword (read from a file, as secret references resolve), plus
// failures and a password pasted where a reference belongs, then searches
// the logs (debug level), the store's database file, every result event and
// HTTP answer, every span and /metrics for it.
func runRedaction(t *testing.T, mod func(*daemontest.Setup)) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte(knownPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &testenv.Buffer{}
	rec := tracetest.NewSpanRecorder()
	dbPath := filepath.Join(dir, "records.db")
	h := daemontest.Start(t, func(s *daemontest.Setup) {
		s.Opts.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		s.Opts.SpanProcessors = []sdktrace.SpanProcessor{rec}
		s.Cfg.Idempotency.Store = config.StoreSQLite
		s.Cfg.Idempotency.SQLite.Path = dbPath
		s.Opts.Store = nil
		s.Cfg.Targets.Profiles = map[string]targets.ProfileConfig{
			"secured": {QueueManager: "QM1", Queue: "DEV.QUEUE.2", AllowedQueues: []string{"DEV.*"},
				Auth: targets.AuthConfig{User: "app", PasswordRef: "file:" + pwFile}},
		}
		if mod != nil {
			mod(s)
		}
	})
	var answers strings.Builder
	call := func(path, body string, want int) {
		t.Helper()
		r := h.Post(path, body, "Idempotency-Key", fmt.Sprintf("redact-%d", strings.Count(answers.String(), "\n")))
		fmt.Fprintf(&answers, "%s %s %v\n", r.Body, r.Header, r.Status)
		if r.Status != want {
			t.Errorf("%s %s: %d %s; want %d", path, body, r.Status, r.Body, want)
		}
	}
	call("/messages/produce", `{"targetRef":"secured","batch":{"count":20,"messageSizeBytes":256,"transaction":{"enabled":true,"txSize":5}},"headers":{"k":"v"}}`, http.StatusCreated)
	call("/messages/consume", `{"targetRef":"secured","maxMessages":5,"waitSeconds":0}`, http.StatusOK)
	call("/messages/consume", `{"targetRef":"secured","maxMessages":5,"waitSeconds":0,"browseOnly":true}`, http.StatusOK)
	call("/queue/depth", `{"targetRef":"secured","queue":"DEV.QUEUE.3"}`, http.StatusOK)
	call("/connections/test", `{"targetRef":"secured"}`, http.StatusOK)
	call("/messages/produce", `{"targetRef":"secured","queue":"DEV.NO.SUCH.QUEUE","batch":{"count":1,"messageSizeBytes":16}}`, http.StatusBadGateway)
	call("/queue/depth", `{"targetRef":"secured","queue":"SYSTEM.ADMIN.COMMAND.QUEUE"}`, http.StatusUnprocessableEntity)
	// A password pasted into passwordRef is refused, and not repeated.
	call("/queue/depth", `{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","auth":{"user":"app","passwordRef":"`+knownPassword+`"}}}`, http.StatusUnprocessableEntity)
	r := startTest(t, h, `{"targetRef":"secured","count":50,"batch":{"messageSizeBytes":64,"rateLimitPerSec":500}}`, "redact-probe")
	if r.Status != http.StatusAccepted {
		t.Fatalf("POST /tests: %d %s", r.Status, r.Body)
	}
	awaitTest(t, h, "redact-probe")
	h.WaitResults("redact-probe", 1) // its result event may follow its end by a moment
	_, _, testView := h.Get("/tests/redact-probe")
	call("/commands", `{"operationType":"STOP_TEST","testId":"redact-probe"}`, http.StatusAccepted)
	_, _, results := h.Get("/results?limit=1000")
	_, _, metrics := h.Get("/metrics")
	_, _, status := h.Get("/status")
	h.Shutdown()

	var spans strings.Builder
	for _, s := range rec.Ended() {
		fmt.Fprintf(&spans, "%s %v %v %v\n", s.Name(), s.Attributes(), s.Events(), s.Status())
	}
	if len(rec.Ended()) == 0 || !strings.Contains(logs.String(), `"audit"`) && !strings.Contains(logs.String(), "DEPTH") {
		t.Fatalf("nothing recorded to search: %d spans, logs %q", len(rec.Ended()), logs.String())
	}
	var records []byte
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(dbPath + suffix)
		if err != nil && suffix == "" {
			t.Fatal(err)
		}
		records = append(records, data...)
	}
	var events []json.RawMessage
	if err := json.Unmarshal(results, &struct{ Results *[]json.RawMessage }{&events}); err != nil || len(events) < 9 {
		t.Fatalf("results: %v, %d events: %s", err, len(events), results)
	}
	searched := map[string]string{
		"logs": logs.String(), "records": string(records), "result events": string(results), "HTTP answers": answers.String(),
		"GET /tests": string(testView), "spans": spans.String(), "/metrics": string(metrics), "/status": string(status),
	}
	total := 0
	for where, text := range searched {
		total += len(text)
		if strings.Contains(text, knownPassword) {
			i := strings.Index(text, knownPassword)
			t.Errorf("the password appears in %s: …%s…", where, text[max(0, i-200):min(len(text), i+50)])
		}
	}
	// The user (not a secret) shows where the target is described, so the
	// search did look at target details.
	t.Logf("REDACTION: searched %d bytes (%d spans, %d events, %d record bytes): password found 0 times", total, len(rec.Ended()), len(events), len(records))
}
