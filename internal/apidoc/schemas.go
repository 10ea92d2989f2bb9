package apidoc

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mqprobe/mqprobe/configs"
	"github.com/mqprobe/mqprobe/internal/command"
)

// DocumentVersion is info.version of the documents kept in configs/: what an
// unversioned build reports, so such a build serves exactly those files.
const DocumentVersion = "dev"

// SchemaRef is the $ref of the component named name.
func SchemaRef(name string) map[string]any {
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// ComponentName names the component of op's command schema:
// PRODUCE → ProduceCommand, CONNECTION_TEST → ConnectionTestCommand.
func ComponentName(op command.Operation) string {
	var b strings.Builder
	for word := range strings.SplitSeq(strings.ToLower(string(op)), "_") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String() + "Command"
}

// Schemas returns the named schemas both documents share: each $def of
// common.json under its own name, the command schema of each of ops under
// ComponentName, and the result event as ResultEvent with its parts
// ResultData, ResultError, ResultProblem and ResultProgress. Every $ref points at
// #/components/schemas/<name>; $id and $schema are dropped, nothing else
// changes.
func Schemas(ops ...command.Operation) (map[string]any, error) {
	schemas := map[string]any{}
	add := func(name string, v any) error {
		if _, dup := schemas[name]; dup {
			return fmt.Errorf("apidoc: two schemas named %s", name)
		}
		schemas[name] = v
		return nil
	}
	common, err := loadSchema(command.SchemaFS(), "common.json")
	if err != nil {
		return nil, err
	}
	defs, _ := common["$defs"].(map[string]any)
	for name, def := range defs {
		if err := add(name, rewriteRefs(def, toComponents("#/$defs/"))); err != nil {
			return nil, err
		}
	}
	for _, op := range ops {
		file, ok := command.SchemaFile(op)
		if !ok {
			return nil, fmt.Errorf("apidoc: no schema file for operation %s", op)
		}
		s, err := loadSchema(command.SchemaFS(), file)
		if err != nil {
			return nil, err
		}
		if err := add(ComponentName(op), rewriteRefs(s, toComponents("common.json#/$defs/"))); err != nil {
			return nil, err
		}
	}
	ev, err := loadSchema(configs.Events, "events/result.json")
	if err != nil {
		return nil, err
	}
	eventDefs := map[string]string{"data": "ResultData", "error": "ResultError", "problem": "ResultProblem", "progress": "ResultProgress",
		"depthResult": "DepthResult", "redriveResult": "RedriveResult"}
	evDefs, _ := ev["$defs"].(map[string]any)
	for def, name := range eventDefs {
		s, ok := evDefs[def]
		if !ok {
			return nil, fmt.Errorf("apidoc: events/result.json has no $defs/%s", def)
		}
		if err := add(name, rewriteRefs(s, toNamed(eventDefs))); err != nil {
			return nil, err
		}
	}
	delete(ev, "$defs")
	if err := add("ResultEvent", rewriteRefs(ev, toNamed(eventDefs))); err != nil {
		return nil, err
	}
	return schemas, nil
}

func loadSchema(fsys fs.FS, name string) (map[string]any, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("apidoc: %s: %w", name, err)
	}
	delete(s, "$schema")
	delete(s, "$id")
	return s, nil
}

// rewriteRefs returns v with every $ref replaced by rename's answer, where
// it has one.
func rewriteRefs(v any, rename func(ref string) (string, bool)) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if ref, ok := e.(string); ok && k == "$ref" {
				if to, ok := rename(ref); ok {
					out[k] = to
					continue
				}
			}
			out[k] = rewriteRefs(e, rename)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = rewriteRefs(e, rename)
		}
		return out
	}
	return v
}

// toComponents points $refs starting with prefix at components/schemas.
func toComponents(prefix string) func(string) (string, bool) {
	return func(ref string) (string, bool) {
		name, ok := strings.CutPrefix(ref, prefix)
		return "#/components/schemas/" + name, ok
	}
}

// toNamed points $refs to local $defs at the components named for them.
func toNamed(names map[string]string) func(string) (string, bool) {
	return func(ref string) (string, bool) {
		name, ok := names[strings.TrimPrefix(ref, "#/$defs/")]
		return "#/components/schemas/" + name, ok
	}
}
