package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/internal/targets"
)

// Load reads the YAML file at path over the built-in defaults (path "" means
// no file: the embedded defaults), applies the MQPROBE_* variables in environ
// (normally os.Environ()), fills the settings that follow the mode and
// validates. It reports every problem it finds, each naming the key (and the
// file line or the variable).
func Load(path string, environ []string) (*Config, error) {
	c := defaults()
	var errs []error
	if path != "" {
		errs = append(errs, c.loadFile(path))
	}
	errs = append(errs, c.applyEnv(environ))
	// Validating on top of unknown keys or unparsable values would mostly
	// report their consequences, so stop here.
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c.setDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) loadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file: all defaults
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: want one YAML document, found more", path)
	}
	d := fileDecoder{path: path}
	d.decode(doc.Content[0], reflect.ValueOf(c).Elem(), "")
	return errors.Join(d.errs...)
}

// fileDecoder walks the YAML tree alongside the Config type, instead of
// letting yaml.v3 decode the whole struct, so that every error (unknown key,
// wrong type) carries the dotted key and not only a line and a Go type.
type fileDecoder struct {
	path string
	errs []error
}

func (d *fileDecoder) fail(n *yaml.Node, key, format string, args ...any) {
	if key == "" {
		key = "(document)"
	}
	d.errs = append(d.errs, fmt.Errorf("%s:%d: %s: %s", d.path, n.Line, key, fmt.Sprintf(format, args...)))
}

func (d *fileDecoder) decode(n *yaml.Node, v reflect.Value, key string) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // "key:" with nothing after it keeps the default
	}
	t := v.Type()
	switch {
	case isLeaf(t):
		err := n.Decode(v.Addr().Interface())
		switch {
		case err == nil:
		case reflect.PointerTo(t).Implements(unmarshalerType):
			d.fail(n, key, "%v", err) // the type says what it wants
		default:
			d.fail(n, key, "must be %s (got %s)", typeRule(t), describe(n))
		}
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			d.fail(n, key, "must be a mapping (got %s)", describe(n))
			return
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			k := joinKey(key, kn.Value)
			if seen[kn.Value] {
				d.fail(kn, k, "duplicate key")
				continue
			}
			seen[kn.Value] = true
			idx, ok := fieldIndex(t, kn.Value)
			if why, removed := removedKeys[t][kn.Value]; !ok && removed {
				d.fail(kn, k, "%s", why)
				continue
			}
			if !ok {
				d.fail(kn, k, "unknown key%s", suggestField(t, key, kn.Value))
				continue
			}
			d.decode(vn, v.FieldByIndex(idx), k)
		}
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.fail(n, key, "must be a mapping of names (got %s)", describe(n))
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if seen[kn.Value] {
				d.fail(kn, key+"."+kn.Value, "duplicate key")
				continue
			}
			seen[kn.Value] = true
			name := reflect.ValueOf(kn.Value)
			elem := reflect.New(t.Elem()).Elem()
			if old := v.MapIndex(name); old.IsValid() {
				elem.Set(old)
			}
			d.decode(vn, elem, key+"."+kn.Value)
			v.SetMapIndex(name, elem)
		}
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, key, "must be a list (got %s)", describe(n))
			return
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, en := range n.Content {
			d.decode(en, s.Index(i), key+"["+strconv.Itoa(i)+"]")
		}
		v.Set(s)
	}
}

// fieldIndex finds the field of key name, inline fields included.
func fieldIndex(t reflect.Type, name string) ([]int, bool) {
	for _, f := range yamlFields(t) {
		if yamlName(f) == name {
			return f.Index, true
		}
	}
	return nil, false
}

// removedKeys are keys once accepted, by the struct that held them, with
// why they are gone: a file still setting one is told why, not "unknown key".
var removedKeys = map[reflect.Type]map[string]string{
	reflect.TypeFor[targets.SSLConfig](): {"trustStoreRef": "is not supported: the IBM MQ client trusts the CA certificates " +
		"in its key repository; add them to the one ssl.keyStoreRef names"},
}

// suggestField names the key a typo most likely meant: the same letters in
// another case or at most two edits away, else a key that abbreviates what
// was written (http.addr for http.address or http.adress).
func suggestField(t reflect.Type, key, name string) string {
	best, bestDist := "", 3
	lower := strings.ToLower(name)
	for _, f := range yamlFields(t) {
		n := yamlName(f)
		// Short keys are a few edits from anything: only suggest close matches.
		if d := editDistance(strings.ToLower(n), lower); d < bestDist && 3*d <= len(name) {
			best, bestDist = n, d
		}
	}
	for _, f := range yamlFields(t) {
		if n := yamlName(f); best == "" && len(n) >= 4 && len(name) > len(n) && prefixDistance(strings.ToLower(n), lower) <= 1 {
			best = n
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", joinKey(key, best))
}

func typeRule(t reflect.Type) string {
	switch t {
	case durationType:
		return "a duration such as 30s or 24h"
	case stringsType:
		return "a list of strings"
	case boolPtrType:
		return "true or false"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	}
	return "a string"
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// applyEnv sets the keys named by MQPROBE_* variables. Variables matching no
// key are errors (typos must not be silently ignored), except NonConfigEnv.
func (c *Config) applyEnv(environ []string) error {
	vars := map[string]string{}
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(name, EnvPrefix) && !isNonConfigEnv(name) {
			vars[name] = val
		}
	}
	if len(vars) == 0 {
		return nil
	}
	var errs []error
	known := map[string]string{} // variable → key, for ambiguity and suggestions
	walk(reflect.ValueOf(c).Elem(), "", EnvPrefix[:len(EnvPrefix)-1], false, func(l leaf) {
		if l.env == "" {
			return
		}
		if other, dup := known[l.env]; dup {
			if _, set := vars[l.env]; set {
				errs = append(errs, fmt.Errorf("%s: ambiguous, names both %s and %s", l.env, other, l.key))
			}
			return
		}
		known[l.env] = l.key
		if val, ok := vars[l.env]; ok {
			if err := setFromString(l.val, val); err != nil {
				errs = append(errs, fmt.Errorf("%s (%s): %v", l.env, l.key, err))
			}
		}
	})
	var unknown []string
	for name := range vars {
		if _, ok := known[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		errs = append(errs, fmt.Errorf("%s: no configuration key matches this variable%s", name, suggestEnv(name, known)))
	}
	return errors.Join(errs...)
}

func isNonConfigEnv(name string) bool {
	for _, n := range NonConfigEnv {
		if name == n || strings.HasSuffix(n, "_") && strings.HasPrefix(name, n) {
			return true
		}
	}
	return false
}

// suggestEnv names the closest known variable when it is one or two edits
// away (MQPROBE_HTTP_ADR → MQPROBE_HTTP_ADDR).
func suggestEnv(name string, known map[string]string) string {
	best, bestDist := "", 3
	for k := range known {
		if d := editDistance(name, k); d < bestDist || d == bestDist && k < best {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	if strings.HasPrefix(name, EnvPrefix+"TARGETS_PROFILES_") {
		return " (a profile must be declared in the config file before variables can set its fields)"
	}
	if strings.HasPrefix(name, EnvPrefix+"HTTP_TOKENS_") {
		return " (a tenant must be declared in the config file before variables can set its fields)"
	}
	return ""
}

func editDistance(a, b string) int {
	return editDistances(a, b)[len(b)]
}

// prefixDistance is the fewest edits that turn a into some prefix of b.
func prefixDistance(a, b string) int { return slices.Min(editDistances(a, b)) }

// editDistances are the Levenshtein distances from a to each prefix of b,
// b[:0] to b.
func editDistances(a, b string) []int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev
}

// setFromString parses an environment value into the leaf's type; lists are
// comma-separated.
func setFromString(v reflect.Value, s string) error {
	switch v.Type() {
	case durationType:
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("must be a duration such as 30s or 24h (got %q)", s)
		}
		v.SetInt(int64(d))
		return nil
	case stringsType:
		list := []string{}
		for part := range strings.SplitSeq(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				list = append(list, part)
			}
		}
		v.Set(reflect.ValueOf(list))
		return nil
	case boolPtrType:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("must be true or false (got %q)", s)
		}
		v.Set(reflect.ValueOf(&b))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("must be an integer (got %q)", s)
		}
		v.SetInt(int64(n))
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("must be true or false (got %q)", s)
		}
		v.SetBool(b)
	}
	return nil
}
