//go:build ibmmq

package daemon

import (
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/mq/ibmmq"
)

// Built with -tags ibmmq, mq.backend: ibmmq connects through IBM's MQ client.
func init() {
	backendOpeners[config.BackendIBMMQ] = func(*config.Config) (mq.Backend, error) { return ibmmq.New(), nil }
}
