package handlers

import (
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
)

func TestConnectionTestReportsQueueManager(t *testing.T) {
	f := newFixture(t)
	res, err := connectionTest(f.ctx, f.run(command.Command{OperationType: command.ConnectionTest}))
	if err != nil {
		t.Fatal(err)
	}
	r := res.(ConnectionResult)
	if !r.Connected || r.QueueManager != embedded.DefaultQueueManager || r.CommandLevel != embedded.DefaultCommandLevel ||
		r.Platform != "UNIX" || r.ConnectMs < 0 {
		t.Fatalf("result %+v", r)
	}
	keys := jsonKeys(t, r)
	for _, k := range []string{"connected", "queueManager", "commandLevel", "platform", "connectMs"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("result JSON lacks %q", k)
		}
	}
	if r.CCSID != 1208 || r.DeadLetterQueue == nil || r.DeadLetterQueue.Name != "DEV.DEAD.LETTER.QUEUE" ||
		r.DeadLetterQueue.CurrentDepth != 0 || r.Channel != nil || r.CommandServer != nil || !strings.Contains(r.Missing["channel"], "no channel") {
		t.Errorf("health: %+v", r)
	}
	if s := f.pool.Stats(f.target); s.InUse != 0 {
		t.Fatalf("connection not released: %+v", s)
	}
}

// TestConnectionTestWithoutCommandServer: a command server that refuses
// leaves the channel missing with why, and the test still passes.
func TestConnectionTestWithoutCommandServer(t *testing.T) {
	b := embedded.NewDefault()
	f := newFixtureWith(t, statusRefusingBackend{b, mq.ReasonNotAuthorized}, b)
	res, err := connectionTest(f.ctx, f.run(command.Command{OperationType: command.ConnectionTest}))
	if err != nil {
		t.Fatal(err)
	}
	r := res.(ConnectionResult)
	if !r.Connected || r.CommandServer == nil || r.CommandServer.Answered || !strings.Contains(r.CommandServer.Reason, "MQRC_NOT_AUTHORIZED") ||
		r.Missing["channel"] != r.CommandServer.Reason || r.DeadLetterQueue == nil {
		t.Errorf("result %+v", r)
	}
}

func TestConnectionTestReportsReason(t *testing.T) {
	f := newFixture(t)
	f.backend.Faults().RefuseConnect(mq.ReasonNotAuthorized)
	_, err := connectionTest(f.ctx, f.run(command.Command{OperationType: command.ConnectionTest}))
	mqtest.WantReason(t, err, mq.ReasonNotAuthorized)
}

func TestConnectionTestUnknownQueueManager(t *testing.T) {
	f := newFixture(t)
	run := f.run(command.Command{OperationType: command.ConnectionTest})
	run.Target.QueueManager = "QMX"
	_, err := connectionTest(f.ctx, run)
	// A name the backend does not have is a permanent mistake (2058), not an
	// outage to retry (2059), and the error names the ones it has.
	mqtest.WantReason(t, err, mq.ReasonQMgrNameError)
	if e, _ := mq.AsError(err); e.Transient() || !strings.Contains(err.Error(), `no queue manager "QMX"; it has QM1`) {
		t.Errorf("unknown queue manager: %v (transient %v), want a permanent error naming QM1", err, e.Transient())
	}
}
