package configs

import "embed"

// Events holds the result event JSON Schema under events/.
//
//go:embed events/*.json
var Events embed.FS
