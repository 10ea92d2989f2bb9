package config

import (
	"cmp"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// EnvPrefix starts every variable that sets a key.
const EnvPrefix = "MQPROBE_"

// NonConfigEnv lists MQPROBE_* variables that are not configuration keys and
// so are not reported as unknown: names ending in "_" are prefixes.
//   - MQPROBE_CONFIG: the config file path, read by the CLI like --config;
//   - MQPROBE_TOKEN: the bearer token the CLI sends to the daemon;
//   - MQPROBE_CA_FILE, MQPROBE_CLIENT_CERTFILE, MQPROBE_CLIENT_KEYFILE,
//     MQPROBE_SERVER_NAME: the CLI's TLS settings towards the daemon
//     (--ca-file, --cert-file, --key-file, --server-name);
//   - MQPROBE_TEST_*: test harness settings (external servers for tests);
//   - MQPROBE_PG_DIR: data directory of scripts/postgres.sh.
var NonConfigEnv = []string{"MQPROBE_CONFIG", "MQPROBE_TOKEN", "MQPROBE_CA_FILE", "MQPROBE_CLIENT_CERTFILE",
	"MQPROBE_CLIENT_KEYFILE", "MQPROBE_SERVER_NAME", "MQPROBE_TEST_", "MQPROBE_PG_DIR"}

// Key describes one configuration key: one leaf field of Config.
type Key struct {
	Key     string // dotted YAML path; "<name>" stands for a profile or tenant name, "[]" for a list entry
	Type    string // string, int, bool, duration or []string
	Default string // the default, rendered as in YAML ("" when none)
	Env     string // the variable that sets it; "" when only the file can (list entries)
	Desc    string // one line
	Secret  bool   // hidden by Redacted
}

// Keys lists every configuration key in declaration order, for the
// configuration reference and `mqprobe config keys`-style output.
func Keys() []Key {
	var keys []Key
	walk(reflect.ValueOf(defaults()).Elem(), "", EnvPrefix[:len(EnvPrefix)-1], true, func(l leaf) {
		def := l.field.Tag.Get("default")
		if def == "" {
			def = formatValue(l.val)
		}
		keys = append(keys, Key{
			Key:     l.key,
			Type:    cmp.Or(l.field.Tag.Get("type"), typeName(l.field.Type)),
			Default: def,
			Env:     l.env,
			Desc:    l.field.Tag.Get("desc"),
			Secret:  l.field.Tag.Get("secret") != "",
		})
	})
	return keys
}

// EnvName is the variable for a dotted key: MQPROBE_ + the key upper-cased
// with dots (and any other character outside A-Z0-9) turned into underscores.
func EnvName(key string) string {
	return EnvPrefix + envSegment(key)
}

func envSegment(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, s)
}

// leaf is one settable field found by walk.
type leaf struct {
	key   string // dotted path
	env   string // variable name; "" inside lists
	field reflect.StructField
	val   reflect.Value // addressable
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	stringsType  = reflect.TypeFor[[]string]()
	boolPtrType  = reflect.TypeFor[*bool]()
	// unmarshalerType marks a leaf that reads its own YAML: a package's
	// type with a shape of its own (embedded.Queues: names or mappings).
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
)

// isLeaf reports the field types a key can have; anything else is a section.
func isLeaf(t reflect.Type) bool {
	switch t {
	case durationType, stringsType, boolPtrType:
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Int, reflect.Int64, reflect.Bool:
		return true
	}
	return reflect.PointerTo(t).Implements(unmarshalerType)
}

// walk calls fn for every leaf under the struct v. Maps of sections are
// walked per entry (in doc mode: one "<name>" placeholder) and lists of
// sections per element (in doc mode: the first, or a zero one, as "[]");
// list elements have no variable. fn may set leaves: map entries are
// written back after their walk.
func walk(v reflect.Value, key, env string, doc bool, fn func(leaf)) {
	for _, f := range yamlFields(v.Type()) {
		name := yamlName(f)
		k, e := joinKey(key, name), ""
		if env != "" {
			e = env + "_" + envSegment(name)
		}
		fv := v.FieldByIndex(f.Index)
		switch {
		case isLeaf(f.Type):
			fn(leaf{key: k, env: e, field: f, val: fv})
		case f.Type.Kind() == reflect.Struct:
			walk(fv, k, e, doc, fn)
		case f.Type.Kind() == reflect.Map:
			if doc {
				pe := ""
				if e != "" {
					pe = e + "_<NAME>"
				}
				walk(reflect.New(f.Type.Elem()).Elem(), k+".<name>", pe, doc, fn)
				continue
			}
			for _, mk := range sortedKeys(fv) {
				elem := reflect.New(f.Type.Elem()).Elem()
				elem.Set(fv.MapIndex(mk))
				ek := ""
				if e != "" {
					ek = e + "_" + envSegment(mk.String())
				}
				walk(elem, k+"."+mk.String(), ek, doc, fn)
				fv.SetMapIndex(mk, elem)
			}
		case f.Type.Kind() == reflect.Slice:
			if doc {
				elem := reflect.New(f.Type.Elem()).Elem()
				if fv.Len() > 0 {
					elem.Set(fv.Index(0))
				}
				walk(elem, k+"[]", "", doc, fn)
				continue
			}
			for j := range fv.Len() {
				walk(fv.Index(j), k+"["+strconv.Itoa(j)+"]", "", doc, fn)
			}
		default:
			panic(fmt.Sprintf("config: field %s has unsupported type %s", k, f.Type))
		}
	}
}

// yamlFields lists the struct type's keys in order, with the keys of a
// `yaml:",inline"` struct (a package's Config embedded in a section) in its
// place; each field's Index reaches it from t.
func yamlFields(t reflect.Type) []reflect.StructField {
	var fields []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("yaml") == ",inline" {
			for _, inner := range yamlFields(f.Type) {
				inner.Index = append([]int{i}, inner.Index...)
				fields = append(fields, inner)
			}
			continue
		}
		if yamlName(f) != "" {
			fields = append(fields, f)
		}
	}
	return fields
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func sortedKeys(m reflect.Value) []reflect.Value {
	keys := m.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

func typeName(t reflect.Type) string {
	switch t {
	case durationType:
		return "duration"
	case stringsType:
		return "[]string"
	case boolPtrType:
		return "bool"
	}
	if t.Kind() == reflect.Int64 {
		return "int"
	}
	return t.Kind().String()
}

// formatValue renders a leaf as it would be written in YAML.
func formatValue(v reflect.Value) string {
	switch v.Type() {
	case durationType:
		return configcheck.FormatDuration(time.Duration(v.Int()))
	case stringsType:
		return strings.Join(v.Interface().([]string), ",")
	case boolPtrType:
		if v.IsNil() {
			return ""
		}
		return strconv.FormatBool(v.Elem().Bool())
	}
	return fmt.Sprint(v.Interface())
}
