package result_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/result"
)

// TestInvalidKeyIsOneCode: a key the engine refuses reads the same as one
// the decoder refuses.
func TestInvalidKeyIsOneCode(t *testing.T) {
	if result.CodeInvalidKey != string(command.CodeInvalidKey) {
		t.Errorf("result.CodeInvalidKey %q, command.CodeInvalidKey %q", result.CodeInvalidKey, command.CodeInvalidKey)
	}
}
