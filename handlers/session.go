package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// openQueue borrows a connection and opens run.Queue on it. The caller
// closes the connection, which also closes the queue. A connection found
// broken at open (the queue manager restarted since it was pooled) is
// replaced once: nothing has been done on it yet, so retrying is safe.
func openQueue(ctx context.Context, run Run, op string, opts mq.OpenOption) (conn *mq.PooledConn, q mq.Queue, err error) {
	err = mqCall(ctx, run, "connect", func(ctx context.Context) error {
		for attempt := 1; ; attempt++ {
			if conn, err = run.Conns.Acquire(ctx, run.Target); err != nil {
				return fmt.Errorf("%s: connect: %w", op, withCause(ctx, err))
			}
			if q, err = conn.OpenQueue(ctx, run.Queue, opts); err == nil {
				return nil
			}
			conn.Close()
			if attempt == 1 && mq.IsConnectionBroken(err) && ctx.Err() == nil {
				continue
			}
			return fmt.Errorf("%s: open %s: %w", op, run.Queue, withCause(ctx, err))
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return conn, q, nil
}

// readOnly runs fn on a borrowed connection; fn only reads, so when the
// connection turns out broken it runs once more on a fresh one.
func readOnly(ctx context.Context, run Run, fn func(conn *mq.PooledConn) error) error {
	for attempt := 1; ; attempt++ {
		conn, err := run.Conns.Acquire(ctx, run.Target)
		if err != nil {
			return fmt.Errorf("connect: %w", withCause(ctx, err))
		}
		err = fn(conn)
		conn.Close()
		if err != nil && attempt == 1 && mq.IsConnectionBroken(err) && ctx.Err() == nil {
			continue
		}
		return withCause(ctx, err)
	}
}

// backout undoes the open unit of work after err. It does not use ctx: the
// usual reason to back out is that ctx has just been cancelled.
func backout(ctx context.Context, conn mq.Conn, err error) error {
	if berr := conn.Backout(context.WithoutCancel(ctx)); berr != nil {
		return errors.Join(err, fmt.Errorf("back out: %w", berr))
	}
	return err
}

// withCause adds ctx's cancellation cause to err once ctx has ended, so a
// call cut short by a lost lease reports the lost lease: errors.Is(err,
// idempotency.ErrLeaseLost) then holds.
func withCause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// syncpointLimitHint says which field of the command to lower when its
// unit of work outgrew the queue manager's MaxUncommittedMsgs (2024): a
// retry of the same command would meet the limit again.
func syncpointLimitHint(err error, field string, size int) error {
	if mq.IsReason(err, mq.ReasonSyncpointLimitReached) {
		return fmt.Errorf("%w (%s %d is more than the queue manager's MaxUncommittedMsgs allows in one unit of work: lower it)", err, field, size)
	}
	return err
}

// cancelled reports whether ctx is done, without blocking.
func cancelled(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// saveProgress stores v as the command's checkpoint. A Run without a
// Checkpoint (idempotency disabled) keeps no progress.
func saveProgress(ctx context.Context, run Run, v any) error {
	if run.Checkpoint == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode progress: %w", err)
	}
	if err := run.Checkpoint(ctx, string(b)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// loadProgress decodes a previous attempt's checkpoint into v; it reports
// false when there is none.
func loadProgress(run Run, v any) (bool, error) {
	if run.Progress == "" {
		return false, nil
	}
	if err := json.Unmarshal([]byte(run.Progress), v); err != nil {
		return false, fmt.Errorf("decode progress of a previous attempt: %w", err)
	}
	return true, nil
}
