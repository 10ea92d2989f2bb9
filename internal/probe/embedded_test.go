package probe

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

func newEmbeddedEnv(*testing.T) testEnv {
	b := embedded.NewDefault()
	return testEnv{
		backend:    b,
		target:     mq.Target{QueueManager: embedded.DefaultQueueManager},
		faults:     b.Faults(),
		queue:      "DEV.QUEUE.1",
		replyQueue: "DEV.QUEUE.2",
	}
}

func TestRunEmbedded(t *testing.T) { runBackendCases(t, newEmbeddedEnv) }
