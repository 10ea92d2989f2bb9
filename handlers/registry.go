package handlers

import "github.com/mqprobe/mqprobe/internal/command"

// Registry maps each operation to its handler. TEST and
// STOP_TEST are not here yet.
func Registry() map[command.Operation]Handler {
	return map[command.Operation]Handler{
		command.Produce:        produce,
		command.Consume:        consume,
		command.Depth:          depth,
		command.ConnectionTest: connectionTest,
	}
}
