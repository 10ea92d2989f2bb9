package command

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/gowebpki/jcs"
)

// RequestHash fingerprints a JSON command: SHA-256, hex, of its RFC 8785
// canonical form, so key order, whitespace and number spelling (1, 1.0, 1e0)
// never make two equal commands differ. The caller removes transport-only
// fields and applies defaults first; Decode does both and sets
// Decoded.RequestHash.
func RequestHash(command []byte) (string, error) {
	canonical, err := jcs.Transform(command)
	if err != nil {
		return "", fmt.Errorf("canonicalize command: %w", err)
	}
	return HashCanonical(canonical), nil
}

// HashCanonical is RequestHash of a document already in RFC 8785 form.
func HashCanonical(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
