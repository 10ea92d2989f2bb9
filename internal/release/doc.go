// Package release holds the tests of how users get mqprobe: `go install`
// of the module, as the README's install line runs it. `make release`
// builds the binaries, their checksums and SBOM (see the Makefile).
package release
