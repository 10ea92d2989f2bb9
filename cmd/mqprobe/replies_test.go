package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSendReplaySaysReplay: the JSON output of a replayed command is the
// first output except "replay": true, and the table says (replayed).
func TestSendReplaySaysReplay(t *testing.T) {
	addr := startDaemon(t)
	args := []string{"send", "produce", "--addr", addr, "--queue", "DEV.QUEUE.2", "--count", "2", "--key", "cli-replay-1"}
	first, status := mqprobe(t, append(args, "--output", "json")...)
	if status != 0 || !strings.Contains(first, `"replay": false`) {
		t.Fatalf("first: status %d, output %s", status, first)
	}
	again, _, status := runCLI(t, context.Background(), append(args, "--output", "json")...)
	if want := strings.Replace(first, `"replay": false`, `"replay": true`, 1); status != 0 || again != want {
		t.Errorf("replay: status %d, output\n%s\nwant the first output with replay true\n%s", status, again, want)
	}
	table, _ := mqprobe(t, append(args, "--output", "table")...)
	if head, _, _ := strings.Cut(table, "\n"); !strings.Contains(head, "(replayed)") {
		t.Errorf("replay as a table: %s, want (replayed) in its first line", table)
	}
}

// TestSummaryShowsAGeneratedKey: result data whose key was generated says
// in the table that sending it again runs it again.
func TestSummaryShowsAGeneratedKey(t *testing.T) {
	for data, want := range map[string]bool{
		`{"operationType":"DEPTH","idempotencyKey":"0b6e","status":"COMPLETED","replay":false,"keyGenerated":true,"durationMs":1,"result":null,"error":null,"tags":{}}`: true,
		`{"operationType":"DEPTH","idempotencyKey":"k","status":"COMPLETED","replay":false,"durationMs":1,"result":null,"error":null,"tags":{}}`:                        false,
	} {
		var buf bytes.Buffer
		if !writeSummaryOf(&buf, []byte(data), summaryStyle{}) {
			t.Fatalf("no summary of %s", data)
		}
		if got := strings.Contains(buf.String(), "key generated: no idempotency key was given, so sending this again runs it again"); got != want {
			t.Errorf("summary of %s:\n%s\nsays the key was generated: %v, want %v", data, buf.String(), got, want)
		}
	}
}
