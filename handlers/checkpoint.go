package handlers

import (
	"encoding/json"

	"github.com/mqprobe/mqprobe/internal/command"
)

// Checkpointed is what a PRODUCE's or CONSUME's checkpoint says the command
// has done, over all its attempts.
type Checkpointed struct {
	// Committed messages are final: put and committed, or got and committed.
	Committed int
	// FirstMsgID and LastMsgID (base64) are the first and last of them.
	FirstMsgID string
	LastMsgID  string
	// Resumable reports that another attempt of the same command takes over
	// from the checkpoint rather than starting again.
	Resumable bool
}

// ReadCheckpoint reads the checkpoint progress of an op command left (the
// string its Run.Checkpoint stored). ok is false for an operation that
// does not checkpoint, and for an empty or unreadable checkpoint.
func ReadCheckpoint(op command.Operation, progress string) (c Checkpointed, ok bool) {
	if progress == "" {
		return c, false
	}
	switch op {
	case command.Produce:
		var p produceProgress
		if json.Unmarshal([]byte(progress), &p) != nil {
			return c, false
		}
		committed := max(p.Committed, 0)
		return Checkpointed{Committed: committed, FirstMsgID: p.FirstMsgID, LastMsgID: p.LastMsgID, Resumable: committed > 0}, true
	case command.Consume:
		var p consumeProgress
		if json.Unmarshal([]byte(progress), &p) != nil {
			return c, false
		}
		c.Committed = min(max(p.Committed, 0), len(p.Messages))
		if c.Committed > 0 {
			c.FirstMsgID, c.LastMsgID = p.Messages[0].MsgIDBase64, p.Messages[c.Committed-1].MsgIDBase64
		}
		// Messages past Committed are in doubt; a resume settles them too.
		c.Resumable = len(p.Messages) > 0
		return c, true
	}
	return c, false
}
