package handlers

// TestPlan is what a running TEST was asked to do, for those watching it:
// where it goes, for how long or how many, and how fast.
type TestPlan struct {
	Target          string `json:"target"` // QM:QUEUE
	ReplyQueue      string `json:"replyQueue,omitempty"`
	DurationSeconds int    `json:"durationSeconds,omitempty"`
	Count           int    `json:"count,omitempty"`
	RateLimitPerSec *int   `json:"rateLimitPerSec,omitempty"` // absent: as fast as it goes
	MessageSize     int    `json:"messageSizeBytes,omitempty"`
}

func testPlan(run Run) TestPlan {
	cmd := run.Command
	p := TestPlan{Target: run.Target.QueueManager + ":" + run.Queue, ReplyQueue: cmd.ReplyQueue,
		DurationSeconds: cmd.DurationSeconds, Count: cmd.Count}
	if cmd.Batch != nil {
		p.MessageSize = cmd.Batch.MessageSizeBytes
		p.RateLimitPerSec = cmd.Batch.RateLimitPerSec
	}
	return p
}
