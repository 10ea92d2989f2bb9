package httpapi

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mqprobe/mqprobe/internal/configcheck"
	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Settings is the http section of the configuration: where and how the API
// is served and who may call it. The daemon binds the listener (addr, tls,
// readTimeout) and drains it (shutdownTimeout); Handler applies the rest.
type Settings struct {
	Addr            string        `yaml:"addr" desc:"Listen address host:port; anything but loopback requires http.authToken, http.tokens or mTLS"`
	MaxBodyBytes    int           `yaml:"maxBodyBytes" desc:"Largest request body accepted, in bytes (command.maxBytes plus room for envelopes)"`
	ReadTimeout     time.Duration `yaml:"readTimeout" desc:"Time allowed to read a whole request (0 = no limit)"`
	WriteTimeout    time.Duration `yaml:"writeTimeout" desc:"Time allowed to write a reply once it is ready (a command's reply after the command ends; 0 = no limit)"`
	ShutdownTimeout time.Duration `yaml:"shutdownTimeout" desc:"How long a graceful shutdown waits for in-flight requests"`
	InProgressWait  time.Duration `yaml:"inProgressWait" desc:"How long a request whose command runs elsewhere waits for its result before 409 with Retry-After"`
	AuthToken       string        `yaml:"authToken" secret:"true" desc:"Bearer token of the implicit tenant (empty = none; a non-loopback addr needs it, http.tokens or mTLS)"`
	// Tokens are the named tenants, by name.
	Tokens       map[string]tenant.Config `yaml:"tokens"`
	AllowedHosts []string                 `yaml:"allowedHosts" desc:"Host header values served besides localhost, loopback addresses and the address listened on: name or name:port (no port = any); checked when set, and always without a bearer token (DNS rebinding)"`
	TLS          TLSSettings              `yaml:"tls"`
}

// TLSSettings serves the API over TLS, optionally requiring client
// certificates (mTLS).
type TLSSettings struct {
	CertFile     string `yaml:"certFile" desc:"PEM server certificate (chain); with keyFile, the API speaks HTTPS"`
	KeyFile      string `yaml:"keyFile" desc:"PEM private key of certFile"`
	ClientCAFile string `yaml:"clientCAFile" desc:"PEM CA bundle; when set, every client must present a certificate it signed (mTLS)"`
}

// Enabled reports whether the API serves HTTPS.
func (t TLSSettings) Enabled() bool { return t.CertFile != "" }

// ResultsSettings is the results key the API applies to GET /results.
type ResultsSettings struct {
	MaxReplyBytes int `yaml:"maxReplyBytes" desc:"Bytes of result events one GET /results reply carries at most (the rest is left out and the reply says truncated)"`
}

// Validate checks results.maxReplyBytes, as a *configcheck.FieldError.
func (r ResultsSettings) Validate() error {
	var v configcheck.Errors
	v.Positive("results.maxReplyBytes", r.MaxReplyBytes)
	return v.Err()
}

// DefaultSettings is the http section's built-in configuration: loopback
// only, so no token is needed.
func DefaultSettings() Settings {
	return Settings{
		Addr:            "127.0.0.1:8080",
		MaxBodyBytes:    300000,
		ReadTimeout:     10 * time.Second,
		WriteTimeout:    30 * time.Second,
		ShutdownTimeout: 30 * time.Second,
		InProgressWait:  DefaultInProgressWait,
	}
}

// Validate checks the http section's own rules, each a
// *configcheck.FieldError naming its key.
func (h Settings) Validate() error {
	var v configcheck.Errors
	host, port, err := net.SplitHostPort(h.Addr)
	if p, perr := strconv.Atoi(port); err != nil || perr != nil || p < 0 || p > 65535 {
		v.Fail("http.addr", "must be host:port (got %q)", h.Addr)
	} else if !isLoopback(host) && h.AuthToken == "" && len(h.Tokens) == 0 && h.TLS.ClientCAFile == "" {
		// Any bind beyond loopback needs a bearer token or mTLS.
		v.Fail("http.authToken", "required (or http.tokens, or http.tls.clientCAFile for mTLS) when http.addr is not a loopback address (got %q)", h.Addr)
	}
	for i, entry := range h.AllowedHosts {
		if !isHostEntry(entry) {
			v.Fail(fmt.Sprintf("http.allowedHosts[%d]", i), "must be a host name or IP address, optionally with :port, as a Host header carries it (got %q)", entry)
		}
	}
	if (h.TLS.CertFile == "") != (h.TLS.KeyFile == "") {
		v.Fail("http.tls.keyFile", "http.tls.certFile and http.tls.keyFile go together")
	}
	if h.TLS.ClientCAFile != "" && h.TLS.CertFile == "" {
		v.Fail("http.tls.clientCAFile", "needs http.tls.certFile and http.tls.keyFile: client certificates are asked for only over TLS")
	}
	v.Positive("http.maxBodyBytes", h.MaxBodyBytes)
	v.NonNegativeDuration("http.readTimeout", h.ReadTimeout)
	v.NonNegativeDuration("http.writeTimeout", h.WriteTimeout)
	v.PositiveDuration("http.shutdownTimeout", h.ShutdownTimeout)
	v.PositiveDuration("http.inProgressWait", h.InProgressWait)
	return v.Err()
}

// hostNameRE is a DNS name as a Host header carries it: dot-separated
// labels of letters, digits, - and _, an optional root dot.
var hostNameRE = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?$`)

// isHostEntry reports whether entry is "host", "host:port", "[v6]" or
// "[v6]:port" with a name or IP address and a port 1-65535.
func isHostEntry(entry string) bool {
	host, port, err := net.SplitHostPort(entry)
	if err != nil {
		host, port = entry, ""
		if strings.HasPrefix(entry, "[") && strings.HasSuffix(entry, "]") {
			host = entry[1 : len(entry)-1]
		}
	}
	if port != "" {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return false
		}
	}
	if ip := net.ParseIP(host); ip != nil {
		return true
	}
	return len(host) <= 253 && hostNameRE.MatchString(host)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
