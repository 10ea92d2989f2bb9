package configs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestProductDocsStandAlone: what ships — README, docs/, configs, Dockerfile, the
// Go doc comments, the schemas and the API documents generated from them —
// explains itself and never sends a reader to the builders' specification
// or source documents, which are not part of a clone.
func TestProductDocsStandAlone(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pointer := regexp.MustCompile(`\bSPEC\b|shared/SPEC|\bseed 0\d\d\b`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".build", "testdata", "node_modules", "bin", "data":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, "_test.go") || !(strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, ".md") ||
			strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".json") || rel == "Dockerfile") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if pointer.MatchString(line) {
				t.Errorf("%s:%d points at the builders' documents: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDocsLinksResolve: every relative link of README.md and docs/*.md
// names a file of the repository and, with a #fragment, one of its
// headings (as GitHub spells heading anchors).
func TestDocsLinksResolve(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				t.Errorf("%s links outside the repository: %s", rel, target)
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			if !strings.HasPrefix(path, root+string(filepath.Separator)) {
				t.Errorf("%s: link %s leaves the repository", rel, target)
				continue
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: link %s: %v", rel, target, err)
				continue
			}
			if fragment != "" && !headingAnchors(string(body))[fragment] {
				t.Errorf("%s: link %s: no heading with that anchor", rel, target)
			}
		}
	}
}

// headingAnchors are the anchors GitHub gives a Markdown document's
// headings: lower case, spaces to hyphens, other punctuation dropped.
func headingAnchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	inCode := false
	for line := range strings.SplitSeq(markdown, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range title {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}
