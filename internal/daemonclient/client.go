// Package daemonclient is the CLI's client of the daemon's HTTP API: where
// the daemon is (an address, or the configuration's http.addr and
// http.tls), how its certificate is verified and the client's own given for
// mTLS, the bearer token, and one call at a time with its whole answer. It
// also names the API's paths and answers the CLI reads. What the CLI makes
// of an answer (its output and exit status) stays in cmd/mqprobe.
package daemonclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/config"
)

// Variables the options fall back to when they are not given (the Docker
// image's HEALTHCHECK has no flags to spare). Each is listed in
// config.NonConfigEnv.
const (
	TokenEnv      = "MQPROBE_TOKEN"
	CAFileEnv     = "MQPROBE_CA_FILE"
	CertFileEnv   = "MQPROBE_CLIENT_CERTFILE"
	KeyFileEnv    = "MQPROBE_CLIENT_KEYFILE"
	ServerNameEnv = "MQPROBE_SERVER_NAME"
)

// Options say how to reach the daemon. Each is a flag of the CLI's
// (--addr, --ca-file, ...), which the errors of New name.
type Options struct {
	Addr       string // host:port or an http(s) URL; "" the configuration's http.addr
	CAFile     string
	CertFile   string
	KeyFile    string
	ServerName string
	TokenFile  string
	Timeout    time.Duration
}

// WithEnv is o with the settings it leaves out taken from the environment.
func (o Options) WithEnv() Options {
	for _, s := range []struct {
		value *string
		env   string
	}{{&o.CAFile, CAFileEnv}, {&o.CertFile, CertFileEnv}, {&o.KeyFile, KeyFileEnv}, {&o.ServerName, ServerNameEnv}} {
		if *s.value == "" {
			*s.value = os.Getenv(s.env)
		}
	}
	return o
}

// OptionError is an option New cannot use: a usage error of the CLI.
type OptionError struct{ Err error }

func (e *OptionError) Error() string { return e.Err.Error() }

func (e *OptionError) Unwrap() error { return e.Err }

func optionErrorf(format string, args ...any) error {
	return &OptionError{Err: fmt.Errorf(format, args...)}
}

// Client makes calls to the daemon's HTTP API.
type Client struct {
	base  *url.URL
	http  *http.Client
	token string
	// curlTLS are curl's options for the same CA and client certificate,
	// for the hints that show a curl command.
	curlTLS string
}

// New is the client o describes (with the environment's settings for what
// o leaves out, see WithEnv). What neither gives comes from the
// configuration, which configured loads, only then; its errors are
// returned as they are. Options it cannot use are *OptionError.
func New(o Options, configured func() (*config.Config, error)) (*Client, error) {
	o = o.WithEnv()
	var cfg *config.Config
	load := func() (*config.Config, error) {
		if cfg != nil {
			return cfg, nil
		}
		var err error
		cfg, err = configured()
		return cfg, err
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, optionErrorf("--cert-file and --key-file go together ($%s and $%s): give both for a client certificate, or neither", CertFileEnv, KeyFileEnv)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: o.ServerName}
	var roots []string
	var base *url.URL
	if o.Addr != "" {
		var err error
		if base, err = parseAddr(o.Addr, o.CAFile != "" || o.CertFile != ""); err != nil {
			return nil, optionErrorf("--addr %q: %w", redactedAddr(o.Addr), err)
		}
	} else {
		cfg, err := load()
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
	if o.CAFile != "" {
		roots = []string{o.CAFile}
	}
	if len(roots) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		for _, file := range roots {
			pem, err := os.ReadFile(file)
			if err != nil {
				return nil, optionErrorf("CA file: %w", err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, optionErrorf("CA file %s: no PEM certificate in it", file)
			}
		}
		tlsConfig.RootCAs = pool
	}
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, optionErrorf("--cert-file/--key-file: %w", err)
		}
		tlsConfig.Certificates = []tls.Certificate{cert}
	}
	token := os.Getenv(TokenEnv)
	switch {
	case o.TokenFile != "":
		data, err := os.ReadFile(o.TokenFile)
		if err != nil {
			return nil, optionErrorf("--token-file: %w", err)
		}
		if token = strings.TrimSpace(string(data)); token == "" {
			return nil, optionErrorf("--token-file %s is empty", o.TokenFile)
		}
	case token == "":
		cfg, err := load()
		if err != nil {
			return nil, err
		}
		token = cfg.HTTP.AuthToken
	}
	if o.Timeout <= 0 {
		return nil, optionErrorf("--timeout %s: must be positive", o.Timeout)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	var curlTLS strings.Builder
	for _, file := range roots {
		fmt.Fprintf(&curlTLS, " --cacert %q", file)
	}
	if o.CertFile != "" {
		fmt.Fprintf(&curlTLS, " --cert %q --key %q", o.CertFile, o.KeyFile)
	}
	return &Client{base: base, http: &http.Client{Timeout: o.Timeout, Transport: transport}, token: token,
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

// Host is the host:port the client dials.
func (c *Client) Host() string { return c.base.Host }

// Address is the daemon's address (the API's base URL), as it may be
// shown.
func (c *Client) Address() string { return c.base.Redacted() }

// URL is ref resolved against the daemon's address, as it may be shown.
func (c *Client) URL(ref string) string { return c.base.JoinPath(ref).Redacted() }

// Timeout bounds each call, its answer's body included.
func (c *Client) Timeout() time.Duration { return c.http.Timeout }

// Curl is the curl command line that makes a GET of ref as this client
// does: its CA and client certificate, and its token as $tokenVar, never
// the token itself, for the line lands in terminals and logs.
func (c *Client) Curl(ref, tokenVar string) string {
	u, _ := c.base.Parse(ref) //nolint:errcheck // callers pass escaped API paths
	auth := ""
	if c.token != "" {
		auth = ` -H "Authorization: Bearer $` + tokenVar + `"`
	}
	return fmt.Sprintf("curl%s%s %s", c.curlTLS, auth, u.Redacted())
}

// Do sends one request to ref (resolved against the daemon's address; a
// body is JSON) and returns the response with its whole body. On any
// error resp is nil; an answer that broke off is an ErrBrokenAnswer.
func (c *Client) Do(ctx context.Context, method, ref string, body []byte, header http.Header) (*http.Response, []byte, error) {
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
	if resp.StatusCode != http.StatusNoContent && !isJSON(resp.Header.Get("Content-Type")) {
		// Whatever else answers, only the start of its page is read.
		start, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if resp.StatusCode == http.StatusBadRequest && bytes.Contains(start, []byte("HTTP request to an HTTPS server")) {
			return resp, start, nil // a server (the daemon, with http.tls) whose scheme the caller names
		}
		return nil, nil, &NotDaemonError{Addr: c.base.Redacted(), Answer: describeAnswer(resp, start)}
	}
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (%s %s): %w", ErrBrokenAnswer, method, u.Redacted(), err)
	}
	return resp, out, nil
}

// NotDaemonError is an answer no mqprobe daemon gives: every answer of its
// API is JSON (a result, or an RFC 9457 problem).
type NotDaemonError struct {
	Addr   string // the address dialled, redacted
	Answer string // what answered instead, briefly
}

func (e *NotDaemonError) Error() string {
	return fmt.Sprintf("%s is not an mqprobe daemon (it answered %s); check --addr", e.Addr, e.Answer)
}

// isJSON reports whether a Content-Type is JSON (application/json,
// application/problem+json).
func isJSON(contentType string) bool {
	media, _, err := mime.ParseMediaType(contentType)
	return err == nil && (media == "application/json" || strings.HasSuffix(media, "+json"))
}

// describeAnswer is a short account of a foreign answer: its status, its
// type and an HTML page's title or the start of the text, never the whole.
func describeAnswer(resp *http.Response, body []byte) string {
	desc := resp.Status
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		desc += ", " + ct
	}
	text := string(body)
	if m := htmlTitle.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return desc
	}
	const most = 80
	if r := []rune(text); len(r) > most {
		text = string(r[:most]) + "…"
	}
	return fmt.Sprintf("%s: %q", desc, text)
}

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// ErrBrokenAnswer marks an answer whose body could not be read whole.
var ErrBrokenAnswer = errors.New("the daemon's answer broke off")

// IsTimeout reports whether err is a deadline running out rather than the
// daemon being unreachable.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// TLSFailure reports whether err is a failed TLS handshake, with a hint
// at the option to check.
func TLSFailure(err error) (hint string, ok bool) {
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
		return "the certificate does not name the host dialled: --server-name (or $" + ServerNameEnv + ") sets the name to verify", true
	case errors.As(err, &verify), errors.As(err, &unknownCA), errors.As(err, &invalid):
		return "verify the daemon's certificate against its CA: --ca-file (or $" + CAFileEnv + ")", true
	case errors.As(err, &op) && op.Op == "remote error":
		// The daemon's alert: most often it wants a client certificate.
		return "the daemon refused the handshake: a client certificate goes in --cert-file/--key-file (or $" + CertFileEnv + "/$" + KeyFileEnv + ")", true
	}
	return "", false
}
