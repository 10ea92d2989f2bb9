package handlers

import (
	"context"
	"fmt"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// DepthResult is DEPTH's data.result.
type DepthResult struct {
	CurrentDepth    int `json:"currentDepth"`
	MaxDepth        int `json:"maxDepth"`
	OpenInputCount  int `json:"openInputCount"`
	OpenOutputCount int `json:"openOutputCount"`
}

// depth inquires the queue's depth and open counts. The depth
// includes uncommitted messages, as MQ's CURDEPTH does.
func depth(ctx context.Context, run Run) (any, error) {
	var info mq.QueueInfo
	err := mqCall(ctx, run, "inquire", func(ctx context.Context) error {
		return readOnly(ctx, run, func(conn *mq.PooledConn) (err error) {
			info, err = mq.InquireQueue(ctx, conn, run.Queue)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("depth: inquire %s: %w", run.Queue, err)
	}
	run.Metrics.QueueDepth(ctx, run.Target.QueueManager, run.Queue, info.CurrentDepth)
	return DepthResult{
		CurrentDepth:    info.CurrentDepth,
		MaxDepth:        info.MaxDepth,
		OpenInputCount:  info.OpenInputCount,
		OpenOutputCount: info.OpenOutputCount,
	}, nil
}
