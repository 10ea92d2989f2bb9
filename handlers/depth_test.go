package handlers

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

func TestDepthReportsQueueAttributes(t *testing.T) {
	f := newFixture(t)
	f.putN(3)
	if _, err := f.conn().OpenQueue(f.ctx, testQueue, mq.OpenInputShared); err != nil {
		t.Fatal(err)
	}
	res, err := depth(f.ctx, f.run(command.Command{OperationType: command.Depth}))
	if err != nil {
		t.Fatal(err)
	}
	want := DepthResult{CurrentDepth: 3, MaxDepth: embedded.DefaultMaxDepth, OpenInputCount: 1, OpenOutputCount: 0}
	if res != want {
		t.Fatalf("got %+v, want %+v", res, want)
	}
	keys := jsonKeys(t, res)
	for _, k := range []string{"currentDepth", "maxDepth", "openInputCount", "openOutputCount"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("result JSON lacks %q", k)
		}
	}
}

func TestDepthUnknownQueue(t *testing.T) {
	f := newFixture(t)
	run := f.run(command.Command{OperationType: command.Depth})
	run.Queue = "NO.SUCH.QUEUE"
	_, err := depth(f.ctx, run)
	mqtest.WantReason(t, err, mq.ReasonUnknownObjectName)
}
