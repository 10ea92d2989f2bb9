// Package mqsimtest runs the project's queue manager server (mqserver)
// inside a test process, for tests of the IBM MQ adapter: the adapter's MQ
// client library (internal/mqsim/clientlib in CI) connects to it over TCP
// as it would to any queue manager, and the test injects faults through the
// server's backend.
package mqsimtest

import (
	"fmt"
	"net"
	"testing"

	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/embedded"
	"github.com/mqprobe/mqprobe/internal/mq/mqtest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
)

// Channel and User are what Target connects with: IBM's developer channel
// and its user, who needs no password here, so any password is accepted.
const (
	Channel = mqserver.AppChannel
	User    = mqserver.AppUser
)

// outerMaxMsgLength is MAXMSGL of the server's channels and queue manager:
// IBM's largest, so a queue's own MAXMSGL (4 MiB) is the limit tests meet
// (2030, not the channel's 2010 or the queue manager's 2031).
const outerMaxMsgLength = 100 * 1024 * 1024

// Server is an mqserver listening on a free 127.0.0.1 port.
type Server struct {
	*mqserver.Server
	// ConnName is the server's MQCD ConnectionName, "127.0.0.1(port)".
	ConnName string
}

// Start serves IBM's developer queue manager QM1 (mqserver's default
// objects) on a free 127.0.0.1 port until tb's cleanup. Every start is a
// fresh queue manager.
func Start(tb testing.TB) *Server {
	tb.Helper()
	return start(tb, mqserver.DefaultChannels(), mqserver.TLSConfig{}, "")
}

// StartMonitored is Start with queue monitoring on (MONQ(MEDIUM)), so
// INQUIRE_Q_STATUS reports the oldest message's age, the queue times and
// the last put and get.
func StartMonitored(tb testing.TB) *Server {
	tb.Helper()
	return start(tb, mqserver.DefaultChannels(), mqserver.TLSConfig{}, "MEDIUM")
}

// start serves QM1 with the channels, TLS and MONQ given ("" is OFF).
func start(tb testing.TB, channels []mqserver.Channel, tlsConfig mqserver.TLSConfig, monq string) *Server {
	tb.Helper()
	qmgrs := mqserver.DefaultQueueManagers()
	for i := range qmgrs {
		qmgrs[i].MaxMsgLength = outerMaxMsgLength
	}
	backend, err := embedded.New(embedded.Config{QueueManagers: qmgrs})
	if err != nil {
		tb.Fatalf("mqsimtest: queue manager: %v", err)
	}
	for i := range channels {
		channels[i].MaxMsgLength = outerMaxMsgLength
	}
	srv, err := mqserver.Listen("127.0.0.1:0", mqserver.Config{
		Backend:  backend,
		Channels: channels,
		// Explicit users: the passwords of the machine's environment
		// (MQ_APP_PASSWORD) must not leak into tests.
		Users:           []mqserver.User{{Name: mqserver.AppUser}, {Name: mqserver.AdminUser, Password: "admin-password"}},
		TLS:             tlsConfig,
		QueueMonitoring: monq,
	})
	if err != nil {
		tb.Fatalf("mqsimtest: %v", err)
	}
	tb.Cleanup(func() { srv.Close() })
	addr := srv.Addr().(*net.TCPAddr)
	return &Server{Server: srv, ConnName: fmt.Sprintf("%s(%d)", addr.IP, addr.Port)}
}

// Target is QM1 on the server, through Channel as User.
func (s *Server) Target() mq.Target {
	return mq.Target{QueueManager: embedded.DefaultQueueManager, Channel: Channel, ConnName: s.ConnName,
		User: User, Password: "any-password-is-accepted"}
}

// MQSERVER is the value of the MQSERVER environment variable that makes an
// MQ client connect to the server when a target names no ConnName, as IBM's
// client reads it: CHANNEL/TCP/host(port).
func (s *Server) MQSERVER() string { return Channel + "/TCP/" + s.ConnName }

// Faults injects faults as mqtest.Faults describes: the queue manager's
// (embedded.Faults) for everything but BreakConnections, which drops the
// server's TCP connections as a network failure would.
func (s *Server) Faults() mqtest.Faults { return faults{s.Backend().Faults(), s.Server} }

type faults struct {
	*embedded.Faults
	server *mqserver.Server
}

func (f faults) BreakConnections() { f.server.BreakConnections() }

// Verdict logs an IBM program's result against the simulator in the form
// scripts/run-tests.sh collects into one summary line per program:
// "JUDGE <program>: <passed> passed, <failed> failed". A program run by
// several tests is summed there.
func Verdict(tb testing.TB, program string, passed, failed int) {
	tb.Helper()
	tb.Logf("JUDGE %s: %d passed, %d failed", program, passed, failed)
}
