package apidoc_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/configs"
	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/probe"
)

// TestResultSchemasNameEveryField keeps each operation's result schema and
// the Go type the handler answers with in step: the same JSON field names,
// nested objects included, so neither can gain a field the other lacks.
func TestResultSchemasNameEveryField(t *testing.T) {
	data, err := configs.Events.ReadFile("events/result.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	for def, goType := range map[string]reflect.Type{
		"depthResult":   reflect.TypeFor[handlers.DepthResult](),
		"redriveResult": reflect.TypeFor[handlers.RedriveResult](),
		"testResult":    reflect.TypeFor[probe.Stats](),
	} {
		schema, ok := ev.Defs[def]
		if !ok {
			t.Errorf("events/result.json has no $defs/%s", def)
			continue
		}
		compareFields(t, def, schema, goType)
	}
}

// compareFields compares an object schema's properties with t's JSON field
// names, and descends into the fields that are objects (or arrays of them)
// on both sides.
func compareFields(t *testing.T, path string, schema map[string]any, goType reflect.Type) {
	t.Helper()
	for goType.Kind() == reflect.Pointer || goType.Kind() == reflect.Slice {
		goType = goType.Elem()
	}
	props, _ := schema["properties"].(map[string]any)
	fields := map[string]reflect.Type{}
	jsonFields(goType, fields)
	var inSchemaOnly, inGoOnly []string
	for name := range props {
		if _, ok := fields[name]; !ok {
			inSchemaOnly = append(inSchemaOnly, name)
		}
	}
	for name, ft := range fields {
		p, ok := props[name].(map[string]any)
		if !ok {
			inGoOnly = append(inGoOnly, name)
			continue
		}
		if items, ok := p["items"].(map[string]any); ok {
			p = items
		}
		if _, nested := p["properties"]; nested {
			compareFields(t, path+"."+name, p, ft)
		}
	}
	slices.Sort(inSchemaOnly)
	slices.Sort(inGoOnly)
	if len(inSchemaOnly) > 0 || len(inGoOnly) > 0 {
		t.Errorf("%s: schema only %v, %s only %v", path, inSchemaOnly, goType, inGoOnly)
	}
}

// jsonFields adds t's JSON field names and types to fields, those of an
// embedded struct without a name of its own among them, as encoding/json
// writes them.
func jsonFields(t reflect.Type, fields map[string]reflect.Type) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "":
			jsonFields(f.Type, fields)
		case name != "" && name != "-":
			fields[name] = f.Type
		}
	}
}
