package httpapi_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/internal/apidoc"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/httpapi"
)

func openAPIValidator(t *testing.T) validator.Validator {
	t.Helper()
	spec, err := httpapi.OpenAPI("test")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	return v
}

// TestOpenAPIIsAValidDocument checks the generated document against the
// OpenAPI 3.1 schema.
func TestOpenAPIIsAValidDocument(t *testing.T) {
	v := openAPIValidator(t)
	if ok, errs := v.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("%s: %s", e.Message, e.Reason)
		}
	}
}

// TestOpenAPIRequestSchemasAreTheCommandSchemas: the document's request
// schemas, resolved within the document, accept what the decoder accepts and
// refuse what it refuses.
func TestOpenAPIRequestSchemasAreTheCommandSchemas(t *testing.T) {
	spec, err := httpapi.OpenAPI("test")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(spec)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource("mem://openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	dec, err := command.NewDecoder(command.DecoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	target := `"target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}`
	routes := map[string]struct {
		op        command.Operation
		component string
	}{
		"/messages/produce": {command.Produce, "ProduceCommand"}, "/messages/consume": {command.Consume, "ConsumeCommand"},
		"/queue/depth": {command.Depth, "DepthCommand"}, "/connections/test": {command.ConnectionTest, "ConnectionTestCommand"},
	}
	for _, tc := range []struct {
		path, body string
		valid      bool
	}{
		{"/messages/produce", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":1000,"messageSizeBytes":2048}}`, true},
		{"/messages/produce", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":0}}`, false},
		{"/messages/produce", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":1},"mqProps":{"priority":10}}`, false},
		{"/messages/produce", `{"operationType":"PRODUCE",` + target + `,"batch":{"count":1},"payload":{"mode":"fixed","fixedBase64":"@@"}}`, false},
		{"/messages/produce", `{"operationType":"PRODUCE","targetRef":"qm1","batch":{"count":1},"extra":true}`, false},
		{"/messages/consume", `{"operationType":"CONSUME",` + target + `,"maxMessages":10,"waitSeconds":5}`, true},
		{"/messages/consume", `{"operationType":"CONSUME",` + target + `,"waitSeconds":61}`, false},
		{"/queue/depth", `{"operationType":"DEPTH",` + target + `}`, true},
		{"/queue/depth", `{"operationType":"DEPTH","target":{"queueManager":"QM1"}}`, false},
		{"/connections/test", `{"operationType":"CONNECTION_TEST","targetRef":"qm1"}`, true},
	} {
		r := routes[tc.path]
		schema, err := c.Compile("mem://openapi.json#/components/schemas/" + r.component)
		if err != nil {
			t.Fatalf("compile %s: %v", r.component, err)
		}
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(tc.body))
		docErr := schema.Validate(inst)
		_, decErr := dec.Decode(command.Input{Body: []byte(tc.body), Transport: command.TransportHTTP, Operation: r.op})
		if (docErr == nil) != tc.valid || (decErr == nil) != tc.valid {
			t.Errorf("%s %s: document valid=%v, decoder valid=%v, want %v (%v; %v)", tc.path, tc.body, docErr == nil, decErr == nil, tc.valid, docErr, decErr)
		}
	}
}

// TestOpenAPIEmbedsEveryCommandSchema: each command component is its schema
// file, with only $id/$schema dropped and $refs pointed at components.
func TestOpenAPIEmbedsEveryCommandSchema(t *testing.T) {
	spec, err := httpapi.OpenAPI("test")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	dec, _ := command.NewDecoder(command.DecoderConfig{})
	for op, name := range map[command.Operation]string{command.Produce: "ProduceCommand", command.Consume: "ConsumeCommand",
		command.Depth: "DepthCommand", command.ConnectionTest: "ConnectionTestCommand"} {
		raw, ok := dec.Schema(op)
		if !ok {
			t.Fatalf("no schema for %s", op)
		}
		want := strings.ReplaceAll(string(raw), "common.json#/$defs/", "#/components/schemas/")
		var w, g map[string]any
		json.Unmarshal([]byte(want), &w)
		json.Unmarshal(doc.Components.Schemas[name], &g)
		delete(w, "$id")
		delete(w, "$schema")
		wj, _ := json.Marshal(w)
		gj, _ := json.Marshal(g)
		if string(wj) != string(gj) {
			t.Errorf("%s differs from %s's schema", name, op)
		}
	}
}

func openAPIFile(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(httpapi.OpenAPIFile)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestOpenAPIFileIsCurrent(t *testing.T) {
	want, err := httpapi.OpenAPIYAML()
	if err != nil {
		t.Fatal(err)
	}
	if err := apidoc.Stale(httpapi.OpenAPIFile, openAPIFile(t), want); err != nil {
		t.Fatal(err)
	}
}

// TestOpenAPIFileIsTheServedDocument: configs/openapi.yaml is a valid
// OpenAPI 3.1 document and, read as YAML, the very document /openapi.json
// serves (at the same version).
func TestOpenAPIFileIsTheServedDocument(t *testing.T) {
	data := openAPIFile(t)
	doc, err := libopenapi.NewDocument(data)
	if err != nil {
		t.Fatalf("parse %s: %v", httpapi.OpenAPIFile, err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, errs := v.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("%s: %s: %s", httpapi.OpenAPIFile, e.Message, e.Reason)
		}
	}

	var fromYAML, served any
	if err := yaml.Unmarshal(data, &fromYAML); err != nil {
		t.Fatal(err)
	}
	asJSON, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := httpapi.OpenAPI(apidoc.DocumentVersion)
	if err != nil {
		t.Fatal(err)
	}
	var fromFile any
	if err := json.Unmarshal(asJSON, &fromFile); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(spec, &served); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromFile, served) {
		t.Errorf("%s read as YAML is not the document /openapi.json serves", httpapi.OpenAPIFile)
	}
}
