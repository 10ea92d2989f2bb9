package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/mqprobe/mqprobe/internal/tenant"
)

// Credential is a bearer token and the tenant it authenticates.
type Credential struct {
	Token  string
	Tenant tenant.Tenant
}

// requireBearer refuses requests without "Authorization: Bearer <token>" of
// one of creds, and runs the others as that token's tenant (the request
// context carries it). Every token is compared, in constant time, as a
// SHA-256 digest: the time taken tells neither which token matched nor how
// long any is. Liveness and readiness stay open for probes.
func requireBearer(creds []Credential, next http.Handler) http.Handler {
	digests := make([][sha256.Size]byte, len(creds))
	for i, c := range creds {
		digests[i] = sha256.Sum256([]byte(c.Token))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health/live" || r.URL.Path == "/health/ready" {
			next.ServeHTTP(w, r)
			return
		}
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(got))
		match := -1
		for i := range digests {
			match = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare(sum[:], digests[i][:]), i, match)
		}
		// The scheme is case-insensitive (RFC 9110 §11.1): bearer is Bearer.
		if !strings.EqualFold(scheme, "Bearer") || match < 0 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mqprobe"`)
			writeProblem(w, r, http.StatusUnauthorized, problem{Detail: "a valid bearer token is required (http.authToken or http.tokens)"})
			return
		}
		next.ServeHTTP(w, r.WithContext(tenant.NewContext(r.Context(), creds[match].Tenant)))
	})
}
