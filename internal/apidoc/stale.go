package apidoc

import (
	"bytes"
	"fmt"
)

// Stale reports whether a generated file's content have differs from what
// `make docs` writes (want), naming the file and the first differing line.
func Stale(file string, have, want []byte) error {
	if bytes.Equal(have, want) {
		return nil
	}
	haveLines, wantLines := bytes.Split(have, []byte("\n")), bytes.Split(want, []byte("\n"))
	line := 0
	for line < len(haveLines) && line < len(wantLines) && bytes.Equal(haveLines[line], wantLines[line]) {
		line++
	}
	at := func(lines [][]byte) string {
		if line < len(lines) {
			return string(lines[line])
		}
		return "(end of file)"
	}
	return fmt.Errorf("%s is stale: run make docs (first difference at line %d: the file has %q, make docs writes %q)",
		file, line+1, at(haveLines), at(wantLines))
}
