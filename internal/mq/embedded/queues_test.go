package embedded

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestQueuesYAMLTakesNamesAndMappings(t *testing.T) {
	var qs Queues
	if err := yaml.Unmarshal([]byte("[A, {name: B, maxDepth: 7}, {name: C, maxMsgLength: 9}]"), &qs); err != nil {
		t.Fatal(err)
	}
	want := Queues{{Name: "A"}, {Name: "B", MaxDepth: 7}, {Name: "C", MaxMsgLength: 9}}
	if !reflect.DeepEqual(qs, want) {
		t.Fatalf("queues %+v, want %+v", qs, want)
	}
	out, err := yaml.Marshal(qs)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != "- A\n- name: B\n  maxDepth: 7\n- name: C\n  maxMsgLength: 9\n" {
		t.Errorf("written as\n%s", got)
	}
	if qs.String() != "A,B,C" {
		t.Errorf("String() = %q", qs.String())
	}
	for doc, want := range map[string]string{
		"A":                           "must be a list of strings",
		"[{name: A, depth: 3}]":       `entry 0: line 1: unknown queue key "depth"`,
		"[[A]]":                       "entry 0: line 1: a queue is its name or a mapping",
		"[{name: A, maxDepth: many}]": "entry 0: line 1: queue maxDepth",
	} {
		if err := yaml.Unmarshal([]byte(doc), &qs); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}
