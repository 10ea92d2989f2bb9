package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/tracing"

	"github.com/mqprobe/mqprobe/internal/awsbus"
	"github.com/mqprobe/mqprobe/internal/command"
	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/mq"
	"github.com/mqprobe/mqprobe/internal/secrets"
	"github.com/mqprobe/mqprobe/internal/targets"
)

// doctorCheckTimeout bounds each of the doctor's checks.
const doctorCheckTimeout = 30 * time.Second

// DoctorError is the doctor's first failed check: what was checked, why
// it failed and what to fix.
type DoctorError struct {
	Check string
	Err   error
	Fix   string
}

func (e *DoctorError) Error() string {
	if msg := e.Err.Error(); strings.HasPrefix(msg, e.Check+" ") {
		return msg // a resource check's error names its key already
	}
	return fmt.Sprintf("%s: %v", e.Check, e.Err)
}

func (e *DoctorError) Unwrap() error { return e.Err }

// Doctor checks, without a daemon and without writing a record, what a
// daemon on cfg would use: in aws mode the command queue, the results topic
// or queue and the DynamoDB table (the readiness checks); the idempotency
// store opens and answers a read; each target profile's queue manager
// accepts a connection and answers an inquiry. It tells passed of each
// check as it passes and stops at the first that fails, returning a
// *DoctorError.
func Doctor(ctx context.Context, cfg *config.Config, passed func(check, detail string)) error {
	loadAWS := func(ctx context.Context) (aws.Config, error) { return awsbus.LoadConfig(ctx) }
	if cfg.Mode == config.ModeAWS {
		awsCfg, err := loadAWS(ctx)
		if err != nil {
			return &DoctorError{Check: "aws", Err: err, Fix: "set AWS_REGION and credentials the SDK can find"}
		}
		if err := doctorAWS(ctx, cfg, awsbus.NewResourceChecker(awsCfg, nil), passed); err != nil {
			return err
		}
	}
	if err := doctorStore(ctx, cfg, passed); err != nil {
		return err
	}
	return doctorProfiles(ctx, cfg, loadAWS, passed)
}

// doctorAWS runs the readiness checks of the AWS resources one by one.
func doctorAWS(ctx context.Context, cfg *config.Config, c *awsbus.ResourceChecker, passed func(check, detail string)) error {
	for _, check := range awsResourceChecks(cfg, c) {
		checkCtx, cancel := context.WithTimeout(ctx, doctorCheckTimeout)
		err := check.run(checkCtx)
		cancel()
		if err != nil {
			return &DoctorError{Check: check.key, Err: err, Fix: resourceFix(err)}
		}
		passed(check.key, check.resource+" exists and answers")
	}
	return nil
}

// resourceFix says what to do about a resource check's failure.
func resourceFix(err error) string {
	var re *awsbus.ResourceError
	switch {
	case !errors.As(err, &re):
		return "check the AWS endpoint and credentials"
	case re.Denied:
		return fmt.Sprintf("grant %s on %s to the role mqprobe runs as (the PolicyArn of configs/cloudformation.yaml grants what mqprobe calls)", re.Action, re.On)
	case !re.Answered:
		return "AWS did not answer: check the network path to its endpoint, then run doctor again"
	}
	return fmt.Sprintf("create it, or set %s to one that exists in this account and region", re.Key)
}

// doctorStore opens the configured store as the daemon would and reads
// one key, writing no record.
func doctorStore(ctx context.Context, cfg *config.Config, passed func(check, detail string)) error {
	const check = "idempotency.store"
	switch {
	case !cfg.Idempotency.Deduplicates():
		passed(check, "idempotency is disabled: no store")
		return nil
	case cfg.Idempotency.Store == config.StoreMemory:
		passed(check, "memory: lives inside the daemon")
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, doctorCheckTimeout)
	defer cancel()
	where := storeName(cfg)
	fix := "check the store's settings (idempotency.*) and that it is reachable"
	switch cfg.Idempotency.Store {
	case config.StoreSQLite:
		where += " " + cfg.Idempotency.SQLite.Path
		fix = "make idempotency.sqlite.path a file this user can create and write (its directory writable), or set it to one"
	case config.StoreDynamoDB:
		where += " table " + cfg.Idempotency.DynamoDB.Table
		fix = "run mqprobe store init, or grant dynamodb:GetItem on the table"
	}
	engine, closeStore, err := OpenRecords(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return &DoctorError{Check: check, Err: err, Fix: fix}
	}
	defer closeStore()
	if _, _, err := engine.Get(ctx, "HEALTH", "", "doctor"); err != nil {
		return &DoctorError{Check: check, Err: fmt.Errorf("%s: read: %w", where, err), Fix: fix}
	}
	passed(check, where+" opens and answers a read")
	return nil
}

// doctorProfiles connects to each target profile's queue manager, as a
// CONNECTION_TEST would, in name order.
func doctorProfiles(ctx context.Context, cfg *config.Config, loadAWS func(context.Context) (aws.Config, error), passed func(check, detail string)) error {
	if len(cfg.Targets.Profiles) == 0 {
		passed("targets.profiles", "none configured")
		return nil
	}
	backend, err := openBackend(cfg)
	if err != nil {
		return &DoctorError{Check: "mq.backend", Err: err, Fix: "set mq.backend to one this build has"}
	}
	secretsCfg := cfg.Secrets
	secretsCfg.Fetcher = &secretsManager{load: loadAWS, tracing: &tracing.NopTracerProvider{}}
	resolver := targets.NewResolver(cfg.Targets.Config(secrets.NewResolver(secretsCfg), cfg.MQ.Backend == config.BackendEmbedded))
	for _, name := range slices.Sorted(maps.Keys(cfg.Targets.Profiles)) {
		check := "targets.profiles." + name
		qm, err := connectProfile(ctx, resolver, backend, name)
		if err != nil {
			return &DoctorError{Check: check, Err: err,
				Fix: "check " + check + " (queueManager, connName, channel, auth, ssl) and that the queue manager is up and lets this user connect"}
		}
		passed(check, "connected to queue manager "+qm)
	}
	return nil
}

// connectProfile connects to the queue manager of profile name, inquires
// it and disconnects; it returns the queue manager's name.
func connectProfile(ctx context.Context, resolver *targets.Resolver, backend mq.Backend, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, doctorCheckTimeout)
	defer cancel()
	res, err := resolver.Resolve(ctx, command.Command{TargetRef: name})
	if err != nil {
		return "", err
	}
	conn, err := backend.Connect(ctx, res.Target)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", res.Target.QueueManager, err)
	}
	defer conn.Close()
	info, err := conn.InquireQueueManager(ctx)
	if err != nil {
		return "", fmt.Errorf("inquire %s: %w", res.Target.QueueManager, err)
	}
	return info.Name, nil
}
