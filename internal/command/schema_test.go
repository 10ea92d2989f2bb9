package command

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

func TestSchemaFSHoldsEverySchema(t *testing.T) {
	names, err := fs.Glob(SchemaFS(), "*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{commonSchema}
	for _, op := range Operations {
		name, ok := SchemaFile(op)
		if !ok {
			t.Fatalf("no schema file for %s", op)
		}
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("SchemaFS = %v, want %v", names, want)
	}
}

func TestDecoderSchema(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	for _, op := range Operations {
		raw, ok := d.Schema(op)
		if !ok {
			t.Fatalf("Schema(%s) missing", op)
		}
		var doc struct {
			ID         string `json:"$id"`
			Properties struct {
				OperationType struct {
					Const string `json:"const"`
				} `json:"operationType"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("Schema(%s): %v", op, err)
		}
		file, _ := SchemaFile(op)
		if doc.ID != schemaBase+file || doc.Properties.OperationType.Const != string(op) {
			t.Errorf("Schema(%s): $id %q, operationType const %q", op, doc.ID, doc.Properties.OperationType.Const)
		}
	}
	if _, ok := d.Schema("PURGE"); ok {
		t.Error("Schema(PURGE) found")
	}
}

// TestSchemasAreClosedAndDocumented enforces the house rules the generated
// OpenAPI/AsyncAPI documents rely on: every object shape rejects unknown
// fields and every field says what it is.
func TestSchemasAreClosedAndDocumented(t *testing.T) {
	docs := map[string]map[string]any{}
	err := fs.WalkDir(SchemaFS(), ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := fs.ReadFile(SchemaFS(), path)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		docs[path] = doc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defs, _ := docs[commonSchema]["$defs"].(map[string]any)
	documented := func(s map[string]any) bool {
		if s["title"] != nil || s["description"] != nil {
			return true
		}
		ref, _ := s["$ref"].(string)
		_, name, ok := strings.Cut(ref, "#/$defs/")
		if !ok {
			return false
		}
		def, _ := defs[name].(map[string]any)
		return def["title"] != nil || def["description"] != nil
	}
	var walk func(file, at string, v any)
	walk = func(file, at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "object" {
				if v["additionalProperties"] != false {
					t.Errorf("%s%s: object without additionalProperties: false", file, at)
				}
				props, _ := v["properties"].(map[string]any)
				for name, p := range props {
					if ps, ok := p.(map[string]any); !ok || !documented(ps) {
						t.Errorf("%s%s/properties/%s: no title or description", file, at, name)
					}
				}
			}
			for k, child := range v {
				walk(file, at+"/"+k, child)
			}
		case []any:
			for _, child := range v {
				walk(file, at+"/[]", child)
			}
		}
	}
	for file, doc := range docs {
		walk(file, "#", doc)
	}
}

// TestCanonicalRevalidates proves the defaults are valid values: a command
// with every default applied still matches its schema.
func TestCanonicalRevalidates(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	for _, body := range []string{minimalProduce, minimalConsume, minimalDepth, minimalConnectionTest, minimalTest, minimalStopTest, minimalRedrive} {
		got := mustDecode(t, d, bus(body))
		dec := json.NewDecoder(bytes.NewReader(got.Canonical))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if problems := d.reg.validate(got.Command.OperationType, doc); problems != nil {
			t.Errorf("%s with defaults is invalid: %v", got.Command.OperationType, problems)
		}
	}
}

func TestDefaultsAreNotShared(t *testing.T) {
	d := newDecoder(t, DecoderConfig{})
	// Decoding must not write into the compiled schema's default values.
	for range 2 {
		got := mustDecode(t, d, bus(minimalProduce))
		if strings.Contains(string(got.Canonical), `"count":10,"messageSizeBytes":1024,"rateLimitPerSec":null,"transaction":{"enabled":true,"txSize":100}`) == false {
			t.Fatalf("Canonical = %s", got.Canonical)
		}
	}
	raw, _ := d.Schema(Produce)
	if !strings.Contains(string(raw), `"default": {}`) {
		t.Error("produce.json lost its object defaults")
	}
	for _, s := range d.reg.byLocation {
		if s.Default == nil {
			continue
		}
		if m, ok := (*s.Default).(map[string]any); ok && len(m) != 0 {
			t.Errorf("%s: default mutated to %v", s.Location, m)
		}
	}
}
