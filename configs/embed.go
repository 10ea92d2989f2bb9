// Package configs ships the documents the daemon serves or validates
// against, embedded so a single binary carries its own contract.
package configs

import "embed"

// Schemas holds the command JSON Schemas under schemas/.
//
//go:embed schemas/*.json
var Schemas embed.FS
