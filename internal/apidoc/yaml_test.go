package apidoc_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mqprobe/mqprobe/internal/apidoc"
)

// TestYAMLKeepsEveryValue: the YAML reads back as the same JSON values,
// including strings YAML would otherwise take for numbers, booleans or
// null, and keeps the order of keyOrder.
func TestYAMLKeepsEveryValue(t *testing.T) {
	doc := `{"components":{"schemas":{"x":{"type":"string","title":"X","enum":["true","null","1.0","0x1F","yes","~",""]}}},
		"paths":{"/a":{"get":{"responses":{"201":{"description":"multi\nline: text"}}}}},
		"openapi":"3.1.0","n":[1,-2.5,1e3,null,true],"empty":{},"none":[],"nested":[{"a":1},[]],
		"quote":"it's \"quoted\" # not a comment","colon":"a: b","lead":" space","unicode":"§7.5 ✓"}`
	out, err := apidoc.YAML([]byte(doc), "a header")
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	if !strings.HasPrefix(text, "# a header\n") {
		t.Errorf("no header comment:\n%s", text)
	}
	if strings.Index(text, "openapi:") > strings.Index(text, "components:") ||
		strings.Index(text, "title: X") > strings.Index(text, "type: string") {
		t.Errorf("keys out of order:\n%s", text)
	}
	var fromYAML any
	if err := yaml.Unmarshal(out, &fromYAML); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	normalised, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	var got, want any
	if err := json.Unmarshal(normalised, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%v\nwant\n%v\nfrom\n%s", got, want, text)
	}
}
