package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mqprobe/mqprobe/internal/config"
)

// clientOptions are the flags that say how to reach the daemon's HTTP API
// (send, send test, health).
type clientOptions struct {
	addr       string
	caFile     string
	certFile   string
	keyFile    string
	serverName string
	tokenFile  string
	timeout    time.Duration
}

// Variables the client settings fall back to when their flag is not given
// (the Docker image's HEALTHCHECK has no flags to spare). Each is listed
// in config.NonConfigEnv.
const (
	tokenEnv      = "MQPROBE_TOKEN"
	caFileEnv     = "MQPROBE_CA_FILE"
	certFileEnv   = "MQPROBE_CLIENT_CERTFILE"
	keyFileEnv    = "MQPROBE_CLIENT_KEYFILE"
	serverNameEnv = "MQPROBE_SERVER_NAME"
)

// clientFlags names the flags register adds, which only the HTTP API uses.
var clientFlags = []string{"addr", "ca-file", "cert-file", "key-file", "server-name", "token-file"}

func (o *clientOptions) register(f *pflag.FlagSet, timeoutUsage string, timeout time.Duration) {
	f.StringVar(&o.addr, "addr", "", "daemon address: host:port or an http:// or https:// URL (default: http.addr of the configuration, https when it sets http.tls)")
	f.StringVar(&o.caFile, "ca-file", "", "PEM CA bundle to verify the daemon's HTTPS certificate (default: $"+caFileEnv+", else the system roots, plus http.tls.certFile of the configuration when --addr is not given)")
	f.StringVar(&o.certFile, "cert-file", "", "PEM client certificate for mTLS, with --key-file (default: $"+certFileEnv+")")
	f.StringVar(&o.keyFile, "key-file", "", "PEM private key of --cert-file (default: $"+keyFileEnv+")")
	f.StringVar(&o.serverName, "server-name", "", "host name the daemon's certificate must carry (default: $"+serverNameEnv+", else the host dialled)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token (default: $"+tokenEnv+", else http.authToken of the configuration, i.e. $MQPROBE_HTTP_AUTHTOKEN)")
	f.DurationVar(&o.timeout, "timeout", timeout, timeoutUsage)
}

// withEnv is o with the settings its flags left out taken from the
// environment.
func (o clientOptions) withEnv() clientOptions {
	for _, s := range []struct {
		value *string
		env   string
	}{{&o.caFile, caFileEnv}, {&o.certFile, certFileEnv}, {&o.keyFile, keyFileEnv}, {&o.serverName, serverNameEnv}} {
		if *s.value == "" {
			*s.value = os.Getenv(s.env)
		}
	}
	return o
}

// daemonClient makes the CLI's calls to the daemon's HTTP API.
type daemonClient struct {
	base  *url.URL
	http  *http.Client
	token string
	// curlTLS are curl's options for the same CA and client certificate,
	// for the hints that show a curl command.
	curlTLS string
}

// newDaemonClient is the client o describes, anything o leaves out taken
// from the configuration (loaded only then). Bad options are usage errors.
func newDaemonClient(cmd *cobra.Command, flags *clientOptions) (*daemonClient, error) {
	o := flags.withEnv()
	var cfg *config.Config
	configured := func() (*config.Config, error) {
		if cfg != nil {
			return cfg, nil
		}
		var err error
		cfg, err = loadConfig(cmd)
		return cfg, err
	}
	if (o.certFile == "") != (o.keyFile == "") {
		return nil, usageErrorf(cmd, "--cert-file and --key-file go together ($%s and $%s): give both for a client certificate, or neither", certFileEnv, keyFileEnv)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: o.serverName}
	var roots []string
	var base *url.URL
	if o.addr != "" {
		var err error
		if base, err = parseAddr(o.addr, o.caFile != "" || o.certFile != ""); err != nil {
			return nil, usageErrorf(cmd, "--addr %q: %w", redactedAddr(o.addr), err)
		}
	} else {
		cfg, err := configured()
		if err != nil {
			return nil, err
		}
		scheme := "http"
		if cfg.HTTP.TLS.Enabled() {
			scheme = "https"
			// The daemon's own certificate, as a local admin's trust root.
			roots = append(roots, cfg.HTTP.TLS.CertFile)
		}
		base = &url.URL{Scheme: scheme, Host: dialable(cfg.HTTP.Addr), Path: "/"}
	}
	if o.caFile != "" {
		roots = []string{o.caFile}
	}
	if len(roots) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		for _, file := range roots {
			pem, err := os.ReadFile(file)
			if err != nil {
				return nil, usageErrorf(cmd, "CA file: %w", err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, usageErrorf(cmd, "CA file %s: no PEM certificate in it", file)
			}
		}
		tlsConfig.RootCAs = pool
	}
	if o.certFile != "" {
		cert, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
		if err != nil {
			return nil, usageErrorf(cmd, "--cert-file/--key-file: %w", err)
		}
		tlsConfig.Certificates = []tls.Certificate{cert}
	}
	token := os.Getenv(tokenEnv)
	switch {
	case o.tokenFile != "":
		data, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return nil, usageErrorf(cmd, "--token-file: %w", err)
		}
		if token = strings.TrimSpace(string(data)); token == "" {
			return nil, usageErrorf(cmd, "--token-file %s is empty", o.tokenFile)
		}
	case token == "":
		cfg, err := configured()
		if err != nil {
			return nil, err
		}
		token = cfg.HTTP.AuthToken
	}
	if o.timeout <= 0 {
		return nil, usageErrorf(cmd, "--timeout %s: must be positive", o.timeout)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	var curlTLS strings.Builder
	for _, file := range roots {
		fmt.Fprintf(&curlTLS, " --cacert %q", file)
	}
	if o.certFile != "" {
		fmt.Fprintf(&curlTLS, " --cert %q --key %q", o.certFile, o.keyFile)
	}
	return &daemonClient{base: base, http: &http.Client{Timeout: o.timeout, Transport: transport}, token: token,
		curlTLS: curlTLS.String()}, nil
}

// redactedAddr is --addr as it may be shown: a password in it masked.
func redactedAddr(addr string) string {
	if u, err := url.Parse(addr); err == nil && u.User != nil {
		return u.Redacted()
	}
	return addr
}

// parseAddr reads --addr: host:port (https when tls, else http) or an
// http(s) URL, whose path is kept as the API's base.
func parseAddr(addr string, tls bool) (*url.URL, error) {
	if !strings.Contains(addr, "://") {
		scheme := "http"
		if tls {
			scheme = "https"
		}
		addr = scheme + "://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil {
		return nil, errors.New("not host:port or an http(s) URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("scheme %q: use http or https", u.Scheme)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("want host:port or http(s)://host:port[/path], without user, query or fragment")
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// dialable is a listen address as a client dials it: the unspecified
// addresses 0.0.0.0 and [::] mean this host.
func dialable(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port)
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

// do sends one request to ref (resolved against the daemon's address; a
// body is JSON) and returns the response with its whole body. On any
// error resp is nil; an answer that broke off is an errBrokenAnswer.
func (c *daemonClient) do(ctx context.Context, method, ref string, body []byte, header http.Header) (*http.Response, []byte, error) {
	u, err := c.base.Parse(ref)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ref, err)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%s %s): %w", errBrokenAnswer, method, u.Redacted(), err)
	}
	return resp, out, nil
}

// errBrokenAnswer marks an answer whose body could not be read whole.
var errBrokenAnswer = errors.New("the daemon's answer broke off")

// isTimeout reports whether err is a deadline running out rather than the
// daemon being unreachable.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// unreachable is the error for a call that got no (whole) answer. A
// timeout or an interruption (Ctrl-C) is not decided: the command may
// still be running, and lookHint says how to look at it. A failed TLS
// handshake says what to check; anything else means no daemon answered.
func (c *daemonClient) unreachable(err error, lookHint string) error {
	switch {
	case isTimeout(err):
		return &exitError{code: exitNotDecided, err: fmt.Errorf("no answer within --timeout %s; the command may still be running: %s", c.http.Timeout, lookHint)}
	case errors.Is(err, context.Canceled):
		return &exitError{code: exitNotDecided, err: fmt.Errorf("interrupted before the answer; the command may still be running: %s", lookHint)}
	case errors.Is(err, errBrokenAnswer):
		return &exitError{code: exitFailed, err: fmt.Errorf("%w; look at the command: %s", err, lookHint)}
	}
	if hint, ok := tlsFailure(err); ok {
		return &exitError{code: exitFailed, err: fmt.Errorf("TLS handshake with %s failed: %w (%s)", c.base.Host, err, hint)}
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("no answer from %s (is the daemon running: mqprobe run?): %w", c.base.Redacted(), err)}
}

// tlsFailure reports whether err is a failed TLS handshake, with a hint
// at the setting to check.
func tlsFailure(err error) (hint string, ok bool) {
	var verify *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var header tls.RecordHeaderError
	var op *net.OpError
	switch {
	case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &header):
		return "the daemon speaks plain HTTP: use an http:// --addr", true
	case errors.As(err, &hostname):
		return "the certificate does not name the host dialled: --server-name (or $" + serverNameEnv + ") sets the name to verify", true
	case errors.As(err, &verify), errors.As(err, &unknownCA), errors.As(err, &invalid):
		return "verify the daemon's certificate against its CA: --ca-file (or $" + caFileEnv + ")", true
	case errors.As(err, &op) && op.Op == "remote error":
		// The daemon's alert: most often it wants a client certificate.
		return "the daemon refused the handshake: a client certificate goes in --cert-file/--key-file (or $" + certFileEnv + "/$" + keyFileEnv + ")", true
	}
	return "", false
}
