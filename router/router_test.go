package router

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/mqprobe/mqprobe/internal/testenv"
)

// oneMessage is a subscriber that delivers one message.
type oneMessage struct{ msg *message.Message }

func (s oneMessage) Subscribe(ctx context.Context, _ string) (<-chan *message.Message, error) {
	ch := make(chan *message.Message, 1)
	ch <- s.msg
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return ch, nil
}

func (oneMessage) Close() error { return nil }

// faultDelay is the redelivery delay of a faulted command in these tests.
const faultDelay = 7 * time.Second

// errPanic makes the test handler panic.
var errPanic = errors.New("panic")

// TestRedeliveryDecisions runs messages through watermill's router with the
// middleware New installs, and checks what each handler outcome does to the
// message: its ack or nack, the delay handed to the transport, and the log
// line's level (nothing undecided is an ERROR; a handler's fault or panic is, and comes back
// after the executor's retry delay).
func TestRedeliveryDecisions(t *testing.T) {
	cases := []struct {
		name      string
		err       error
		wantAck   bool
		wantDelay time.Duration
		wantLog   string // level=… and message of the line it must write
	}{
		{"done", nil, true, 0, ""},
		{"running elsewhere", &retryError{after: 2 * time.Second, err: errors.New("QM1#k is being executed"), expected: true},
			false, 2 * time.Second, `level=INFO msg="command redelivered later"`},
		{"transient failure", &retryError{after: 5 * time.Second, err: errors.New("MQRC_Q_MGR_QUIESCING (2161)")},
			false, 5 * time.Second, `level=WARN msg="command failed; it is retried"`},
		{"handler fault", errors.New("bug"), false, faultDelay, `level=ERROR msg="command faulted; it is retried"`},
		{"handler panic", errPanic, false, faultDelay, `level=ERROR msg="command faulted; it is retried"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs testenv.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			var delays []time.Duration
			var mu sync.Mutex
			transport := func(_ *message.Message, d time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				delays = append(delays, d)
			}
			msg := message.NewMessage(watermill.NewUUID(), []byte("{}"))
			msg.Metadata.Set(MetaMessageID, "m-1")
			r, err := message.NewRouter(message.RouterConfig{CloseTimeout: time.Second}, watermill.NewSlogLogger(log))
			if err != nil {
				t.Fatal(err)
			}
			r.AddMiddleware(redeliverLater(transport, faultDelay, log), middleware.Recoverer)
			r.AddConsumerHandler("commands", CommandsTopic, oneMessage{msg}, func(*message.Message) error {
				if c.err == errPanic {
					panic("bug")
				}
				return c.err
			})
			go func() { _ = r.Run(context.Background()) }()
			defer r.Close()
			var acked bool
			select {
			case <-msg.Acked():
				acked = true
			case <-msg.Nacked():
			case <-time.After(5 * time.Second):
				t.Fatal("neither acked nor nacked")
			}
			r.Close()
			if acked != c.wantAck {
				t.Errorf("acked %v, want %v", acked, c.wantAck)
			}
			mu.Lock()
			defer mu.Unlock()
			if c.wantDelay > 0 && (len(delays) == 0 || delays[0] != c.wantDelay) {
				t.Errorf("delays handed to the transport %v, want %s first", delays, c.wantDelay)
			}
			if c.wantDelay == 0 && len(delays) > 0 {
				t.Errorf("delays handed to the transport %v, want none", delays)
			}
			out := logs.String()
			if c.wantLog != "" && !strings.Contains(out, c.wantLog) {
				t.Errorf("log lacks %s:\n%s", c.wantLog, out)
			}
			if c.wantLog != `level=ERROR msg="command faulted; it is retried"` && strings.Contains(out, "level=ERROR") {
				t.Errorf("an ERROR line for a command left for redelivery:\n%s", out)
			}
		})
	}
}
