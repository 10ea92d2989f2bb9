package executor

import (
	"encoding/json"
	"strings"

	"github.com/mqprobe/mqprobe/internal/secrets"
)

// redactBody replaces, in a rejected command's JSON body, every value of a
// key naming a password or key store that is not a reference: a password
// pasted into passwordRef must not travel on in the result event.
func redactBody(body []byte) []byte {
	var doc any
	if json.Unmarshal(body, &doc) != nil || !redactSecrets(doc) {
		return body
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

func redactSecrets(v any) (changed bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			name := strings.ToLower(k)
			if s, ok := val.(string); ok && (strings.Contains(name, "password") || strings.Contains(name, "keystore")) && !secrets.IsReference(s) {
				v[k] = "<redacted>"
				changed = true
				continue
			}
			changed = redactSecrets(val) || changed
		}
	case []any:
		for _, e := range v {
			changed = redactSecrets(e) || changed
		}
	}
	return changed
}
