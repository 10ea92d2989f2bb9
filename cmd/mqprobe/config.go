package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

func configCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Inspect the configuration"}
	cmd.AddCommand(&cobra.Command{
		Use:   "print",
		Short: "Print the effective configuration as YAML, secrets redacted",
		Long: `Print the configuration mqprobe run would use: the built-in defaults,
overlaid by --config (or $MQPROBE_CONFIG), then by the MQPROBE_* variables,
with the settings that follow the mode filled in. Secrets (http.authToken, a
profile's auth, the password of idempotency.postgres.dsn) are replaced by
REDACTED. An invalid configuration fails as it would for run (exit 2).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			enc := yaml.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent(2)
			if err := enc.Encode(cfg.Redacted()); err != nil {
				return fmt.Errorf("config print: %w", err)
			}
			return enc.Close()
		},
	})
	return cmd
}
