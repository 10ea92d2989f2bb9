package configs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// TestProductDocsStandAlone: what ships — README, configs, Dockerfile, the
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
