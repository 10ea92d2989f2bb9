//go:build ibmmq

package ibmmq

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
)

// TestPutsPassCStructures: the binding in go.mod keeps the handles where
// newPutter reads them, so puts skip its MQMD and MQPMO conversions; a
// binding that moved them would fall back to MQObject.Put silently, at
// three times the instructions per put, without this test.
func TestPutsPassCStructures(t *testing.T) {
	e, c, q := openOnServer(t, "DEV.QUEUE.1")
	if q.(*queue).putter == nil {
		t.Fatal("the queue puts through the binding's MQObject.Put: newPutter found no hConn, hObj or hMsg")
	}
	res, err := q.Put(e.ctx, &mq.Message{Payload: []byte("x"), Format: "MQSTR", ReplyToQ: "R.Q",
		Properties: mq.Properties{"k": "v"}}, mq.PutOptions{})
	if err != nil || res.MsgID.IsZero() || res.PutTime.IsZero() {
		t.Fatalf("put: %+v, %v; want a MsgId and a put time", res, err)
	}
	in, err := c.OpenQueue(e.ctx, "DEV.QUEUE.1", mq.OpenInputShared)
	if err != nil {
		t.Fatal(err)
	}
	var got mq.Message
	if err := in.Get(e.ctx, &got, mq.GetOptions{MsgID: res.MsgID}); err != nil {
		t.Fatal(err)
	}
	if got.Format != "MQSTR" || got.ReplyToQ != "R.Q" || got.Properties["k"] != "v" || !got.PutTime.Equal(res.PutTime) {
		t.Errorf("got Format %q ReplyToQ %q properties %v PutTime %s; want what was put, at %s",
			got.Format, got.ReplyToQ, got.Properties, got.PutTime, res.PutTime)
	}
}
