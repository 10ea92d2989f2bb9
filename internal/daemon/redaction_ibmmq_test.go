//go:build ibmmq

package daemon_test

import (
	"testing"

	"github.com/mqprobe/mqprobe/internal/config"
)

// TestRedactionIBMMQ: the same search with the password travelling through
// the IBM MQ client (MQCSP) on the real binding.
func TestRedactionIBMMQ(t *testing.T) {
	runRedaction(t, func(s *setup) {
		s.cfg.MQ.Backend = config.BackendIBMMQ
		s.opts.Backend = nil
		s.cfg.Targets.Inline.Hosts = []string{"localhost:1414"}
		p := s.cfg.Targets.Profiles["secured"]
		p.Channel, p.ConnName = "DEV.APP.SVRCONN", "localhost(1414)"
		s.cfg.Targets.Profiles["secured"] = p
	})
}
