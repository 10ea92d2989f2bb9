package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"

	"github.com/spf13/cobra"
)

// daemonClient makes the CLI's calls to the daemon's HTTP API (send and
// send test): the address from --addr or the configuration, --timeout per
// call, and the bearer token from MQPROBE_HTTP_AUTHTOKEN.
type daemonClient struct {
	base  *url.URL
	http  *http.Client
	token string
}

// newDaemonClient is the client cmd's flags describe. A bad address is a
// usage error (exitUsage).
func newDaemonClient(cmd *cobra.Command) (*daemonClient, error) {
	flags := cmd.Flags()
	addr, _ := flags.GetString("addr")
	if addr == "" {
		cfg, err := loadConfig(cmd)
		if err != nil {
			return nil, err
		}
		addr = cfg.HTTP.Addr
	}
	base, err := url.Parse("http://" + addr + "/")
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("--addr %s: %w", addr, err)}
	}
	timeout, _ := flags.GetDuration("timeout")
	return &daemonClient{base: base, http: &http.Client{Timeout: timeout}, token: os.Getenv("MQPROBE_HTTP_AUTHTOKEN")}, nil
}

// idempotencyHeader carries --key and --expiry-seconds, when given.
func idempotencyHeader(cmd *cobra.Command) http.Header {
	header := http.Header{}
	if key, _ := cmd.Flags().GetString("key"); key != "" {
		header.Set("Idempotency-Key", key)
	}
	if exp, _ := cmd.Flags().GetInt("expiry-seconds"); exp != 0 {
		header.Set("Idempotency-Expiry-Seconds", fmt.Sprint(exp))
	}
	return header
}

// do sends one request to ref (resolved against the daemon's address; a
// body is JSON) and returns the response with its whole body. When the
// daemon cannot be reached, resp is nil; when the body cannot be read, resp
// is returned along with a "reading the response" error.
func (c *daemonClient) do(ctx context.Context, method, ref string, body []byte, header http.Header) (*http.Response, []byte, error) {
	u, err := c.base.Parse(ref)
	if err != nil {
		return nil, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
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
		return resp, nil, fmt.Errorf("reading the response: %w", err)
	}
	return resp, out, nil
}

// unreachable is the error for a daemon that did not answer.
func unreachable(err error) error {
	return &exitError{code: exitFailed, err: fmt.Errorf("is the daemon running (mqprobe run)? %w", err)}
}
