package router

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/executor"
	"github.com/mqprobe/mqprobe/internal/outcome"
)

// TestSettlements pins how the bus settles every kind of outcome: a
// decided command is acked once its result is out, one left for later
// comes back, quietly when nothing is wrong.
func TestSettlements(t *testing.T) {
	want := map[outcome.Kind]settlement{
		outcome.Completed: ack, outcome.Failed: ack, outcome.Rejected: ack, outcome.Limited: ack, outcome.Replayed: ack,
		outcome.InProgress: redeliverExpected, outcome.RateLimited: redeliverExpected, outcome.Busy: redeliverExpected,
		outcome.FailedTransient: redeliverFailure, outcome.OutcomePending: redeliverFailure,
		outcome.Undecided: redeliverFailure, outcome.Unreadable: redeliverFailure,
	}
	for _, k := range outcome.Kinds {
		if got := settle(executor.Outcome{Kind: k}); got != want[k] {
			t.Errorf("%s: settled %d, want %d", k, got, want[k])
		}
		if k.Final() {
			if got := settle(executor.Outcome{Kind: k, Unpublished: true}); got != redeliverFailure {
				t.Errorf("%s with its result unpublished: settled %d, want a redelivery", k, got)
			}
		}
	}
	if len(want) != len(outcome.Kinds) {
		t.Errorf("the test names %d kinds, outcome has %d", len(want), len(outcome.Kinds))
	}
}
