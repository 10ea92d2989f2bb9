// Command mqserver runs the project's queue manager (the embedded backend's
// QM1, or the queue managers of a configuration file) as a TCP server of the
// mqserver protocol, for the project's MQ client library and the programs
// linked against it. It prints the address it listens on and stops cleanly
// on SIGTERM or SIGINT.
//
//	mqserver [-listen 127.0.0.1:1414] [-config configs/mqserver.yaml] [-data DIR]
//
// With a data directory (-data, or dataDir in the configuration file),
// committed persistent messages survive a restart of the server; without
// one every message lives in memory.
//
// Passwords of the users app and admin come from MQ_APP_PASSWORD and
// MQ_ADMIN_PASSWORD, as in IBM's MQ developer container.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mqprobe/mqprobe/internal/mqsim/mqserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mqserver:", err)
		os.Exit(2)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mqserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:1414", "`host:port` to listen on (port 0 picks a free one)")
	configPath := fs.String("config", "", "configuration `file` (default: QM1 with IBM's developer objects, see configs/mqserver.yaml)")
	dataDir := fs.String("data", "", "`directory` keeping committed persistent messages across restarts (overrides the file's dataDir; default: the file's, else memory only)")
	verbose := fs.Bool("v", false, "log every connection")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var cfg mqserver.Config
	if *configPath != "" {
		var err error
		if cfg, err = mqserver.LoadConfig(*configPath); err != nil {
			return err
		}
	}
	if *dataDir != "" {
		cfg.DataDir = *dataDir
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := mqserver.Listen(*listen, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mqserver listening on %s\n", srv.Addr())
	<-ctx.Done()
	return srv.Close()
}
