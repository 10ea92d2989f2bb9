//go:build ibmmq

package ibmmq

import (
	"context"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// The backend suite's status case, with queue monitoring on: the oldest
// message's age and the last put come from the command server.
func TestBackendSuiteMonitored(t *testing.T) {
	mqtest.RunBackendSuite(t, mqtest.HarnessFunc(func(tb testing.TB) mqtest.Env {
		srv := mqsimtest.StartMonitored(tb)
		return mqtest.Env{Backend: New(), Target: srv.Target(), Faults: srv.Faults()}
	}))
}

// With MONQ on, INQUIRE_Q_STATUS says the queue is monitored; with it off
// (IBM's default) it says it is not.
func TestQueueStatusFollowsMONQ(t *testing.T) {
	for _, tc := range []struct {
		name      string
		start     func(testing.TB) *mqsimtest.Server
		monitored bool
	}{
		{"MONQ(MEDIUM)", mqsimtest.StartMonitored, true},
		{"MONQ(OFF)", mqsimtest.Start, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := New().Connect(ctx, srv.Target())
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer c.Close()
			q, err := c.OpenQueue(ctx, "DEV.QUEUE.1", mq.OpenOutput)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer q.Close()
			if _, err := q.Put(ctx, &mq.Message{Payload: []byte("x")}, mq.PutOptions{}); err != nil {
				t.Fatalf("put: %v", err)
			}
			st, err := c.InquireQueueStatus(ctx, "DEV.QUEUE.1")
			if err != nil {
				t.Fatalf("status: %v", err)
			}
			if st.Monitored != tc.monitored || st.CurrentDepth != 1 || (st.LastPut.IsZero() == tc.monitored) {
				t.Errorf("got %+v, want monitored %t, depth 1, last put only when monitored", st, tc.monitored)
			}
		})
	}
}
