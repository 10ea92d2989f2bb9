package command

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Minimal valid bodies, one per operation, as sent on the bus.
const (
	minimalProduce        = `{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":10}}`
	minimalConsume        = `{"operationType":"CONSUME","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`
	minimalDepth          = `{"operationType":"DEPTH","targetRef":"dev-qm1"}`
	minimalConnectionTest = `{"operationType":"CONNECTION_TEST","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1","channel":"DEV.APP.SVRCONN","connName":"mq1(1414),mq2(1414)"}}`
	minimalTest           = `{"operationType":"TEST","targetRef":"dev-qm1","durationSeconds":30}`
	minimalStopTest       = `{"operationType":"STOP_TEST","testId":"t-123"}`
	minimalRedrive        = `{"operationType":"REDRIVE","target":{"queueManager":"QM1","queue":"DEV.DEAD.LETTER.QUEUE"},"filter":{"reasons":["MQRC_Q_FULL",2085]}}`
)

func newDecoder(t testing.TB, cfg DecoderConfig) *Decoder {
	t.Helper()
	d, err := NewDecoder(cfg)
	if err != nil {
		t.Fatalf("NewDecoder: %v", err)
	}
	return d
}

func bus(body string) Input {
	return Input{Body: []byte(body), Transport: TransportBus, MessageID: "sqs-msg-1"}
}

func httpIn(op Operation, body string) Input {
	return Input{Body: []byte(body), Transport: TransportHTTP, Operation: op}
}

func mustDecode(t *testing.T, d *Decoder, in Input) Decoded {
	t.Helper()
	got, err := d.Decode(in)
	if err != nil {
		t.Fatalf("Decode(%s): %v", in.Body, err)
	}
	return got
}

func mustReject(t *testing.T, d *Decoder, in Input) *ValidationError {
	t.Helper()
	_, err := d.Decode(in)
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Decode(%.200s) = %v, want a *ValidationError", in.Body, err)
	}
	return verr
}

// hasProblem reports whether verr names path with rule.
func hasProblem(verr *ValidationError, path, rule string) bool {
	for _, p := range verr.Problems {
		if p.Path == path && p.Rule == rule {
			return true
		}
	}
	return false
}

// edit sets (or, with value == deleteField, removes) the field at a
// slash-separated path of a JSON object.
type edit struct {
	path  string
	value any
}

var deleteField = &struct{}{}

func mutate(t testing.TB, base string, edits ...edit) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(base), &doc); err != nil {
		t.Fatalf("mutate: %v", err)
	}
	for _, e := range edits {
		parts := strings.Split(strings.TrimPrefix(e.path, "/"), "/")
		obj := doc
		for _, p := range parts[:len(parts)-1] {
			next, ok := obj[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				obj[p] = next
			}
			obj = next
		}
		last := parts[len(parts)-1]
		if e.value == deleteField {
			delete(obj, last)
		} else {
			obj[last] = e.value
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("mutate: %v", err)
	}
	return string(out)
}
