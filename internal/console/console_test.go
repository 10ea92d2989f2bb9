package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mqprobe/mqprobe/internal/console"
)

// TestHandlerServesPagesAndAssets: every page answers the console's
// document, the assets their own types, anything else 404; each reply keeps
// the page to its own origin (no CDN, no inline script, no framing).
func TestHandlerServesPagesAndAssets(t *testing.T) {
	h := console.Handler()
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	for _, path := range append(console.Pages, "/ui/probes/some-test", "/ui/send/") {
		rec := get(path)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") ||
			!strings.Contains(rec.Body.String(), `<script type="module" src="/ui/assets/app.js">`) {
			t.Errorf("GET %s: %d %s, want the console's document", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		csp := rec.Header().Get("Content-Security-Policy")
		for _, directive := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, directive) {
				t.Errorf("GET %s: Content-Security-Policy %q lacks %q", path, csp, directive)
			}
		}
	}
	for path, wantType := range map[string]string{"/ui/assets/app.js": "text/javascript", "/ui/assets/style.css": "text/css"} {
		if rec := get(path); rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), wantType) {
			t.Errorf("GET %s: %d %q, want 200 %s", path, rec.Code, rec.Header().Get("Content-Type"), wantType)
		}
	}
	for _, path := range []string{"/ui/", "/ui/nothing", "/ui/assets/missing.js", "/ui/probesx", "/ui/../status"} {
		if rec := get(path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
}

// TestAssetsFetchNothingFromOutside: the console works on an air-gapped
// host, so no asset names another origin.
func TestAssetsFetchNothingFromOutside(t *testing.T) {
	h := console.Handler()
	for _, path := range []string{"/", "/ui/assets/app.js", "/ui/assets/style.css"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		body := rec.Body.String()
		for _, outside := range []string{"https://", "http://", "//fonts.", "@import", "url("} {
			if i := strings.Index(body, outside); i >= 0 && !strings.HasPrefix(body[i:], "http://www.w3.org/2000/svg") {
				t.Errorf("%s names %q: %.60s", path, outside, body[i:])
			}
		}
	}
}
