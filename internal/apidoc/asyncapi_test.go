package apidoc_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/apidoc"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/result"
)

// repoFile reads a file of the repository from this package's directory.
func repoFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// asyncAPIFile is configs/asyncapi.yaml as JSON values.
func asyncAPIFile(t *testing.T) any {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal(repoFile(t, apidoc.AsyncAPIFile), &doc); err != nil {
		t.Fatalf("%s: %v", apidoc.AsyncAPIFile, err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAsyncAPIFileIsCurrent(t *testing.T) {
	want, err := apidoc.AsyncAPIYAML()
	if err != nil {
		t.Fatal(err)
	}
	if err := apidoc.Stale(apidoc.AsyncAPIFile, repoFile(t, apidoc.AsyncAPIFile), want); err != nil {
		t.Fatal(err)
	}
}

// TestAsyncAPIFollowsTheAsyncAPI3Schema validates the file against the
// official AsyncAPI 3.0.0 JSON Schema, and checks that the schema does
// refuse a broken document.
func TestAsyncAPIFollowsTheAsyncAPI3Schema(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	meta, err := jsonschema.UnmarshalJSON(strings.NewReader(string(readTestdata(t, "asyncapi-3.0.0.schema.json"))))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("mem://asyncapi-3.0.0.json", meta); err != nil {
		t.Fatal(err)
	}
	spec, err := c.Compile("mem://asyncapi-3.0.0.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := asyncAPIFile(t)
	if err := spec.Validate(doc); err != nil {
		t.Fatalf("%s does not follow AsyncAPI 3.0.0: %v", apidoc.AsyncAPIFile, err)
	}

	// AsyncAPI 2's verbs are not operation actions in 3.0.
	op := doc.(map[string]any)["operations"].(map[string]any)["receiveCommand"].(map[string]any)
	op["action"] = "subscribe"
	if err := spec.Validate(doc); err == nil {
		t.Error("the AsyncAPI schema accepted an operation with action subscribe")
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAsyncAPIReferencesResolve: every $ref of the file points at
// something in it.
func TestAsyncAPIReferencesResolve(t *testing.T) {
	doc := asyncAPIFile(t)
	count := 0
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				count++
				if _, err := resolvePointer(doc, ref); err != nil {
					t.Errorf("%s: $ref %s: %v", at, ref, err)
				}
			}
			for k, e := range v {
				walk(e, at+"/"+k)
			}
		case []any:
			for i, e := range v {
				walk(e, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "#")
	if count < 50 {
		t.Errorf("found %d $refs; the document should have many more", count)
	}
}

func resolvePointer(doc any, ref string) (any, error) {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, errNotLocal
	}
	v := doc
	for _, token := range strings.Split(path, "/") {
		token = strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errNotFound
		}
		if v, ok = m[token]; !ok {
			return nil, errNotFound
		}
	}
	return v, nil
}

var (
	errNotLocal = errors.New("not a reference within the document")
	errNotFound = errors.New("no such location")
)

// TestAsyncAPIDescribesEveryOperation: the command channel has one message
// per operationType, named for it, whose payload is its command schema,
// and mqprobe receives each.
func TestAsyncAPIDescribesEveryOperation(t *testing.T) {
	doc := asyncAPIFile(t).(map[string]any)
	receive := map[string]bool{}
	for _, m := range doc["operations"].(map[string]any)["receiveCommand"].(map[string]any)["messages"].([]any) {
		receive[m.(map[string]any)["$ref"].(string)] = true
	}
	for _, op := range command.Operations {
		name := apidoc.ComponentName(op)
		if !receive["#/channels/commands/messages/"+name] {
			t.Errorf("receiveCommand does not receive %s", name)
		}
		msg, err := resolvePointer(doc, "#/components/messages/"+name)
		if err != nil {
			t.Errorf("no message %s: %v", name, err)
			continue
		}
		m := msg.(map[string]any)
		if m["name"] != string(op) || m["payload"].(map[string]any)["$ref"] != "#/components/schemas/"+name {
			t.Errorf("message %s: name %v, payload %v", name, m["name"], m["payload"])
		}
	}
}

// TestAsyncAPIPayloadsAcceptWhatTheDecoderAccepts: the message payload
// schemas, read as the draft-07 AsyncAPI Schema Objects they are, accept
// the bus commands the decoder accepts and refuse those it refuses.
func TestAsyncAPIPayloadsAcceptWhatTheDecoderAccepts(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource("mem://asyncapi.json", asyncAPIFile(t)); err != nil {
		t.Fatal(err)
	}
	dec, err := command.NewDecoder(command.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	target := `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}`
	cases := []struct {
		payload, body string
		valid         bool
	}{
		{"ProduceCommand", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":1000,"messageSizeBytes":2048}}`, true},
		{"ProduceCommand", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":0}}`, false},
		{"ProduceCommand", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":1},"mqProps":{"priority":10}}`, false},
		{"ProduceCommand", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":1},"payload":{"mode":"fixed","fixedBase64":"@@"}}`, false},
		{"ProduceCommand", `{"operationType":"PRODUCE","targetRef":"qm1","batch":{"count":1},"extra":true}`, false},
		{"ProduceCommand", `{"operationType":"PRODUCE",` + target + `,"targetRef":"qm1","batch":{"count":1}}`, false},
		{"ConsumeCommand", `{"operationType":"CONSUME",` + target + `,"maxMessages":10,"waitSeconds":5}`, true},
		{"ConsumeCommand", `{"operationType":"CONSUME",` + target + `,"waitSeconds":61}`, false},
		{"DepthCommand", `{"operationType":"DEPTH",` + target + `}`, true},
		{"DepthCommand", `{"operationType":"DEPTH"}`, false}, // neither target nor targetRef
		{"DepthCommand", `{"operationType":"DEPTH","target":{"queueManager":"QM1"}}`, false},
		{"ConnectionTestCommand", `{"operationType":"CONNECTION_TEST","targetRef":"qm1"}`, true},
		{"TestCommand", `{"operationType":"TEST","targetRef":"qm1","queue":"DEV.QUEUE.2","durationSeconds":10}`, true},
		{"TestCommand", `{"operationType":"TEST",` + target + `,"queue":"DEV.QUEUE.2","durationSeconds":10}`, false}, // queue only with targetRef
		{"StopTestCommand", `{"operationType":"STOP_TEST","testId":"canary-1"}`, true},
		{"StopTestCommand", `{"operationType":"STOP_TEST"}`, false},
		{"EventBridgeEvent", `{"version":"0","id":"5e1c9a52","detail-type":"Scheduled Event","source":"aws.scheduler","time":"2026-11-22T12:00:00Z","detail":{"operationType":"DEPTH",` + target + `}}`, true},
		{"EventBridgeEvent", `{"version":"0","id":"5e1c9a52","detail-type":"Scheduled Event","source":"aws.scheduler","time":"2026-11-22T12:00:00Z","detail":{"operationType":"DEPTH","target":{"queueManager":"QM1"}}}`, false},
		{"SNSNotification", `{"Type":"Notification","MessageId":"b1e7","TopicArn":"arn:aws:sns:us-east-1:1:t","Message":"{\"operationType\":\"DEPTH\",` + strings.ReplaceAll(target, `"`, `\"`) + `}","MessageAttributes":{"Idempotency-Key":{"Type":"String","Value":"k-1"}}}`, true},
		{"SNSNotification", `{"Type":"Notification","MessageId":"b1e7","Message":{"operationType":"DEPTH"}}`, false},
	}
	for _, tc := range cases {
		schema, err := c.Compile("mem://asyncapi.json#/components/schemas/" + tc.payload)
		if err != nil {
			t.Fatalf("compile %s: %v", tc.payload, err)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		docErr := schema.Validate(inst)
		_, decErr := dec.Decode(command.Input{Body: []byte(tc.body), Transport: command.TransportBus, MessageID: "sqs-message-1"})
		if (docErr == nil) != tc.valid || (decErr == nil) != tc.valid {
			t.Errorf("%s %s: document valid=%v, decoder valid=%v, want %v (%v; %v)", tc.payload, tc.body, docErr == nil, decErr == nil, tc.valid, docErr, decErr)
		}
	}
}

// TestAsyncAPIResultPayloadAcceptsResultEvents: an event as the publishers
// send it is valid against the ResultEvent payload.
func TestAsyncAPIResultPayloadAcceptsResultEvents(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	if err := c.AddResource("mem://asyncapi.json", asyncAPIFile(t)); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("mem://asyncapi.json#/components/schemas/ResultEvent")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 2, 0, time.UTC)
	three, zero, complete := 3, 0, true
	for _, data := range []result.Data{
		{OperationType: "DEPTH", IdempotencyKey: "k-1", Status: result.StatusCompleted, Target: "QM1:DEV.QUEUE.1", Attempt: 1,
			StartedAt: &now, FinishedAt: &now, Tags: map[string]string{}, Result: resultOf(t, handlers.DepthResult{
				CurrentDepth: &three, MaxDepth: &three, OpenInputCount: &zero, OpenOutputCount: &zero, QueueType: "local"})},
		{OperationType: "DEPTH", IdempotencyKey: "k-3", Status: result.StatusCompleted, Target: "QM1:DEV.REMOTE.1", Attempt: 1,
			StartedAt: &now, FinishedAt: &now, Tags: map[string]string{}, Result: resultOf(t, handlers.DepthResult{
				QueueType: "remote", RemoteQueue: "IN.Q", RemoteQueueManager: "QM2"})},
		{OperationType: "REDRIVE", IdempotencyKey: "k-4", Status: result.StatusCompleted, Target: "QM1:DEV.DEAD.LETTER.QUEUE", Attempt: 1,
			StartedAt: &now, FinishedAt: &now, Tags: map[string]string{}, Result: resultOf(t, handlers.RedriveResult{
				DryRun: true, Moved: 1, ByReason: map[string]int{"MQRC_Q_FULL": 1}, ByDestination: map[string]int{"DEV.QUEUE.1": 1},
				Browsed: 2, Skipped: 1, SkippedBy: map[string]int{"noDeadLetterHeader": 1}, Elapsed: "PT0.004S", Complete: &complete,
				Messages: []handlers.RedriveMessage{{MsgIDBase64: "AAAA", DeadLetterHeader: handlers.DeadLetterHeader{Reason: 2053,
					ReasonName: "MQRC_Q_FULL", OriginalQueue: "DEV.QUEUE.1", OriginalQueueManager: "QM1", PutApplName: "amqsput",
					PutApplType: 6, DeadLetteredAt: now, Format: "MQSTR", CCSID: 1208, Encoding: 546}, PayloadBytes: 5, Destination: "DEV.QUEUE.1"}}})},
		{OperationType: "PRODUCE", IdempotencyKey: "k-2", Status: result.StatusFailed, Result: json.RawMessage(`null`), Tags: map[string]string{},
			Error: &result.Error{Code: "MQRC_UNKNOWN_OBJECT_NAME", Reason: 2085, Message: "no such queue", Transient: false}},
	} {
		e := result.New("mqprobe/test", data, now)
		e.TraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		body, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(body)))
		if err := schema.Validate(inst); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"specversion":"1.0","type":"mqprobe.command.done"}`))
	if schema.Validate(inst) == nil {
		t.Error("ResultEvent accepted an event with an unknown type and no data")
	}
	// A REDRIVE result must carry its counts.
	inst, _ = jsonschema.UnmarshalJSON(strings.NewReader(`{"specversion":"1.0","id":"e","source":"mqprobe/test","type":"mqprobe.command.completed",` +
		`"time":"2026-11-22T12:00:02Z","datacontenttype":"application/json","data":{"operationType":"REDRIVE","idempotencyKey":"k",` +
		`"status":"COMPLETED","replay":false,"durationMs":1,"result":{"dryRun":false},"error":null,"tags":{}}}`))
	if schema.Validate(inst) == nil {
		t.Error("ResultEvent accepted a REDRIVE result without its counts")
	}
	// A DEPTH result must say which queue type its counts are for.
	inst, _ = jsonschema.UnmarshalJSON(strings.NewReader(`{"operationType":"DEPTH","idempotencyKey":"k","status":"COMPLETED","replay":false,` +
		`"durationMs":1,"result":{"currentDepth":3},"error":null,"tags":{}}`))
	data, err := c.Compile("mem://asyncapi.json#/components/schemas/ResultData")
	if err != nil {
		t.Fatal(err)
	}
	if data.Validate(inst) == nil {
		t.Error("ResultData accepted a DEPTH result without queueType")
	}
}

// resultOf is v as a command's data.result.
func resultOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
