//go:build ibmmq

package handlers

import (
	"fmt"
	"testing"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// A redrive through IBM's MQI (the ibmmq backend on the simulator) puts
// each message with the Format, CCSID and Encoding its MQDLH gives, and an
// MQI client gets them in the MQMD.
func TestIBMMQRedriveRestoresFormatCCSIDAndEncoding(t *testing.T) {
	srv := mqsimtest.Start(t)
	backend := ibmmq.New()
	f := newFixtureWith(t, backend, srv.Backend())
	f.putDead(fullAndUnknown(3, 0)...)
	run := f.redriveRun(command.Command{})
	run.Target = srv.Target()
	if res := f.redrive(run); res.Moved != 3 {
		t.Fatalf("result %+v, want 3 moved", res)
	}

	c, err := backend.Connect(f.ctx, srv.Target())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q, err := c.OpenQueue(f.ctx, "DEV.QUEUE.1", mq.OpenInputShared)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i := range 3 {
		var m mq.Message
		if err := q.Get(f.ctx, &m, mq.GetOptions{}); err != nil {
			t.Fatalf("get %d: %v", i, err)
		}
		if string(m.Payload) != fmt.Sprintf("full %d", i) || m.Format != mq.FormatString ||
			m.CCSID != originalCCSID || m.Encoding != originalEncoding {
			t.Errorf("message %d: payload %q format %q CCSID %d Encoding %d: want the header stripped and MQSTR, %d, %d restored",
				i, m.Payload, m.Format, m.CCSID, m.Encoding, originalCCSID, originalEncoding)
		}
	}
}
