package handlers

import (
	"cmp"
	"context"
	"fmt"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// DepthResult is DEPTH's data.result. The counts are those of the local
// queue that holds the named queue's messages on this queue manager: the
// queue itself, an alias's base queue, or a remote definition's
// transmission queue. They are absent (nil) when no local queue does: a
// cluster queue hosted elsewhere, a remote definition whose transmission
// queue is not defined here.
type DepthResult struct {
	CurrentDepth    *int `json:"currentDepth,omitempty"`
	MaxDepth        *int `json:"maxDepth,omitempty"`
	OpenInputCount  *int `json:"openInputCount,omitempty"`
	OpenOutputCount *int `json:"openOutputCount,omitempty"`
	// QueueType is the named queue's type: local, alias, remote, cluster.
	QueueType string `json:"queueType"`
	// BaseQueue is an alias's target, whose counts are reported.
	BaseQueue string `json:"baseQueue,omitempty"`
	// RemoteQueue and RemoteQueueManager are where a remote definition
	// (the queue named or an alias's base) sends its messages;
	// TransmissionQueue is the local queue holding them until the channel
	// moves them, whose counts are reported.
	RemoteQueue        string `json:"remoteQueue,omitempty"`
	RemoteQueueManager string `json:"remoteQueueManager,omitempty"`
	TransmissionQueue  string `json:"transmissionQueue,omitempty"`
}

// depth inquires the queue's depth and open counts, following an alias to
// its base queue and a remote definition to its transmission queue. The
// depth includes uncommitted messages, as MQ's CURDEPTH does.
func depth(ctx context.Context, run Run) (any, error) {
	var res DepthResult
	var counted string
	err := mqCall(ctx, run, "inquire", func(ctx context.Context) error {
		return readOnly(ctx, run, func(conn *mq.PooledConn) (err error) {
			res, counted, err = inquireDepth(ctx, conn, run.Queue)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("depth: inquire %s: %w", run.Queue, err)
	}
	if res.CurrentDepth != nil {
		run.Metrics.QueueDepth(ctx, run.Target.QueueManager, counted, *res.CurrentDepth)
	}
	return res, nil
}

// inquireDepth builds DEPTH's result for queue and names the local queue
// whose counts it holds ("" when none).
func inquireDepth(ctx context.Context, conn mq.Conn, queue string) (DepthResult, string, error) {
	info, err := mq.InquireQueue(ctx, conn, queue)
	if err != nil {
		return DepthResult{}, "", err
	}
	res := DepthResult{QueueType: info.Type.String()}
	if info.Type == mq.QueueAlias {
		// An alias's base is a local, remote or cluster queue, never
		// another alias.
		res.BaseQueue = info.BaseQueue
		if info, err = mq.InquireQueue(ctx, conn, info.BaseQueue); err != nil {
			return DepthResult{}, "", fmt.Errorf("alias %s: base queue %s: %w", queue, res.BaseQueue, err)
		}
	}
	if info.Type == mq.QueueRemote {
		res.RemoteQueue, res.RemoteQueueManager = info.RemoteQueue, info.RemoteQueueManager
		// A blank XMITQ means the local queue named like the remote
		// queue manager.
		implied := info.TransmissionQueue == ""
		xmitq := cmp.Or(info.TransmissionQueue, info.RemoteQueueManager)
		if xmitq == "" {
			return res, "", nil // a queue-manager alias: nothing is held here
		}
		info, err = mq.InquireQueue(ctx, conn, xmitq)
		switch {
		case mq.IsReason(err, mq.ReasonUnknownObjectName) && implied:
			// Not defined: the queue manager routes by its default
			// transmission queue or a cluster, which DEPTH does not follow.
			return res, "", nil
		case err != nil:
			return DepthResult{}, "", fmt.Errorf("remote queue %s: transmission queue %s: %w", queue, xmitq, err)
		}
		res.TransmissionQueue = xmitq
	}
	if info.Type != mq.QueueLocal {
		return res, "", nil
	}
	res.CurrentDepth, res.MaxDepth = &info.CurrentDepth, &info.MaxDepth
	res.OpenInputCount, res.OpenOutputCount = &info.OpenInputCount, &info.OpenOutputCount
	return res, info.Name, nil
}
