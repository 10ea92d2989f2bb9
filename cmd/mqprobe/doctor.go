package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/daemon"
)

func doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check what the daemon would use: AWS resources, the store, each MQ profile",
		Long: `Check, without a daemon and without writing a record, what mqprobe run
would use with this configuration, one line per check, in this order:

  aws mode: sqs.commandQueue (sqs:GetQueueAttributes), results.snsTopicArn
  (sns:GetTopicAttributes; where the endpoint does not implement it, that
  sns:ListTopics lists the topic) or results.sqsQueue, and
  idempotency.dynamodb.table (dynamodb:DescribeTable, ACTIVE);
  idempotency.store: it opens and answers a read (sqlite: the file can be
  created and opened for writing);
  targets.profiles.<name>: its queue manager accepts a connection and
  answers an inquiry, as a CONNECTION_TEST would.

It stops at the first check that fails and says what to fix.

Exit status: 0 every check passed; 1 a check failed; 2 bad usage or
configuration.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			err = daemon.Doctor(cmd.Context(), cfg, func(check, detail string) {
				fmt.Fprintf(out, "ok    %s: %s\n", check, detail)
			})
			var failed *daemon.DoctorError
			if errors.As(err, &failed) {
				fmt.Fprintf(out, "FAIL  %v\n      fix: %s\n", failed, failed.Fix)
				return &exitError{code: exitFailed, err: fmt.Errorf("doctor: %s failed", failed.Check)}
			}
			return err
		},
	}
}
