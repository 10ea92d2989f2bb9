package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/daemon"
)

func storeCommand() *cobra.Command {
	store := &cobra.Command{Use: "store", Short: "Manage the idempotency store"}
	store.AddCommand(&cobra.Command{
		Use:   "init",
		Short: "Create the configured store's schema or table, idempotently",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			desc, err := daemon.InitStore(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), desc)
			return nil
		},
	})
	return store
}
