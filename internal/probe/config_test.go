package probe

import (
	"strings"
	"testing"
	"time"

	"github.com/mqprobe/mqprobe/internal/mq"
)

func TestConfigDefaults(t *testing.T) {
	c := Config{Queue: "Q", Count: 1}
	c.setDefaults()
	if c.Putters != 1 || c.Getters != 1 || c.LossTimeout != DefaultLossTimeout || c.replyQueue() != "Q" {
		t.Errorf("defaults %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	c.ReplyQueue = "R"
	if c.replyQueue() != "R" {
		t.Errorf("reply queue %q, want R", c.replyQueue())
	}
}

func TestConfigValidateNamesFields(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Count: 1}, "queue is required"},
		{Config{Queue: strings.Repeat("Q", 49), Count: 1}, "queue must be at most 48"},
		{Config{Queue: "Q", Count: 1, ReplyQueue: strings.Repeat("R", 49)}, "replyQueue"},
		{Config{Queue: "Q"}, "duration or count is required"},
		{Config{Queue: "Q", Duration: -time.Second}, "duration must not be negative"},
		{Config{Queue: "Q", Count: -1}, "count must not be negative"},
		{Config{Queue: "Q", Count: 1, Rate: -1}, "rate"},
		{Config{Queue: "Q", Count: 1, Putters: MaxWorkers + 1}, "putters"},
		{Config{Queue: "Q", Count: 1, Getters: -1}, "getters"},
		{Config{Queue: "Q", Count: 1, MessageSize: MaxMessageSize + 1}, "messageSize"},
		{Config{Queue: "Q", Count: 1, LossTimeout: 2 * time.Minute}, "lossTimeout"},
		{Config{Queue: "Q", Count: 1, ProgressEvery: -1}, "progressEvery"},
		{Config{Queue: "Q", Count: 1, Target: mq.Target{QueueManager: "QM 1"}}, "target"},
	} {
		err := c.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error naming %q", c.cfg, err, c.want)
		}
	}
}
