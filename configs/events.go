package configs

import "embed"

// Events holds the result event JSON Schema (SPEC §4) under events/.
//
//go:embed events/*.json
var Events embed.FS
