package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
	kind "github.com/mqprobe/mqprobe/internal/outcome"
	"github.com/mqprobe/mqprobe/internal/result"
	"github.com/mqprobe/mqprobe/internal/testenv"
)

// httpProduce is a PRODUCE of 3 messages to DEV.QUEUE.1 as the HTTP API
// hands it over, with key as its Idempotency-Key header ("" for none).
func httpProduce(key string) command.Input {
	return command.Input{Body: []byte(`{"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"batch":{"count":3,"messageSizeBytes":16}}`),
		Transport: command.TransportHTTP, Operation: command.Produce, IdempotencyKey: key}
}

// TestReplayAnswersTheFirstBodySayingReplay: a replay's body is the first
// answer byte for byte except that its replay field says true, in both
// replay modes, and its event says so too.
func TestReplayAnswersTheFirstBodySayingReplay(t *testing.T) {
	for _, mode := range []executor.ReplayMode{executor.ReplayRepublish, executor.ReplayDrop} {
		t.Run(string(mode), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, newDecoder(t), mode)
				first := f.exec.Execute(context.Background(), httpProduce(key))
				if first.Kind != kind.Completed || !bytes.Contains(first.Body, []byte(`"replay":false`)) {
					t.Fatalf("first execution: %+v %s", first, first.Body)
				}
				again := f.exec.Execute(context.Background(), httpProduce(key))
				want := bytes.Replace(first.Body, []byte(`"replay":false`), []byte(`"replay":true`), 1)
				if again.Kind != kind.Replayed || !bytes.Equal(again.Body, want) {
					t.Errorf("replay answered\n\t%s\nwant the first answer with replay true\n\t%s", again.Body, want)
				}
				if again.Event == nil || !again.Event.Data.Replay {
					t.Errorf("replay event %+v, want data.replay true", again.Event)
				}
			})
		})
	}
}

// TestGeneratedKeyIsMarked: a command that gave no key says so in its
// result data (the reply body and the event) and its audit line; one that
// gave a key says nothing of the kind.
func TestGeneratedKeyIsMarked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		var lines auditLines
		f.exec.Log = slog.New(slog.NewJSONHandler(&lines, nil))
		generated := f.exec.Execute(context.Background(), httpProduce(""))
		if generated.Kind != kind.Completed || !generated.Event.Data.KeyGenerated ||
			!bytes.Contains(generated.Body, []byte(`"keyGenerated":true`)) {
			t.Errorf("without a key: %+v %s, want keyGenerated true in the event and the body", generated.Event, generated.Body)
		}
		given := f.exec.Execute(context.Background(), httpProduce(key))
		if given.Event.Data.KeyGenerated || bytes.Contains(given.Body, []byte(`keyGenerated`)) {
			t.Errorf("with a key: %s, want no keyGenerated", given.Body)
		}
		audit := lines.all(t)
		if len(audit) != 2 || audit[0]["key_generated"] != true || audit[0]["key"] != generated.Key {
			t.Errorf("audit lines %v: want the first marked key_generated, naming its key %s", audit, generated.Key)
		}
		if len(audit) == 2 && audit[1]["key_generated"] != nil {
			t.Errorf("audit line of a given key %v: want no key_generated", audit[1])
		}
	})
}

// TestKeyReusedSaysWhatToDo: a key reused for another request is refused
// with a message naming a new key and the record to evict as the ways out.
func TestKeyReusedSaysWhatToDo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		f.completed(produce(3))
		_, ev := f.rejected(produce(4))
		msg := ev.Data.Error.Message
		for _, want := range []string{"new key", "DELETE /idempotency/PRODUCE/" + key, "mqprobe store evict PRODUCE " + key} {
			if ev.Data.Error.Code != result.CodeKeyReused || !strings.Contains(msg, want) {
				t.Errorf("key reuse: %s %q, want %s naming %q", ev.Data.Error.Code, msg, result.CodeKeyReused, want)
			}
		}
	})
}

// auditLines collects JSON log lines.
type auditLines struct{ buf testenv.Buffer }

func (l *auditLines) Write(p []byte) (int, error) { return l.buf.Write(p) }

func (l *auditLines) all(t *testing.T) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		if m["msg"] == "command" {
			lines = append(lines, m)
		}
	}
	return lines
}
