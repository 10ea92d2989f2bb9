package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mqprobe/mqprobe/internal/daemonclient"
)

func healthCommand() *cobra.Command {
	opts := &clientOptions{}
	var live bool
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Ask the daemon whether it is ready (exit 0) or not (exit 1); the image's HEALTHCHECK",
		Long: `Ask the daemon's /health/ready (with --live, /health/live) and exit 0 when
it answers 200, 1 otherwise (also for a bad command line or configuration:
Docker reserves 2), saying why. The address and TLS settings are the
configuration's (http.addr, http.tls) unless --addr says otherwise, so the
Docker image's HEALTHCHECK needs no shell or curl. When the daemon asks for
client certificates (http.tls.clientCAFile), give one with
$MQPROBE_CLIENT_CERTFILE and $MQPROBE_CLIENT_KEYFILE (its CA with
$MQPROBE_CA_FILE); when its certificate does not name the address dialled
(0.0.0.0 is dialled as 127.0.0.1), $MQPROBE_SERVER_NAME names the host to
verify.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dc, err := newDaemonClient(cmd, opts)
			if err != nil {
				return err
			}
			path := "health/ready"
			if live {
				path = "health/live"
			}
			resp, data, err := dc.Do(cmd.Context(), http.MethodGet, path, nil, nil)
			var foreign *daemonclient.NotDaemonError
			if errors.As(err, &foreign) {
				return &exitError{code: exitFailed, err: foreign}
			}
			if err != nil {
				if hint, ok := daemonclient.TLSFailure(err); ok {
					return &exitError{code: exitFailed, err: fmt.Errorf("%s: TLS handshake failed: %w (%s)", dc.URL(path), err, hint)}
				}
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: no answer: %w", dc.URL(path), err)}
			}
			if resp.StatusCode != http.StatusOK {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: %s: %s", dc.URL(path), resp.Status, strings.TrimSpace(string(data)))}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", path, strings.TrimSpace(string(data)))
			return nil
		},
	}
	opts.register(cmd.Flags(), "how long to wait for the answer", 5*time.Second)
	cmd.Flags().BoolVar(&live, "live", false, "ask /health/live (the process answers) instead of /health/ready (it can take commands)")
	return cmd
}
