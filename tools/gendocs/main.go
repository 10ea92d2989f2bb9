// Command gendocs writes the generated documents of the repository whose
// root is the working directory: configs/openapi.yaml, configs/asyncapi.yaml
// and docs/configuration.md. `make docs` runs it; tests fail
// while any of them differs from what it would write.
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/mqprobe/mqprobe/internal/apidoc"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/httpapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run() error {
	openapi, err := httpapi.OpenAPIYAML()
	if err != nil {
		return err
	}
	asyncapi, err := apidoc.AsyncAPIYAML()
	if err != nil {
		return err
	}
	if _, err := os.Stat("go.mod"); err != nil {
		return fmt.Errorf("run from the repository root: %w", err)
	}
	reference, err := config.ReferenceDocument()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{httpapi.OpenAPIFile, openapi}, {apidoc.AsyncAPIFile, asyncapi}, {config.ReferenceFile, []byte(reference)}} {
		if err := write(f.path, f.data); err != nil {
			return err
		}
	}
	return nil
}

// write replaces path's content when it differs, and says so.
func write(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Println("gendocs: wrote", path)
	return nil
}
