package executor

import "context"

// MergeCancel returns a context that carries values' values (deadline and
// cancellation excepted) and is cancelled only when work is, with work's
// cause: a command keeps running when the message or request that brought
// it goes away, and stops when the daemon's work context ends. The caller
// must call release once the command is done; it frees the link to work
// and cancels ctx.
func MergeCancel(values, work context.Context) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(values))
	stop := context.AfterFunc(work, func() { cancel(context.Cause(work)) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}
