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
	return ReadCheckpointCommitted(op, progress, 0)
}

// ReadCheckpointCommitted is ReadCheckpoint for an attempt known to have
// committed at least committed messages (its live counter, see
// inflight.Counters). A syncpoint CONSUME checkpoints a chunk's messages
// just before its MQCMIT, so its checkpoint's own count lags the commit by
// that chunk; the count read is the larger of the two, within the messages
// the checkpoint holds, and LastMsgID the message at it. PRODUCE
// checkpoints after committing, so its checkpoint is never behind.
func ReadCheckpointCommitted(op command.Operation, progress string, committed int64) (c Checkpointed, ok bool) {
	read := Describe(op).readCheckpoint
	if progress == "" || read == nil {
		return c, false
	}
	return read(progress, committed)
}

// readProduceCheckpoint reads a PRODUCE's checkpoint.
func readProduceCheckpoint(progress string, _ int64) (Checkpointed, bool) {
	var p produceProgress
	if json.Unmarshal([]byte(progress), &p) != nil {
		return Checkpointed{}, false
	}
	n := max(p.Committed, 0)
	return Checkpointed{Committed: n, FirstMsgID: p.FirstMsgID, LastMsgID: p.LastMsgID, Resumable: n > 0}, true
}

// readConsumeCheckpoint reads a CONSUME's checkpoint.
func readConsumeCheckpoint(progress string, committed int64) (c Checkpointed, ok bool) {
	var p consumeProgress
	if json.Unmarshal([]byte(progress), &p) != nil {
		return c, false
	}
	// Listed messages come first, then counted ones, then the unlisted
	// ones in doubt.
	listed := min(max(p.Committed, 0), len(p.Messages))
	final := listed + max(p.Counted, 0)
	known := len(p.Messages) + max(p.Counted, 0) + len(p.Doubt)
	c.Committed = int(min(max(int64(final), committed, 0), int64(known)))
	switch n := c.Committed; {
	case n == 0:
	case n <= len(p.Messages):
		c.LastMsgID = p.Messages[n-1].MsgIDBase64
	case n > len(p.Messages)+max(p.Counted, 0):
		c.LastMsgID = p.Doubt[n-len(p.Messages)-max(p.Counted, 0)-1]
	default:
		c.LastMsgID = p.LastCounted
	}
	if c.Committed > 0 && len(p.Messages) > 0 {
		c.FirstMsgID = p.Messages[0].MsgIDBase64
	}
	// Messages past Committed are in doubt; a resume settles them too.
	c.Resumable = known > 0
	return c, true
}
