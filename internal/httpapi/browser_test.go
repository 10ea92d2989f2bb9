package httpapi_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mqprobe/mqprobe/internal/httpapi"
)

// TestHostNamingTheListenerIsServed: without a bearer token, a Host that
// is the address the request arrived at (a daemon on 0.0.0.0 reached by
// one of its addresses) is served, with any port; another address is not.
func TestHostNamingTheListenerIsServed(t *testing.T) {
	h := httpapi.Handler(httpapi.Config{Executor: countsOnly{}})
	status := func(host string, local net.Addr) int {
		req := httptest.NewRequest(http.MethodGet, "/status", nil)
		req.Host = host
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	v4 := &net.TCPAddr{IP: net.ParseIP("10.0.0.5"), Port: 8443}
	v6 := &net.TCPAddr{IP: net.ParseIP("2001:db8::5"), Port: 8443}
	for _, tc := range []struct {
		host  string
		local net.Addr
		want  int
	}{
		{"10.0.0.5:8443", v4, http.StatusOK},
		{"10.0.0.5:443", v4, http.StatusOK},
		{"10.0.0.5", v4, http.StatusOK},
		{"[2001:db8::5]:8443", v6, http.StatusOK},
		{"10.0.0.6:8443", v4, http.StatusForbidden},
		{"mqprobe.example.com:8443", v4, http.StatusForbidden},
		{"", v4, http.StatusForbidden},
		{"[2001:db8::6]:8443", v6, http.StatusForbidden},
	} {
		if got := status(tc.host, tc.local); got != tc.want {
			t.Errorf("Host %q arriving at %s: %d, want %d", tc.host, tc.local, got, tc.want)
		}
	}
}
