package command_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
)

func hashOf(t *testing.T, doc string) string {
	t.Helper()
	h, err := command.RequestHash([]byte(doc))
	if err != nil {
		t.Fatalf("RequestHash(%s): %v", doc, err)
	}
	return h
}

func TestRequestHashIgnoresSpelling(t *testing.T) {
	base := hashOf(t, `{"operationType":"PRODUCE","batch":{"count":1,"messageSizeBytes":2048},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`)
	if len(base) != 64 {
		t.Fatalf("hash %q is not 64 hex digits", base)
	}
	for _, same := range []string{
		`{"target":{"queue":"DEV.QUEUE.1","queueManager":"QM1"},"batch":{"messageSizeBytes":2048,"count":1},"operationType":"PRODUCE"}`,
		"{\n  \"operationType\" : \"PRODUCE\",\n\t\"batch\": {\"count\": 1.0, \"messageSizeBytes\": 2048},\n  \"target\": {\"queueManager\": \"QM1\", \"queue\": \"DEV.QUEUE.1\"}\n}",
		`{"operationType":"PRODUCE","batch":{"count":1e0,"messageSizeBytes":2.048e3},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`,
		`{"operationType":"PROD\u0055CE","batch":{"count":1,"messageSizeBytes":2048},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`,
	} {
		if got := hashOf(t, same); got != base {
			t.Errorf("equal command hashed differently:\n%s", same)
		}
	}
	for _, other := range []string{
		`{"operationType":"PRODUCE","batch":{"count":2,"messageSizeBytes":2048},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`,
		`{"operationType":"PRODUCE","batch":{"count":1,"messageSizeBytes":2048},"target":{"queueManager":"QM2","queue":"DEV.QUEUE.1"}}`,
		`{"operationType":"PRODUCE","batch":{"count":1,"messageSizeBytes":2048},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.2"}}`,
		`{"operationType":"PRODUCE","batch":{"count":"1","messageSizeBytes":2048},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`,
		`{"operationType":"PRODUCE","batch":{"count":1,"messageSizeBytes":2048},"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"tags":{}}`,
	} {
		if got := hashOf(t, other); got == base {
			t.Errorf("different command hashed the same:\n%s", other)
		}
	}
}

func TestRequestHashRejectsInvalidJSON(t *testing.T) {
	for _, bad := range []string{``, `{`, `{"a":1,"a":2}`, `{"a":NaN}`} {
		if _, err := command.RequestHash([]byte(bad)); err == nil {
			t.Errorf("RequestHash(%q) succeeded, want an error", bad)
		}
	}
}

func TestHashCanonicalAgreesWithRequestHash(t *testing.T) {
	doc := `{"b":1.0,"a":{"y":"\u00e9","x":[1e0,2]}}`
	canonical := `{"a":{"x":[1,2],"y":"é"},"b":1}`
	if got, want := command.HashCanonical([]byte(canonical)), hashOf(t, doc); got != want {
		t.Errorf("HashCanonical = %s, RequestHash = %s", got, want)
	}
}
