package command

import "github.com/santhosh-tekuri/jsonschema/v6"

// maxSchemaDepth bounds the walk; the command schemas nest far less, so
// hitting it means a reference cycle, not a deep command.
const maxSchemaDepth = 32

// applyDefaults fills, in place, every property missing from v whose schema
// has a "default", recursing into objects (including ones it just filled,
// so "transaction": {} gains enabled and txSize). It runs after validation:
// v is known to match sch, so conditional branches can be picked by
// re-validating.
func applyDefaults(sch *jsonschema.Schema, v any) {
	applyDefaultsDepth(sch, v, 0)
}

func applyDefaultsDepth(sch *jsonschema.Schema, v any, depth int) {
	obj, ok := v.(map[string]any)
	if !ok || depth > maxSchemaDepth {
		return
	}
	for _, s := range applicable(sch, obj, nil, depth) {
		for name, prop := range s.Properties {
			if _, present := obj[name]; !present {
				if def, ok := defaultOf(prop, 0); ok {
					obj[name] = deepCopy(def)
				}
			}
			if child, present := obj[name]; present {
				applyDefaultsDepth(prop, child, depth+1)
			}
		}
		if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			for name, child := range obj {
				if _, declared := s.Properties[name]; !declared {
					applyDefaultsDepth(ap, child, depth+1)
				}
			}
		}
	}
}

// applicable lists the schemas that constrain v: sch itself plus what it
// pulls in through $ref, allOf, the matching if/then/else branch and the
// oneOf/anyOf branches v satisfies.
func applicable(sch *jsonschema.Schema, v any, acc []*jsonschema.Schema, depth int) []*jsonschema.Schema {
	if sch == nil || depth > maxSchemaDepth {
		return acc
	}
	acc = append(acc, sch)
	acc = applicable(sch.Ref, v, acc, depth+1)
	for _, s := range sch.AllOf {
		acc = applicable(s, v, acc, depth+1)
	}
	if sch.If != nil {
		if sch.If.Validate(v) == nil {
			acc = applicable(sch.Then, v, acc, depth+1)
		} else {
			acc = applicable(sch.Else, v, acc, depth+1)
		}
	}
	for _, branches := range [][]*jsonschema.Schema{sch.OneOf, sch.AnyOf} {
		for _, s := range branches {
			if s.Validate(v) == nil {
				acc = applicable(s, v, acc, depth+1)
			}
		}
	}
	return acc
}

// defaultOf finds a property's default, which may sit beside a $ref (a
// per-use default such as "payload": {"$ref": ..., "default": {}}) or in
// the referenced definition.
func defaultOf(sch *jsonschema.Schema, depth int) (any, bool) {
	if sch == nil || depth > maxSchemaDepth {
		return nil, false
	}
	if sch.Default != nil {
		return *sch.Default, true
	}
	if def, ok := defaultOf(sch.Ref, depth+1); ok {
		return def, true
	}
	for _, s := range sch.AllOf {
		if def, ok := defaultOf(s, depth+1); ok {
			return def, true
		}
	}
	return nil, false
}

// deepCopy keeps the compiled schema's default values from being shared
// with (and then mutated through) a command.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = deepCopy(e)
		}
		return a
	default:
		return v
	}
}
