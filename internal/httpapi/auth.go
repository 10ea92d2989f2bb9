package httpapi

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireBearer refuses requests without "Authorization: Bearer <token>"
// (constant-time compare). Liveness and readiness stay open for probes.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health/live" || r.URL.Path == "/health/ready" {
			next.ServeHTTP(w, r)
			return
		}
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		// The scheme is case-insensitive (RFC 9110 §11.1): bearer is Bearer.
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mqprobe"`)
			writeProblem(w, r, http.StatusUnauthorized, problem{Detail: "a valid bearer token is required (http.authToken)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}
