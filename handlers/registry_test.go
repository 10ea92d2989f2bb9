package handlers

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
)

func TestRegistryCoversTheMQOperations(t *testing.T) {
	r := Registry()
	for _, op := range []command.Operation{command.Produce, command.Consume, command.Depth, command.ConnectionTest} {
		if r[op] == nil {
			t.Errorf("no handler for %s", op)
		}
	}
}
