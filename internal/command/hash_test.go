package command

import (
	"strings"
	"testing"
)

func TestHashInvariance(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	base := mustDecode(t, d, bus(minimalProduce)).RequestHash
	same := []struct{ name, body string }{
		{"reordered keys", `{"batch":{"count":10},"target":{"queue":"DEV.QUEUE.1","queueManager":"QM1"},"operationType":"PRODUCE"}`},
		{"whitespace", "{\n  \"operationType\" : \"PRODUCE\",\n\t\"target\": {\"queueManager\": \"QM1\", \"queue\": \"DEV.QUEUE.1\"},\r\n \"batch\": {\"count\": 10}\n}\n"},
		{"10.0", strings.Replace(minimalProduce, `"count":10`, `"count":10.0`, 1)},
		{"1e1", strings.Replace(minimalProduce, `"count":10`, `"count":1e1`, 1)},
		{"explicit defaults", `{"operationType":"PRODUCE","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},
			"batch":{"count":10,"messageSizeBytes":1024,"rateLimitPerSec":null,"transaction":{"enabled":true,"txSize":100}},
			"payload":{"mode":"random"},"mqProps":{"persistence":"nonpersistent","priority":0,"expiryMs":0,"correlIdMode":"none"}}`},
		{"partly explicit defaults", mutate(t, minimalProduce, edit{"batch/transaction", map[string]any{"txSize": 100}}, edit{"payload", map[string]any{}})},
		{"escaped string", strings.Replace(minimalProduce, `"QM1"`, `"\u0051M1"`, 1)},
		{"idempotencyKey", mutate(t, minimalProduce, edit{"idempotencyKey", "k-1"})},
		{"another idempotencyKey", mutate(t, minimalProduce, edit{"idempotencyKey", "k-2"})},
		{"expirySeconds", mutate(t, minimalProduce, edit{"expirySeconds", 86400})},
		{"SNS envelope", snsBody(t, minimalProduce, nil)},
		{"EventBridge envelope", eventBridgeBody(minimalProduce)},
	}
	for _, tt := range same {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustDecode(t, d, bus(tt.body)).RequestHash; got != base {
				t.Errorf("hash changed: %s vs %s", got, base)
			}
		})
	}
	// Transport metadata never reaches the hash either.
	in := bus(minimalProduce)
	in.IdempotencyKey, in.ExpirySeconds, in.MessageID = "hdr", "60", "other"
	if got := mustDecode(t, d, in).RequestHash; got != base {
		t.Error("transport metadata changed the hash")
	}
	// Nor does the route supplying operationType over HTTP.
	httpBody := mutate(t, minimalProduce, edit{"operationType", deleteField})
	if got := mustDecode(t, d, httpIn(Produce, httpBody)).RequestHash; got != base {
		t.Error("HTTP route-supplied operationType changed the hash")
	}
}

func TestHashSensitivity(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	base := mustDecode(t, d, bus(minimalProduce)).RequestHash
	changed := []struct{ name, body string }{
		{"count", mutate(t, minimalProduce, edit{"batch/count", 11})},
		{"queue", mutate(t, minimalProduce, edit{"target/queue", "DEV.QUEUE.2"})},
		{"queueManager", mutate(t, minimalProduce, edit{"target/queueManager", "QM2"})},
		{"connName", mutate(t, minimalProduce, edit{"target/connName", "mq(1414)"})},
		{"channel", mutate(t, minimalProduce, edit{"target/channel", "DEV.APP.SVRCONN"})},
		{"targetRef instead of target", mutate(t, minimalProduce, edit{"target", deleteField}, edit{"targetRef", "QM1"})},
		{"non-default value", mutate(t, minimalProduce, edit{"mqProps/priority", 1})},
		{"transaction off", mutate(t, minimalProduce, edit{"batch/transaction/enabled", false})},
		{"tag", mutate(t, minimalProduce, edit{"tags/team", "a"})},
		{"case of queue", mutate(t, minimalProduce, edit{"target/queue", "dev.queue.1"})},
	}
	seen := map[string]string{base: "base"}
	for _, tt := range changed {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDecode(t, d, bus(tt.body)).RequestHash
			if prev, dup := seen[got]; dup {
				t.Errorf("hash equals that of %s", prev)
			}
			seen[got] = tt.name
		})
	}
}
