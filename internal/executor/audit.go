package executor

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/mqprobe/mqprobe/internal/result"
)

// outcomeName is the counter and audit name of an outcome.
func outcomeName(out Outcome) string {
	switch {
	case out.Replay:
		return "replayed"
	case out.Status == result.StatusInProgress:
		return "in_progress"
	case out.Status == "":
		return "undecided"
	case out.Status == result.StatusFailed && !out.Ack:
		return "failed_transient"
	}
	return map[result.Status]string{result.StatusCompleted: "completed", result.StatusFailed: "failed",
		result.StatusRejected: "rejected"}[out.Status]
}

// audit writes the one line per command SPEC §11 asks for and counts it.
func (x *Executor) audit(j *job, out Outcome) {
	name := outcomeName(out)
	c, _ := x.counts.LoadOrStore(name, new(int64))
	atomic.AddInt64(c.(*int64), 1)
	attrs := []any{"key", j.dec.IdempotencyKey, "operation", j.dec.Command.OperationType, "outcome", name,
		"transport", j.in.Transport}
	if j.target.Queue != "" {
		attrs = append(attrs, "target", j.target.String())
	}
	if out.Event != nil && out.Event.Data.Error != nil {
		attrs = append(attrs, "code", out.Event.Data.Error.Code)
	}
	level := slog.LevelInfo
	if out.Err != nil {
		attrs = append(attrs, "error", out.Err)
		level = slog.LevelWarn
	}
	x.Log.Log(context.Background(), level, "command", attrs...)
}

// Counts returns how many commands ended in each outcome.
func (x *Executor) Counts() map[string]int64 {
	out := map[string]int64{}
	x.counts.Range(func(k, v any) bool {
		out[k.(string)] = atomic.LoadInt64(v.(*int64))
		return true
	})
	return out
}
