package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mqprobe/mqprobe/configs"
)

// schemaBase is the $id prefix of every command schema. It is an
// identifier only: nothing is ever fetched from it.
const schemaBase = "https://mqprobe.dev/schemas/command/"

// commonSchema holds the $defs the operation schemas reference.
const commonSchema = "common.json"

// schemaFiles maps each operation to its schema under configs/schemas.
var schemaFiles = map[Operation]string{
	Produce:        "produce.json",
	Consume:        "consume.json",
	Depth:          "depth.json",
	ConnectionTest: "connection-test.json",
	Test:           "test.json",
	StopTest:       "stop-test.json",
	Redrive:        "redrive.json",
}

var printer = message.NewPrinter(language.English)

// SchemaFS is the schema directory (one file per operation plus
// common.json), for serving or for generating the OpenAPI/AsyncAPI
// documents.
func SchemaFS() fs.FS {
	sub, err := fs.Sub(configs.Schemas, "schemas")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// SchemaFile names the schema file of op within SchemaFS.
func SchemaFile(op Operation) (string, bool) {
	name, ok := schemaFiles[op]
	return name, ok
}

// registry is the compiled schema set. Compiled schemas are immutable and
// safe for concurrent validation, so one set serves every Decoder.
type registry struct {
	raw      map[string]json.RawMessage
	compiled map[Operation]*jsonschema.Schema
	// byLocation finds the schema an error points at, to word messages.
	byLocation map[string]*jsonschema.Schema
}

var loadRegistry = sync.OnceValues(compileSchemas)

func compileSchemas() (*registry, error) {
	r := &registry{
		raw:        map[string]json.RawMessage{},
		compiled:   map[Operation]*jsonschema.Schema{},
		byLocation: map[string]*jsonschema.Schema{},
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()  // ccdtUrl must really be a URI
	c.AssertContent() // base64 fields must really decode
	files := []string{commonSchema}
	for _, op := range Operations {
		files = append(files, schemaFiles[op])
	}
	dir := SchemaFS()
	for _, name := range files {
		data, err := fs.ReadFile(dir, name)
		if err != nil {
			return nil, fmt.Errorf("read schema %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("parse schema %s: %w", name, err)
		}
		if err := c.AddResource(schemaBase+name, doc); err != nil {
			return nil, fmt.Errorf("add schema %s: %w", name, err)
		}
		r.raw[name] = json.RawMessage(data)
	}
	for _, op := range Operations {
		sch, err := c.Compile(schemaBase + schemaFiles[op])
		if err != nil {
			return nil, fmt.Errorf("compile schema of %s: %w", op, err)
		}
		r.compiled[op] = sch
		r.index(sch)
	}
	return r, nil
}

// index records every subschema by location.
func (r *registry) index(s *jsonschema.Schema) {
	if s == nil || r.byLocation[s.Location] != nil {
		return
	}
	r.byLocation[s.Location] = s
	for _, sub := range subschemas(s) {
		r.index(sub)
	}
}

// subschemas lists the children of s that the command schemas use.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	subs := []*jsonschema.Schema{s.Ref, s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.Items2020, s.ContentSchema}
	subs = append(subs, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	subs = append(subs, s.PrefixItems...)
	for _, p := range s.Properties {
		subs = append(subs, p)
	}
	for _, p := range s.PatternProperties {
		subs = append(subs, p)
	}
	if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		subs = append(subs, ap)
	}
	return subs
}

// validate checks doc against op's schema and returns the flattened
// problems, nil when valid.
func (r *registry) validate(op Operation, doc any) []Problem {
	err := r.compiled[op].Validate(doc)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		// Only invalid Go values (not produced by our parser) get here.
		return []Problem{{Rule: "schema", Message: err.Error()}}
	}
	return r.schemaProblems(verr)
}
