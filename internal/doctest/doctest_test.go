package doctest

import (
	"context"
	"os"
	"strings"
	"testing"
)

const doc = "# Title\n\n```sh\necho one\n```\n\n```text\none\n```\n\n" +
	"```sh aws\necho two\n```\nprose\n```text\nnot expected: prose between\n```\n" +
	"```yaml\nkey: value\n```\n```sh\necho three\n```\n"

func TestBlocksPairsEachShellBlockWithTheTextBlockRightAfterIt(t *testing.T) {
	blocks, err := Blocks("doc.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("%d blocks, want 3: %+v", len(blocks), blocks)
	}
	if b := blocks[0]; b.Line != 3 || b.Script != "echo one\n" || strings.Join(b.Want, "|") != "one" || b.HasTag("aws") {
		t.Errorf("block 1: %+v", b)
	}
	if b := blocks[1]; b.Line != 11 || !b.HasTag("aws") || b.Want != nil {
		t.Errorf("block 2 (prose before its text block): %+v", b)
	}
	if b := blocks[2]; b.Script != "echo three\n" || b.Want != nil || b.String() != "doc.md:21" {
		t.Errorf("block 3: %+v %s", b, b)
	}
	if _, err := Blocks("bad.md", []byte("x\n```sh\necho\n")); err == nil || err.Error() != "bad.md:2: code block never closed" {
		t.Errorf("unclosed fence: %v", err)
	}
}

func TestMatch(t *testing.T) {
	out := "HTTP/1.1 201 Created\r\nIdempotent-Replay: true\r\n\r\n{\"status\":\"COMPLETED\",\"n\":3}\n"
	for _, tc := range []struct {
		want []string
		err  string // "" when it matches; else a part of the error
	}{
		{[]string{"HTTP/1.1 201 Created", "Idempotent-Replay: true", "", `{"status":"COMPLETED","n":3}`}, ""},
		{[]string{"HTTP/1.1 201 …", "...", `{…"status":"COMPLETED"…}`}, ""},
		{[]string{"...", `…"n":3}`}, ""},
		{[]string{"...", "HTTP/1.1 201 Created", "...", "Idempotent-Replay: true", "...", `{…}`, "..."}, ""},
		{[]string{"HTTP/1.1 201 Created"}, `output line 2 "Idempotent-Replay: true" and the 2 after it are not shown`},
		{[]string{"HTTP/1.1 200 OK", "..."}, `shown line 1 "HTTP/1.1 200 OK" does not match output line 1 "HTTP/1.1 201 Created"`},
		{[]string{"...", `{…"status":"FAILED"…}`}, `shown line 2 "{…\"status\":\"FAILED\"…}" does not match output line 4`},
		{[]string{"...", `{…}`, "more"}, `output ended before the shown line 3 "more"`},
		{[]string{"HTTP/1.1 201 Created", "Idempotent-Replay: tru"}, `shown line 2 "Idempotent-Replay: tru"`},
	} {
		err := Match(tc.want, out)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Match(%q) = %v, want a match", tc.want, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Match(%q) = %v, want an error with %s", tc.want, err, tc.err)
		}
	}
	if err := Match([]string{""}, ""); err != nil {
		t.Errorf("no output against one empty line: %v", err)
	}
}

func TestSessionCarriesVariablesAndFunctionsAndChecksOutput(t *testing.T) {
	dir := t.TempDir()
	s := &Session{Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Replace: []string{"127.0.0.1:8080", "127.0.0.1:9999"}}
	ctx := context.Background()
	blocks, err := Blocks("s.md", []byte("```sh\nB=http://127.0.0.1:8080\nexport C=3\ngreet() { echo \"hi $1\"; }\n```\n"+
		"```sh\necho \"$B $C\"; greet there\n```\n```text\nhttp://127.0.0.1:9999 3\nhi there\n```\n"+
		"```sh\necho changed\n```\n```text\nunchanged\n```\n"+
		"```sh\nfalse\necho never\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks[:2] {
		if err := s.Check(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Check(ctx, blocks[2]); err == nil || !strings.Contains(err.Error(), "s.md:13: the output is not the one shown") {
		t.Errorf("changed output: %v", err)
	}
	out, err := s.Run(ctx, blocks[3])
	if err == nil || strings.Contains(out, "never") {
		t.Errorf("a failing command: %v, output %q", err, out)
	}
}
