package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/apidoc"
)

func TestConfigurationDocumentIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", ReferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReferenceDocument()
	if err != nil {
		t.Fatal(err)
	}
	if err := apidoc.Stale(ReferenceFile, got, []byte(want)); err != nil {
		t.Fatal(err)
	}
}

func TestEveryKeyIsDescribed(t *testing.T) {
	if err := checkDescribed(Keys()); err != nil {
		t.Fatal(err)
	}
	err := checkDescribed([]Key{{Key: "http.addr", Desc: "Listen address"}, {Key: "http.newKey"}, {Key: "log.level", Desc: " "}})
	if err == nil || !strings.Contains(err.Error(), "http.newKey: field has no desc tag") ||
		!strings.Contains(err.Error(), "log.level: field has no desc tag") || strings.Contains(err.Error(), "http.addr") {
		t.Errorf("checkDescribed = %v, want http.newKey and log.level named", err)
	}
}

// referenceRows parses Reference's table into key → cells (variable, type,
// embedded default, aws default, description).
func referenceRows(t *testing.T) map[string][]string {
	t.Helper()
	ref, err := Reference()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for line := range strings.SplitSeq(ref, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		if _, dup := rows[cells[0]]; dup {
			t.Errorf("key %s has two rows", cells[0])
		}
		rows[cells[0]] = cells[1:]
	}
	return rows
}

func TestReferenceListsEveryKeyWithItsModeDefaults(t *testing.T) {
	rows := referenceRows(t)
	for _, k := range Keys() {
		if _, ok := rows[k.Key]; !ok {
			t.Errorf("no row for %s", k.Key)
		}
	}
	for key, want := range map[string][]string{
		"idempotency.store":     {"MQPROBE_IDEMPOTENCY_STORE", "string", "sqlite", "dynamodb"},
		"targets.allowInline":   {"MQPROBE_TARGETS_ALLOWINLINE", "bool", "true", "false"},
		"idempotency.recordTTL": {"MQPROBE_IDEMPOTENCY_RECORDTTL", "duration", "24h", "24h"},
		// Random per process: its default tag, not one process's value.
		"instanceId":                       {"MQPROBE_INSTANCEID", "string", "<hostname>-<6 random hex>", "<hostname>-<6 random hex>"},
		"http.authToken":                   {"MQPROBE_HTTP_AUTHTOKEN", "string", "—", "—"},
		"mq.embedded.queueManagers[].name": {"—", "string", "QM1", "QM1"},
	} {
		got, ok := rows[key]
		if !ok {
			t.Errorf("no row for %s", key)
			continue
		}
		if strings.Join(got[:4], " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: row %q, want %q", key, got[:4], want)
		}
	}
	for _, k := range Keys() {
		if marked := strings.Contains(rows[k.Key][4], "(secret: redacted"); marked != k.Secret {
			t.Errorf("%s: marked secret %v, want %v", k.Key, marked, k.Secret)
		}
	}
}

func TestReferenceDocumentEndsWithTheTable(t *testing.T) {
	doc, err := ReferenceDocument()
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := Reference()
	if !strings.HasPrefix(doc, "<!-- Generated from internal/config by make docs") || !strings.HasSuffix(doc, "\n## Keys\n\n"+ref) {
		t.Errorf("ReferenceDocument does not open with the generated notice and end with the Keys table:\n%s", doc)
	}
}
