//go:build ibmmq

package daemon_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
	"github.com/mqprobe/mqprobe/internal/mqsim/mqsimtest"
)

// TestRedactionIBMMQ: the same search with the password travelling through
// the IBM MQ client (MQCSP) on the real binding, over TCP to a queue
// manager server in this process.
func TestRedactionIBMMQ(t *testing.T) {
	srv := mqsimtest.Start(t)
	t.Setenv("MQSERVER", srv.MQSERVER()) // for the targets that name no host
	runRedaction(t, func(s *daemontest.Setup) {
		s.Cfg.MQ.Backend = config.BackendIBMMQ
		s.Opts.Backend = nil
		s.Cfg.Targets.Inline.Hosts = []string{"127.0.0.1"}
		p := s.Cfg.Targets.Profiles["secured"]
		p.Channel, p.ConnName = mqsimtest.Channel, srv.ConnName
		s.Cfg.Targets.Profiles["secured"] = p
	})
}
