package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/mqprobe/mqprobe/handlers"
	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/idempotency"
)

// OpenRecords opens the configured idempotency store without a daemon, for
// inspecting, listing and evicting records (mqprobe store get/list/evict),
// and returns an engine over it whose audit lines go to log, and the func
// that closes the store. The memory store lives inside a daemon process,
// and a disabled engine has no store: both are errors.
func OpenRecords(ctx context.Context, cfg *config.Config, log *slog.Logger) (*idempotency.Engine, func() error, error) {
	if !cfg.Idempotency.Deduplicates() {
		return nil, nil, errors.New("idempotency is disabled (idempotency.enabled=false): there are no records")
	}
	if cfg.Idempotency.Store == config.StoreMemory {
		return nil, nil, errors.New("idempotency.store is memory: its records live inside the running daemon; use its HTTP API (GET /idempotency)")
	}
	s, err := openStore(ctx, cfg, func(ctx context.Context) (aws.Config, error) { return awsbus.LoadConfig(ctx) }, nil)
	if err != nil {
		return nil, nil, err
	}
	engine, err := idempotency.New(s, cfg.Idempotency.Config, log, idempotency.WithCheckpointReader(readCheckpoint))
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("idempotency: %w", err)
	}
	return engine, s.Close, nil
}

// readCheckpoint is the engine's checkpoint reader over the handlers'
// checkpoints: what a PRODUCE's or CONSUME's record says is committed, and
// whether a retry resumes from it.
func readCheckpoint(operationType, progress string) (committed int, resumable bool) {
	cp, ok := handlers.ReadCheckpoint(command.Operation(operationType), progress)
	return cp.Committed, ok && cp.Resumable
}
