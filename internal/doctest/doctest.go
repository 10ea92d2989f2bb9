// Package doctest runs the shell examples of the project's Markdown
// documents and checks the output they show, so the documents cannot drift
// from the daemon.
//
// The convention, as a reader sees it in the Markdown source:
//
//   - A fenced block whose info string starts with "sh" is run. Words after
//     it are tags: "sh aws" is run against the AWS emulators, a plain "sh"
//     against an embedded daemon, "sh norun" not at all.
//   - A "text" block right after it (blank lines between are allowed) is the
//     output the block prints, stdout and stderr together. Each line must
//     match one output line in order; "…" in a line stands for any run of
//     characters, a line that is exactly "..." for any number of lines
//     (none included). Lines are compared without trailing spaces or
//     carriage returns.
//   - A block without a text block after it must still succeed (it runs
//     under bash -euo pipefail).
//   - Blocks run in document order, in one working directory; variables
//     and functions a block defines are seen by the blocks after it.
//
// Other fenced blocks ("yaml", "json", "text" not after a run block,
// "console") are not run.
package doctest

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Block is one runnable shell example of a document.
type Block struct {
	File string   // the document, as given to Blocks
	Line int      // 1-based line of the opening fence
	Tags []string // info-string words after "sh"
	// Script is the block's text.
	Script string
	// Want is the expected output (the following text block's lines), or nil
	// when the document shows none.
	Want []string
}

// HasTag reports whether the block's info string carries tag.
func (b Block) HasTag(tag string) bool { return slices.Contains(b.Tags, tag) }

// String names the block by file and line, as failures report it.
func (b Block) String() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

var fence = regexp.MustCompile("^(```+)\\s*(.*)$")

// Blocks returns the runnable blocks of a Markdown document, in order, each
// with the expected output of the text block that follows it. It fails on an
// unclosed fence, naming its line.
func Blocks(file string, markdown []byte) ([]Block, error) {
	type fenced struct {
		line int
		info []string
		body strings.Builder
		// follows: only blank lines separate it from the block before.
		follows bool
	}
	var all []*fenced
	var open *fenced
	var openFence string
	onlyBlank := false // since the last closing fence
	sc := bufio.NewScanner(bytes.NewReader(markdown))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch m := fence.FindStringSubmatch(line); {
		case open != nil && strings.TrimSpace(line) == openFence:
			all = append(all, open)
			open, onlyBlank = nil, true
		case open != nil:
			open.body.WriteString(line + "\n")
		case m != nil:
			open, openFence = &fenced{line: n, info: strings.Fields(m[2]), follows: onlyBlank}, m[1]
		case strings.TrimSpace(line) != "":
			onlyBlank = false
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: code block never closed", file, open.line)
	}
	isA := func(f *fenced, lang string) bool { return len(f.info) > 0 && f.info[0] == lang }
	var blocks []Block
	for i, f := range all {
		if !isA(f, "sh") {
			continue
		}
		b := Block{File: file, Line: f.line, Tags: f.info[1:], Script: f.body.String()}
		if i+1 < len(all) && all[i+1].follows && isA(all[i+1], "text") {
			b.Want = strings.Split(strings.TrimSuffix(all[i+1].body.String(), "\n"), "\n")
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// Match checks output against the expected lines want (see the package
// comment for "…" and "..."). The error shows the first expected line that
// could not be matched and the output it was compared with.
func Match(want []string, output string) error {
	got := strings.Split(strings.TrimRight(output, "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " \t\r")
	}
	patterns := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		w = strings.TrimRight(w, " \t\r")
		if w == "..." {
			continue
		}
		parts := strings.Split(w, "…")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		patterns[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	}
	// failure is where the attempt that got furthest stopped, for the
	// error: the furthest shown line, then the furthest output line it
	// failed to match (running out of output counts least).
	failure := struct{ wi, gi int }{-1, -1}
	rank := func(gi int) int {
		if gi >= len(got) {
			return -1
		}
		return gi
	}
	memo := map[[2]int]bool{}
	var match func(wi, gi int) bool
	match = func(wi, gi int) bool {
		key := [2]int{wi, gi}
		if done, seen := memo[key]; seen {
			return done
		}
		ok := false
		switch {
		case wi < len(want) && patterns[wi] == nil: // "...": skip none, one, or more lines
			for skip := gi; skip <= len(got) && !ok; skip++ {
				ok = match(wi+1, skip)
			}
		case wi < len(want):
			ok = gi < len(got) && patterns[wi].MatchString(got[gi]) && match(wi+1, gi+1)
		default:
			ok = gi == len(got)
		}
		if !ok && (wi == len(want) || patterns[wi] != nil) &&
			(wi > failure.wi || wi == failure.wi && rank(gi) > rank(failure.gi)) {
			failure.wi, failure.gi = wi, gi
		}
		memo[key] = ok
		return ok
	}
	if match(0, 0) {
		return nil
	}
	switch {
	case failure.wi == len(want):
		return fmt.Errorf("output line %d %q and the %d after it are not shown", failure.gi+1, clip(got[failure.gi]), len(got)-failure.gi-1)
	case failure.gi >= len(got):
		return fmt.Errorf("output ended before the shown line %d %q", failure.wi+1, clip(want[failure.wi]))
	default:
		return fmt.Errorf("shown line %d %q does not match output line %d %q", failure.wi+1, clip(want[failure.wi]), failure.gi+1, clip(got[failure.gi]))
	}
}

// clip shortens a line for an error message; the whole output is shown
// with it.
func clip(line string) string {
	const max = 120
	if r := []rune(line); len(r) > max {
		return string(r[:max]) + fmt.Sprintf("…(+%d)", len(r)-max)
	}
	return line
}
