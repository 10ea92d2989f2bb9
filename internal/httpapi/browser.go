package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/mqprobe/mqprobe/internal/problems"
)

// Problem codes of the requests a browser page must not make.
const (
	codeCrossOrigin    = "CROSS_ORIGIN_REQUEST"
	codeHostNotAllowed = "HOST_NOT_ALLOWED"
)

// refuseCrossOrigin answers 403 to every state-changing request a browser
// sends from a page of another origin (a form or fetch to POST /…, which
// needs no CORS preflight when its Content-Type is text/plain or a form's).
// net/http's CrossOriginProtection decides, from Sec-Fetch-Site or else
// Origin against Host; a request carrying neither (curl, the CLI, any
// non-browser client) passes, and so does the console, which is served
// from the API's own origin. No origin is trusted besides: the API sends no
// CORS headers, so a page elsewhere could not read its replies anyway.
func refuseCrossOrigin(next http.Handler) http.Handler {
	protection := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := protection.Check(r); err != nil {
			from := r.Header.Get("Origin")
			if from == "" {
				from = "Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site")
			}
			writeProblem(w, r, http.StatusForbidden, problem{Type: problems.CrossOrigin, Code: codeCrossOrigin,
				Detail: fmt.Sprintf("%s %s refused: it comes from a browser page of another origin (%s); "+
					"state-changing requests are served only from this daemon's own origin (the console) or from clients that are not browsers",
					r.Method, r.URL.Path, from)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostPolicy is the Host values a daemon without a bearer token serves:
// names a page on another site cannot make its browser send to us, so DNS
// rebinding (attacker.example resolving to 127.0.0.1) finds nothing.
type hostPolicy struct {
	allowed []allowedHost
}

// allowedHost is one http.allowedHosts entry: a name or address, with a
// port or (empty) any.
type allowedHost struct {
	host, port string
}

func newHostPolicy(entries []string) hostPolicy {
	var p hostPolicy
	for _, e := range entries {
		host, port := splitHost(e)
		p.allowed = append(p.allowed, allowedHost{host: canonicalHost(host), port: port})
	}
	return p
}

// serves reports whether r's Host names this listener: localhost or a
// loopback address (any port: SSH tunnels and kubectl port-forward pick
// their own), the address the request arrived at (any port: a NAT may
// change it), or an http.allowedHosts entry.
func (p hostPolicy) serves(r *http.Request) bool {
	host, port := splitHost(r.Host)
	host = canonicalHost(host)
	if host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if ip.IsLoopback() {
			return true
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if ap, err := netip.ParseAddrPort(local.String()); err == nil && ap.Addr().Unmap().WithZone("") == ip.WithZone("") {
				return true
			}
		}
	}
	for _, a := range p.allowed {
		if a.host == host && (a.port == "" || a.port == port) {
			return true
		}
	}
	return false
}

// refuseForeignHosts answers 403 to requests whose Host p does not serve.
func (p hostPolicy) refuseForeignHosts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.serves(r) {
			writeProblem(w, r, http.StatusForbidden, problem{Type: problems.HostNotAllowed, Code: codeHostNotAllowed,
				Detail: fmt.Sprintf("Host %q does not name this daemon: it serves only localhost, loopback addresses, "+
					"the address it listens on and the names in http.allowedHosts (a page of another site may not reach it "+
					"through DNS rebinding); add the name to http.allowedHosts, or require a bearer token (http.authToken)", r.Host)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// splitHost splits "host", "host:port", "[v6]" or "[v6]:port".
func splitHost(hostport string) (host, port string) {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
}

// canonicalHost is host as compared: lower case, without a root dot.
func canonicalHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}
