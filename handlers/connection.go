package handlers

import (
	"context"
	"fmt"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// ConnectionResult is CONNECTION_TEST's data.result.
type ConnectionResult struct {
	Connected    bool    `json:"connected"`
	QueueManager string  `json:"queueManager"`
	CommandLevel int     `json:"commandLevel"`
	Platform     string  `json:"platform"` // MQPL_* without the prefix, e.g. UNIX
	ConnectMs    float64 `json:"connectMs"`
}

// connectionTest connects, inquires the queue manager and disconnects.
// ConnectMs is the time to obtain a connection from the pool: a new
// connect when the pool has no idle one, near zero when it reuses one. The
// inquire proves the queue manager answers either way.
func connectionTest(ctx context.Context, run Run) (any, error) {
	var (
		info        mq.QueueManagerInfo
		connectTime time.Duration
	)
	start := time.Now()
	err := mqCall(ctx, run, "connect", func(ctx context.Context) error {
		return readOnly(ctx, run, func(conn *mq.PooledConn) (err error) {
			connectTime = time.Since(start)
			info, err = conn.InquireQueueManager(ctx)
			start = time.Now() // a retry measures its own connect
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("connection test: %w", err)
	}
	return ConnectionResult{
		Connected:    true,
		QueueManager: info.Name,
		CommandLevel: info.CommandLevel,
		Platform:     info.Platform.String(),
		ConnectMs:    microsToMs(connectTime.Microseconds()),
	}, nil
}
