package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mqprobe/mqprobe/internal/config"
	"github.com/mqprobe/mqprobe/internal/daemonclient"
)

// clientOptions are the flags that say how to reach the daemon's HTTP API
// (send, send test, health).
type clientOptions struct {
	daemonclient.Options
}

// tokenEnv is the variable that holds the bearer token for the daemon.
const tokenEnv = daemonclient.TokenEnv

// clientFlags names the flags register adds, which only the HTTP API uses.
var clientFlags = []string{"addr", "ca-file", "cert-file", "key-file", "server-name", "token-file"}

func (o *clientOptions) register(f *pflag.FlagSet, timeoutUsage string, timeout time.Duration) {
	f.StringVar(&o.Addr, "addr", "", "daemon address: host:port or an http:// or https:// URL (default: http.addr of the configuration, https when it sets http.tls)")
	f.StringVar(&o.CAFile, "ca-file", "", "PEM CA bundle to verify the daemon's HTTPS certificate (default: $"+daemonclient.CAFileEnv+", else the system roots, plus http.tls.certFile of the configuration when --addr is not given)")
	f.StringVar(&o.CertFile, "cert-file", "", "PEM client certificate for mTLS, with --key-file (default: $"+daemonclient.CertFileEnv+")")
	f.StringVar(&o.KeyFile, "key-file", "", "PEM private key of --cert-file (default: $"+daemonclient.KeyFileEnv+")")
	f.StringVar(&o.ServerName, "server-name", "", "host name the daemon's certificate must carry (default: $"+daemonclient.ServerNameEnv+", else the host dialled)")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the bearer token (default: $"+tokenEnv+", else http.authToken of the configuration, i.e. $MQPROBE_HTTP_AUTHTOKEN)")
	f.DurationVar(&o.Timeout, "timeout", timeout, timeoutUsage)
}

// newDaemonClient is the client the flags describe, anything they leave
// out taken from the configuration (loaded only then). Bad options are
// usage errors.
func newDaemonClient(cmd *cobra.Command, flags *clientOptions) (*daemonclient.Client, error) {
	dc, err := daemonclient.New(flags.Options, func() (*config.Config, error) { return loadConfig(cmd) })
	var bad *daemonclient.OptionError
	if errors.As(err, &bad) {
		return nil, usageErrorf(cmd, "%w", bad.Err)
	}
	return dc, err
}

// keyOptions are the idempotency flags every command sends.
type keyOptions struct {
	key           string
	expirySeconds int
}

func (o *keyOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.key, "key", "", "idempotency key (Idempotency-Key header); generated and shown when --wait needs one")
	f.IntVar(&o.expirySeconds, "expiry-seconds", 0, "record TTL in seconds (Idempotency-Expiry-Seconds header; 0: the daemon's idempotency.recordTTL)")
}

// header carries the key and expiry, when given.
func (o *keyOptions) header() http.Header {
	header := http.Header{}
	if o.key != "" {
		header.Set("Idempotency-Key", o.key)
	}
	if o.expirySeconds != 0 {
		header.Set("Idempotency-Expiry-Seconds", fmt.Sprint(o.expirySeconds))
	}
	return header
}

// unreachable is the error for a call to dc that got no (whole) answer. A
// timeout or an interruption (Ctrl-C) is not decided: the command may
// still be running, and lookHint says how to look at it. A failed TLS
// handshake says what to check; anything else means no daemon answered.
func unreachable(dc *daemonclient.Client, err error, lookHint string) error {
	var foreign *daemonclient.NotDaemonError
	switch {
	case errors.As(err, &foreign):
		return &exitError{code: exitFailed, err: foreign}
	case daemonclient.IsTimeout(err):
		return &exitError{code: exitNotDecided, err: fmt.Errorf("no answer within --timeout %s; the command may still be running: %s", dc.Timeout(), lookHint)}
	case errors.Is(err, context.Canceled):
		return &exitError{code: exitNotDecided, err: fmt.Errorf("interrupted before the answer; the command may still be running: %s", lookHint)}
	case errors.Is(err, daemonclient.ErrBrokenAnswer):
		return &exitError{code: exitFailed, err: fmt.Errorf("%w; look at the command: %s", err, lookHint)}
	}
	if hint, ok := daemonclient.TLSFailure(err); ok {
		return &exitError{code: exitFailed, err: fmt.Errorf("TLS handshake with %s failed: %w (%s)", dc.Host(), err, hint)}
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("no answer from %s (is the daemon running: mqprobe run?): %w", dc.Address(), err)}
}
