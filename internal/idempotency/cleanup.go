package idempotency

import (
	"context"
	"time"
)

// Cleanup deletes expired records once. Stores with native expiry
// (DynamoDB TTL) need it only to tidy emulators.
func (e *Engine) Cleanup(ctx context.Context) (int64, error) {
	if e.disabled {
		return 0, nil
	}
	n, err := e.store.DeleteExpired(ctx, e.now())
	if err != nil {
		return n, storeError("cleanup", err)
	}
	return n, nil
}

// RunCleanup runs Cleanup every interval until ctx ends. Several processes
// may run it against one store at once.
func (e *Engine) RunCleanup(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			n, err := e.Cleanup(ctx)
			if err != nil {
				e.log.Error("idempotency cleanup failed", "error", err)
				continue
			}
			if n > 0 {
				e.log.Info("idempotency cleanup deleted expired records", "deleted", n)
			}
		}
	}
}
