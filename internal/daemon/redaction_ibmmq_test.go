//go:build ibmmq

package daemon_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemon/daemontest"
)

// TestRedactionIBMMQ: the same search with the password travelling through
// the IBM MQ client (MQCSP) on the real binding.
func TestRedactionIBMMQ(t *testing.T) {
	runRedaction(t, func(s *daemontest.Setup) {
		s.Cfg.MQ.Backend = config.BackendIBMMQ
		s.Opts.Backend = nil
		s.Cfg.Targets.Inline.Hosts = []string{"localhost:1414"}
		p := s.Cfg.Targets.Profiles["secured"]
		p.Channel, p.ConnName = "DEV.APP.SVRCONN", "localhost(1414)"
		s.Cfg.Targets.Profiles["secured"] = p
	})
}
