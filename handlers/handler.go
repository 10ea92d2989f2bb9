// Package handlers holds one handler per operation: a validated command and
// an acquired claim in, MQ work, a result out. Handlers know
// nothing of transports, idempotency stores or result events; the executor
// gives them a Run and publishes what they return.
package handlers

import (
	"context"

	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/inflight"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/telemetry"
)

// Run is everything a handler may use for one command.
type Run struct {
	Command command.Command
	// Target is the resolved connection target (queue manager, channel,
	// connName, TLS, credentials); Queue is the queue the command names.
	Target mq.Target
	Queue  string
	// AsyncPut lets PRODUCE put asynchronously where that is safe:
	// non-persistent messages, or persistent ones under syncpoint.
	AsyncPut bool
	// AllowQueue refuses another queue of Target's queue manager that the
	// target allowlist does not admit (REDRIVE's destinations); nil admits
	// any.
	AllowQueue func(queue string) error
	// Conns lends pooled connections; Close on a lent connection backs out
	// an open unit of work and returns it.
	Conns Connector
	// Progress is the checkpoint a previous attempt of this same command left
	// (after a takeover or a retry); empty on a first attempt.
	Progress string
	// Checkpoint stores progress with the idempotency record, fenced by the
	// lease: it fails (errors.Is idempotency.ErrLeaseLost) once the claim is
	// gone, and the handler must then back out and return.
	Checkpoint func(ctx context.Context, progress string) error
	// Metrics records MQ operations; nil records nothing.
	Metrics *telemetry.Metrics
	// Key is the command's idempotency key: a TEST's id.
	Key string
	// Tenant is the named tenant the command runs for ("" for the implicit
	// one): a TEST's id is its own only within its tenant.
	Tenant string
	// Report publishes an interim result (a TEST's progress event); nil
	// publishes nothing.
	Report func(ctx context.Context, result any)
	// Live is where PRODUCE and CONSUME report how far they have got, for
	// readers of the command's progress; nil reports nothing.
	Live *inflight.Counters
	// Started, when set, is called once the command runs where a caller can
	// watch and stop it (a TEST registered by its id): the transport then
	// answers that it started. nil when nobody waits for that.
	Started func()
}

// Connector lends connections; *mq.Pool is one.
type Connector interface {
	Acquire(ctx context.Context, t mq.Target) (*mq.PooledConn, error)
}

// Handler executes one operation. ctx is cancelled (cause
// idempotency.ErrLeaseLost) the moment the claim is lost: the handler must
// back out its open unit of work and return. The result is marshalled as
// the result event's data.result. MQ failures are returned as *mq.Error (the
// executor classifies them transient or permanent).
type Handler func(ctx context.Context, run Run) (result any, err error)
