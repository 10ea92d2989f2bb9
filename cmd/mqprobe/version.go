package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Build identity, set with -ldflags "-X main.version=... -X main.commit=...
// -X main.buildDate=... -X main.mqClientVersion=..." (the Dockerfile and
// the Makefile do). Unset values fall back to what the Go toolchain
// recorded in the binary.
var (
	version         = ""
	commit          = ""
	buildDate       = ""
	mqClientVersion = "" // the IBM MQ client the ibmmq build was linked against
)

// buildInfo is what mqprobe version prints.
type buildInfo struct {
	Version   string
	Commit    string
	BuildDate string
	GoVersion string
	// IBMMQ is whether the IBM MQ backend (build tag ibmmq) is compiled in.
	IBMMQ bool
	// MQClient is the IBM MQ client version, when IBMMQ and known.
	MQClient string
	// MQGolang is the version of github.com/ibm-messaging/mq-golang linked
	// in, when IBMMQ.
	MQGolang string
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Commit: commit, BuildDate: buildDate, GoVersion: runtime.Version(),
		IBMMQ: ibmmqCompiledIn, MQClient: mqClientVersion}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.BuildDate == "":
				b.BuildDate = s.Value
			case s.Key == "vcs.modified" && s.Value == "true" && b.Commit != "" && commit == "":
				b.Commit += "-dirty"
			}
		}
		if b.IBMMQ {
			for _, dep := range info.Deps {
				if dep.Path == "github.com/ibm-messaging/mq-golang/v5" {
					b.MQGolang = dep.Version
				}
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

// buildVersion is the version the daemon reports (status, events).
func buildVersion() string { return readBuildInfo().Version }

func (b buildInfo) write(w io.Writer) {
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	fmt.Fprintln(w, "mqprobe", b.Version)
	fmt.Fprintln(w, "  commit:     ", unknown(b.Commit))
	fmt.Fprintln(w, "  built:      ", unknown(b.BuildDate))
	fmt.Fprintln(w, "  go:         ", b.GoVersion)
	if !b.IBMMQ {
		fmt.Fprintln(w, "  IBM MQ:      not compiled in (embedded queue manager only; build with -tags ibmmq)")
		return
	}
	client := b.MQClient
	if client == "" {
		client = "version not recorded at build time (-X main.mqClientVersion); dspmqver shows the installed client"
	}
	fmt.Fprintln(w, "  IBM MQ:      compiled in (build tag ibmmq)")
	fmt.Fprintln(w, "  MQ client:  ", client)
	if b.MQGolang != "" {
		fmt.Fprintln(w, "  mq-golang:  ", b.MQGolang)
	}
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go version and whether the IBM MQ backend is compiled in",
		RunE: func(cmd *cobra.Command, _ []string) error {
			readBuildInfo().write(cmd.OutOrStdout())
			return nil
		},
	}
}
