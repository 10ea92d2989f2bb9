package executor_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/executor"
)

// TestReadOnlyCommandsClaimAsSuch: the store learns from the claim whether
// the command changes anything, so it may skip waiting for a read-only
// command's claim to be durable; a PRODUCE's claim never says so.
func TestReadOnlyCommandsClaimAsSuch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, newDecoder(t), executor.ReplayRepublish)
		for i, c := range []struct {
			msg  command.Input
			want bool
		}{
			{busMessage(`{"operationType":"DEPTH","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"}}`), true},
			{busMessage(`{"operationType":"CONSUME","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"browseOnly":true,"waitSeconds":0}`), true},
			{busMessage(`{"operationType":"CONSUME","target":{"queueManager":"QM1","queue":"DEV.QUEUE.1"},"waitSeconds":0}`), false},
			{produce(3), false},
		} {
			f.mu.Lock()
			f.claims = nil
			f.mu.Unlock()
			c.msg.IdempotencyKey = fmt.Sprint("read-only-", i) // each its own record
			f.completed(c.msg)
			f.mu.Lock()
			claims := f.claims
			f.mu.Unlock()
			if len(claims) != 1 || claims[0].ReadOnly != c.want {
				t.Errorf("%s: claims %+v, want one with ReadOnly %v", c.msg.Body, claims, c.want)
			}
		}
	})
}
